"""A training script written for GPUs and many processes, run as is on one CPU process: its dtype
table names bfloat16, it makes a (disabled) gradient scaler, imports DistributedDataParallel and
asks tg.distributed whether a process group exists, and reloads its checkpoint with
map_location. Each answer is the one a CPU-only PyTorch gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tapegrad as tg
from tapegrad.nn.parallel import DataParallel, DistributedDataParallel


def test_dtype_table_names_bfloat16_and_using_it_is_a_clear_error():
    table = {"float32": tg.float32, "bfloat16": tg.bfloat16, "float16": tg.float16}
    assert table["float16"] == np.float16 and repr(table["bfloat16"]) == "tapegrad.bfloat16"
    with pytest.raises(TypeError, match="no bfloat16 type; use tg.float32"):
        tg.zeros(2, dtype=tg.bfloat16)
    with pytest.raises(TypeError, match="bfloat16"):
        tg.ones(2).to(tg.bfloat16)


def test_grad_scaler_without_cuda_is_a_pass_through():
    net = tg.nn.Linear(3, 1)
    opt = tg.optim.SGD(net.parameters(), lr=0.5)
    with pytest.warns(UserWarning, match="CUDA is not available.  Disabling"):
        scaler = tg.cuda.amp.GradScaler(enabled=True)  # what a float16 script asks for
    assert not scaler.is_enabled() and scaler.get_scale() == 1.0 and scaler.state_dict() == {}
    loss = net(tg.ones(2, 3)).sum()
    assert scaler.scale(loss) is loss
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    before = net.weight.detach().numpy().copy()
    assert scaler.step(opt) is None
    scaler.update()
    # an unscaled SGD step: w - lr * dL/dw, dL/dw = the column sums of the ones batch (2 each)
    np.testing.assert_array_equal(net.weight.detach().numpy(), before - 0.5 * 2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tg.cuda.amp.GradScaler(enabled=False)  # (asked for nothing: no warning)


def test_single_process_questions_have_pytorchs_answers():
    assert tg.distributed.is_available() is False and tg.distributed.is_initialized() is False
    for ask in (tg.distributed.get_rank, tg.distributed.get_world_size):
        with pytest.raises(ValueError, match="has not been initialized"):
            ask()
    with pytest.raises(RuntimeError, match="run the program as a single process"):
        tg.distributed.init_process_group(backend="gloo")
    with pytest.raises(ValueError, match="has not been initialized"):
        DistributedDataParallel(tg.nn.Linear(2, 1))


def test_data_parallel_without_gpus_runs_the_module_itself():
    inner = tg.nn.Linear(2, 1)
    wrapped = DataParallel(inner)
    x = tg.randn(4, 2)
    assert wrapped.module is inner
    np.testing.assert_array_equal(wrapped(x).numpy(), inner(x).numpy())
    assert list(wrapped.state_dict()) == ["module.weight", "module.bias"]


def test_checkpoint_reloads_with_map_location(tmp_path):
    net = tg.nn.Linear(2, 2)
    path = tmp_path / "ckpt.pt"
    tg.save({"model": net.state_dict(), "iter_num": 20}, path)
    for where in ("cpu", tg.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage):
        back = tg.load(path, map_location=where, weights_only=True)
        assert back["iter_num"] == 20
        np.testing.assert_array_equal(back["model"]["weight"].numpy(), net.weight.numpy())
    with pytest.raises(RuntimeError, match="'cuda' is not available"):
        tg.load(path, map_location="cuda")


def test_same_answers_as_a_cpu_only_torch():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("compares with a PyTorch that has no CUDA device")
    from torch.nn.parallel import DataParallel as TorchDataParallel

    with pytest.warns(UserWarning, match="CUDA is not available"), warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # (its deprecation notice for the name)
        theirs = torch.cuda.amp.GradScaler(enabled=True)
    ours = tg.cuda.amp.GradScaler(enabled=False)
    assert (theirs.is_enabled(), theirs.get_scale(), theirs.state_dict()) == (
        ours.is_enabled(),
        ours.get_scale(),
        ours.state_dict(),
    )
    with pytest.raises(ValueError) as theirs_error:
        torch.distributed.get_rank()
    with pytest.raises(ValueError) as ours_error:
        tg.distributed.get_rank()
    assert str(ours_error.value).startswith(str(theirs_error.value))
    assert list(TorchDataParallel(torch.nn.Linear(2, 1)).state_dict()) == list(
        DataParallel(tg.nn.Linear(2, 1)).state_dict()
    )
