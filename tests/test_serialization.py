"""tg.save / tg.load (.npz, no pickle) and state dicts moving between tapegrad and PyTorch."""

from __future__ import annotations

import io
import math
from collections import OrderedDict

import numpy as np
import pytest

import tapegrad as tg
from tapegrad import nn


def round_trip(obj, tmp_path):
    path = tmp_path / "ckpt.npz"
    tg.save(obj, path)
    return tg.load(path)


def test_tensors_keep_dtype_shape_and_values(tmp_path):
    tensors = {
        "f32": tg.tensor([[1.5, -2.0]]),
        "f64": tg.tensor(np.linspace(0, 1, 6).reshape(2, 3)),
        "f16": tg.tensor([1.0, 2.0], dtype=tg.float16),
        "i64": tg.tensor([1, 2, 3]),
        "i32": tg.tensor([[7]], dtype=tg.int32),
        "bool": tg.tensor([True, False]),
        "scalar": tg.tensor(3.25, dtype=tg.float64),
        "empty": tg.zeros(0, 4),
    }
    back = round_trip(tensors, tmp_path)
    assert list(back) == list(tensors)
    for key, t in tensors.items():
        got = back[key]
        assert isinstance(got, tg.Tensor), key
        assert got.dtype == t.dtype and got.shape == t.shape, key
        assert np.array_equal(got.numpy(), t.numpy()), key
    assert back["scalar"].shape == () and back["scalar"].item() == 3.25


def test_python_values_containers_and_key_order(tmp_path):
    obj = {
        "z": 1,
        "a": [2.5, True, None, "text", float("inf")],
        "tuple": (1, (2, 3)),
        "ints": {3: "three", 0: "zero", 1.5: None, None: False},
        "ordered": OrderedDict([("b", 1), ("a", 2)]),
        "array": np.arange(6, dtype=np.int16).reshape(2, 3),
        "np_scalar": np.float32(0.5),
        "nan": float("nan"),
        "strings": np.array(["ab", "c"]),
    }
    back = round_trip(obj, tmp_path)
    assert list(back) == list(obj) and list(back["ints"]) == [3, 0, 1.5, None]
    assert back["a"] == [2.5, True, None, "text", float("inf")]
    assert type(back["a"][1]) is bool and type(back["z"]) is int
    assert back["tuple"] == (1, (2, 3)) and isinstance(back["tuple"][1], tuple)
    assert isinstance(back["ordered"], OrderedDict) and list(back["ordered"]) == ["b", "a"]
    assert type(back["ints"]) is dict
    assert isinstance(back["array"], np.ndarray) and back["array"].dtype == np.int16
    assert np.array_equal(back["array"], obj["array"])
    assert type(back["np_scalar"]) is np.float32 and back["np_scalar"] == 0.5
    assert math.isnan(back["nan"]) and back["strings"].tolist() == ["ab", "c"]
    assert round_trip(7, tmp_path) == 7 and round_trip([], tmp_path) == []


def test_written_at_exactly_the_path_and_readable_without_pickle(tmp_path):
    path = tmp_path / "weights.pt"  # not .npz: np.savez alone would write weights.pt.npz
    tg.save({"w": tg.ones(2, 3)}, str(path))
    assert path.exists() and not (tmp_path / "weights.pt.npz").exists()
    with np.load(path, allow_pickle=False) as archive:
        assert "__tapegrad__" in archive.files
        assert archive["__tapegrad__"].dtype.kind == "U"
        assert [archive[k].shape for k in archive.files if k != "__tapegrad__"] == [(2, 3)]
    buffer = io.BytesIO()
    tg.save([tg.tensor([1.0, 2.0])], buffer)
    buffer.seek(0)
    assert tg.load(buffer)[0].tolist() == [1.0, 2.0]


def test_shared_tensors_parameters_and_requires_grad(tmp_path):
    w = tg.tensor([1.0, 2.0], requires_grad=True)
    p = nn.Parameter(tg.ones(2))
    frozen = nn.Parameter(tg.ones(1), requires_grad=False)
    back = round_trip({"a": w, "b": w, "p": p, "frozen": frozen, "plain": tg.ones(1)}, tmp_path)
    assert back["a"] is back["b"] and back["a"].requires_grad
    assert isinstance(back["p"], nn.Parameter) and back["p"].requires_grad
    assert isinstance(back["frozen"], nn.Parameter) and not back["frozen"].requires_grad
    assert not back["plain"].requires_grad and type(back["plain"]) is tg.Tensor


