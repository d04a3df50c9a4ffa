"""What PyTorch programs ask about the machine before they train: tg.device, tg.cuda (no GPU),
tg.backends' flags as on a CPU-only PyTorch, and tg.inference_mode as context and decorator."""

from __future__ import annotations

import pickle
import threading

import pytest

import tapegrad as tg


def test_device_objects_as_pytorch():
    cpu = tg.device("cpu")
    assert cpu.type == "cpu" and cpu.index is None and str(cpu) == "cpu"
    assert repr(cpu) == "device(type='cpu')"
    assert repr(tg.device("cpu:0")) == "device(type='cpu', index=0)"
    assert tg.device("cpu", 0) == tg.device("cpu:0") != cpu
    assert cpu != "cpu" and hash(tg.device("cpu")) == hash(cpu)
    assert tg.device(cpu) == cpu and pickle.loads(pickle.dumps(cpu)) == cpu
    assert tg.device("cuda").type == "cuda"  # (made, as on a CPU-only PyTorch; not usable)
    with tg.device("cpu"):
        assert tg.zeros(1).shape == (1,)
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda.*device string: foo"):
        tg.device("foo")
    with pytest.raises(RuntimeError, match="Invalid device string"):
        tg.device("cpu:x")
    with pytest.raises(RuntimeError, match="must not include an index"):
        tg.device("cpu:0", 0)
    with pytest.raises(TypeError, match="device type string"):
        tg.device(3.5)
    with pytest.raises(RuntimeError, match="CPU"):
        with tg.device("cuda"):
            pass


def test_device_matches_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    for spec in (("cpu",), ("cpu:0",), ("cpu", 1), ("cuda",), ("cuda:1",), ("meta",)):
        ours, theirs = tg.device(*spec), torch.device(*spec)
        assert (repr(ours), str(ours), ours.type, ours.index) == (
            repr(theirs),
            str(theirs),
            theirs.type,
            theirs.index,
        )


def test_cuda_as_on_a_cpu_only_pytorch():
    assert tg.cuda.is_available() is False and tg.cuda.device_count() == 0
    assert tg.cuda.is_bf16_supported() is False
    assert tg.cuda.manual_seed(1) is None and tg.cuda.manual_seed_all(1) is None
    assert tg.cuda.empty_cache() is None
    tg.manual_seed(0)
    a = tg.rand(2).tolist()
    tg.manual_seed(0)
    tg.cuda.manual_seed_all(5)  # (seeds nothing: the CPU stream is untouched)
    assert tg.rand(2).tolist() == a
    for call in (tg.cuda.synchronize, tg.cuda.current_device, tg.cuda.get_device_name):
        with pytest.raises(RuntimeError, match="no CUDA device"):
            call()


def test_backends_flags_as_on_a_cpu_only_pytorch():
    flags = {
        "cuda.matmul.allow_tf32": False,
        "cuda.matmul.allow_fp16_reduced_precision_reduction": True,
        "cuda.matmul.allow_bf16_reduced_precision_reduction": True,
        "cudnn.enabled": True,
        "cudnn.benchmark": False,
        "cudnn.deterministic": False,
        "cudnn.allow_tf32": True,
    }
    for path, value in flags.items():
        owner, _, name = path.rpartition(".")
        assert getattr(eval(f"tg.backends.{owner}"), name) is value, path
    assert tg.backends.mps.is_available() is False and tg.backends.mps.is_built() is False
    assert tg.backends.cudnn.is_available() is False and tg.backends.cudnn.version() is None
    assert tg.backends.cuda.is_built() is False
    tg.backends.cuda.matmul.allow_tf32 = True  # minGPT and nanoGPT set these
    tg.backends.cudnn.allow_tf32 = True
    assert tg.backends.cuda.matmul.allow_tf32 is True
    tg.backends.cuda.matmul.allow_tf32 = False
    with pytest.raises(AttributeError):
        tg.backends.cuda.matmul.allow_tf23 = True  # (a misspelled flag is not silently kept)
    torch = pytest.importorskip("torch", reason="the comparison with torch's defaults needs it")
    assert torch.backends.mps.is_available() is tg.backends.mps.is_available()
    assert torch.cuda.is_available() is tg.cuda.is_available()
    assert torch.backends.cudnn.version() is tg.backends.cudnn.version()


# ---- inference_mode ----------------------------------------------------------------------------
def test_inference_mode_as_context_and_decorator():
    w = tg.ones(2, requires_grad=True)
    with tg.inference_mode():
        y = w * 2
        assert not y.requires_grad and y.grad_fn is None
        assert tg.is_inference_mode_enabled() and not tg.is_grad_enabled()
        with tg.enable_grad():  # as PyTorch: grad mode on, still nothing recorded
            assert tg.is_grad_enabled() and not (w * 2).requires_grad
        with tg.inference_mode(False):  # turned off inside: grad mode on, recording again
            assert tg.is_grad_enabled() and not tg.is_inference_mode_enabled()
            assert (w * 2).requires_grad
        assert not (w * 2).requires_grad
    assert not tg.is_inference_mode_enabled() and tg.is_grad_enabled() and (w * 2).requires_grad
    with tg.no_grad():
        with tg.inference_mode(False):
            assert tg.is_grad_enabled()  # (PyTorch: inference_mode(False) turns grad mode on)
        assert not tg.is_grad_enabled()

    @tg.inference_mode()
    def called(x):
        return x * 2

    @tg.inference_mode
    def bare(x):
        return x * 3

    assert not called(w).requires_grad and not bare(w).requires_grad and (w * 2).requires_grad


def test_inference_mode_lets_functional_transforms_differentiate():
    """As torch.func.grad inside torch.inference_mode."""
    with tg.inference_mode():
        g = tg.grad(lambda x: (x * x).sum())(tg.tensor([1.0, 2.0]))
    assert g.tolist() == [2.0, 4.0]


def test_inference_mode_is_thread_local():
    seen = []
    entered, leave = threading.Event(), threading.Event()

    def other():
        with tg.inference_mode():
            entered.set()
            leave.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    entered.wait(5)
    seen.append((tg.ones(1, requires_grad=True) * 2).requires_grad)
    leave.set()
    thread.join()
    assert seen == [True]


def test_inference_mode_matches_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")

    def observe(lib):
        w = lib.ones(2, requires_grad=True)
        out = []
        with lib.inference_mode():
            out.append(((w * 2).requires_grad, lib.is_grad_enabled()))
            with lib.enable_grad():
                out.append(((w * 2).requires_grad, lib.is_grad_enabled()))
            with lib.inference_mode(False):
                out.append(((w * 2).requires_grad, lib.is_grad_enabled()))
        with lib.no_grad(), lib.inference_mode(False):
            out.append(((w * 2).requires_grad, lib.is_grad_enabled()))
        return out

    assert observe(tg) == observe(torch)