def test_unsupported_objects_are_clear_errors_and_write_nothing(tmp_path):
    path = tmp_path / "x.npz"
    opt = tg.optim.SGD(nn.Linear(2, 1).parameters(), lr=0.1)  # (whole modules: see
    # test_serialization_modules.py)
    with pytest.raises(TypeError, match=r"obj\['opt'\], a SGD \(save its state_dict\(\)\)"):
        tg.save({"opt": opt}, path)
    with pytest.raises(TypeError, match=r"obj\[1\], a frozenset; it stores Tensors, NumPy arr"):
        tg.save([1, frozenset({2})], path)
    with pytest.raises(TypeError, match="pickle"):
        tg.save(np.array([object()]), path)
    with pytest.raises(TypeError, match=r"key \(1, frozenset\(\{2\}\)\) \(tuple\)"):
        tg.save({(1, frozenset({2})): 3}, path)
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        tg.save(loop, path)
    assert not path.exists()


def test_loading_other_files_says_what_they_are(tmp_path):
    np.savez(tmp_path / "plain.npz", a=np.ones(2))
    with pytest.raises(ValueError, match="not a tg.save file"):
        tg.load(tmp_path / "plain.npz")
    np.save(tmp_path / "one.npy", np.ones(2))
    with pytest.raises(ValueError, match="single NumPy array"):
        tg.load(tmp_path / "one.npy")
    np.save(tmp_path / "pickled.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ValueError, match="not a file written by tg.save"):
        tg.load(tmp_path / "pickled.npy")
    (tmp_path / "text.txt").write_text("hello")
    with pytest.raises(ValueError, match="not a file written by tg.save"):
        tg.load(tmp_path / "text.txt")
    with pytest.raises(FileNotFoundError):
        tg.load(tmp_path / "missing.npz")


# ---- models, optimizers and schedules ----------------------------------------------------------
def mlp():
    return nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 2))


def test_model_optimizer_and_schedule_round_trip(tmp_path):
    tg.manual_seed(0)
    net = mlp()
    opt = tg.optim.Adam(net.parameters(), lr=0.1)
    sched = tg.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    x = tg.randn(4, 3)
    for _ in range(3):
        opt.zero_grad()
        net(x).square().sum().backward()
        opt.step()
        sched.step()
    checkpoint = {"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}
    back = round_trip(checkpoint, tmp_path)
    tg.manual_seed(1)
    twin = mlp()
    twin.load_state_dict(back["model"])
    np.testing.assert_array_equal(twin(x).numpy(), net(x).numpy())
    twin_opt = tg.optim.Adam(twin.parameters(), lr=0.1)
    twin_sched = tg.optim.lr_scheduler.StepLR(twin_opt, step_size=2, gamma=0.5)
    twin_opt.load_state_dict(back["opt"])
    twin_sched.load_state_dict(back["sched"])
    for model, o, s in ((net, opt, sched), (twin, twin_opt, twin_sched)):
        o.zero_grad()
        model(x).square().sum().backward()
        o.step()
        s.step()
    assert twin_sched.get_last_lr() == sched.get_last_lr() == [0.025]
    for a, b in zip(net.parameters(), twin.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_load_state_dict_takes_plain_arrays():
    net = nn.Linear(2, 1)
    w, b = np.array([[2.0, -1.0]]), np.array([0.5])  # float64 arrays into float32 parameters
    net.load_state_dict({"weight": w, "bias": b})
    assert net.weight.dtype == np.float32
    assert net(tg.tensor([[3.0, 4.0]])).item() == pytest.approx(2 * 3 - 4 + 0.5)
    w[0, 0] = 100.0  # the parameters hold copies
    assert net.weight.numpy()[0, 0] == 2.0


@pytest.mark.parametrize("build", ["linear", "sequential"])
def test_pytorch_state_dicts_move_both_ways(build):
    torch = pytest.importorskip("torch", reason="moving weights to and from PyTorch needs it")
    torch.manual_seed(0)
    if build == "linear":
        theirs, ours = torch.nn.Linear(4, 3), nn.Linear(4, 3)
    else:
        layers = (torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.Linear(6, 3))
        theirs, ours = torch.nn.Sequential(*layers), mlp_4_6_3()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)

    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours(tg.tensor(x)).numpy(), expected, rtol=1e-6, atol=1e-6)

    tg.manual_seed(5)
    fresh = nn.Linear(4, 3) if build == "linear" else mlp_4_6_3()
    theirs.load_state_dict({k: torch.from_numpy(v.numpy()) for k, v in fresh.state_dict().items()})
    with torch.no_grad():
        got = theirs(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, fresh(tg.tensor(x)).numpy(), rtol=1e-6, atol=1e-6)


def mlp_4_6_3():
    return nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 3))
