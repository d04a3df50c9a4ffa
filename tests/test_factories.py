"""The factories' PyTorch surface: device=, layout=, pin_memory=, memory_format=, size=,
requires_grad= and name= on every factory; arange/linspace/full/empty and the *_like family with
PyTorch's dtype rules, compared with torch where it is installed."""

from __future__ import annotations

import typing

import numpy as np
import pytest

import tapegrad as tg

# every factory, called with its shape or bounds: name -> (call with keywords, the torch call)
FACTORIES = {
    "zeros": lambda **k: tg.zeros(2, 3, **k),
    "ones": lambda **k: tg.ones((2, 3), **k),
    "empty": lambda **k: tg.empty(2, 3, **k),
    "full": lambda **k: tg.full((2, 3), 1.5, **k),
    "eye": lambda **k: tg.eye(3, **k),
    "arange": lambda **k: tg.arange(0.0, 3.0, **k),
    "linspace": lambda **k: tg.linspace(0, 1, 5, **k),
    "tensor": lambda **k: tg.tensor([1.0, 2.0], **k),
    "zeros_like": lambda **k: tg.zeros_like(tg.ones(2), **k),
    "ones_like": lambda **k: tg.ones_like(tg.ones(2), **k),
    "empty_like": lambda **k: tg.empty_like(tg.ones(2), **k),
    "full_like": lambda **k: tg.full_like(tg.ones(2), 4.0, **k),
    "randn": lambda **k: tg.randn(2, 3, **k),
    "rand": lambda **k: tg.rand(2, 3, **k),
    "rand_like": lambda **k: tg.rand_like(tg.ones(2), **k),
    "randn_like": lambda **k: tg.randn_like(tg.ones(2), **k),
    "randint": lambda **k: tg.randint(0, 5, (3,), **k),
    "randint_like": lambda **k: tg.randint_like(tg.ones(2), 5, **k),
    "randperm": lambda **k: tg.randperm(4, **k),
    "normal": lambda **k: tg.normal(0.0, 1.0, (2,), **k),
}
FLOATING = [n for n in FACTORIES if not n.startswith(("randint", "randperm"))]


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_every_factory_takes_the_cpu_as_pytorch_spells_it(name):
    make = FACTORIES[name]
    for where in ("cpu", "cpu:0", tg.device("cpu"), tg.device("cpu", 0), tg.ones(1).device, None):
        assert isinstance(make(device=where), tg.Tensor)


@pytest.mark.parametrize("name", sorted(FACTORIES))
@pytest.mark.parametrize("where", ["cuda", "cuda:0", "mps", "meta", 0])
def test_every_factory_refuses_other_devices_clearly(name, where):
    with pytest.raises(RuntimeError, match="tapegrad computes on the CPU with NumPy"):
        FACTORIES[name](device=where)


@pytest.mark.parametrize("name", sorted(FLOATING))
def test_every_floating_factory_takes_requires_grad_and_a_name(name):
    t = FACTORIES[name](requires_grad=True, name="W1")
    assert t.requires_grad and t.is_leaf and t.name == "W1"
    (t * 2).sum().backward()
    assert t.grad.shape == t.shape


@pytest.mark.parametrize("name", ["randint", "randint_like", "randperm"])
def test_integer_factories_take_a_name_and_refuse_grad_on_ints(name):
    assert FACTORIES[name](name="idx").name == "idx"
    with pytest.raises(TypeError):  # (an integer tensor cannot require grad)
        FACTORIES[name](requires_grad=True, dtype=tg.int64)
    t = FACTORIES[name](dtype=tg.float32, requires_grad=True)  # as PyTorch: a float dtype can
    assert t.requires_grad and t.dtype == np.float32


def test_teaching_spelling_from_api_md():
    w1 = tg.randn(3, 5, requires_grad=True, name="W1")
    assert w1.shape == (3, 5) and w1.requires_grad and w1.name == "W1"


def test_layout_pin_memory_and_memory_format():
    assert tg.zeros(2, layout=tg.strided).shape == (2,)
    assert tg.empty(2, 3, 4, 5, memory_format=tg.channels_last).shape == (2, 3, 4, 5)
    assert tg.zeros_like(tg.ones(2), memory_format=tg.preserve_format).shape == (2,)
    assert tg.empty(2, memory_format=tg.contiguous_format, pin_memory=False).shape == (2,)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        tg.empty(2, 3, memory_format=tg.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5"):
        tg.ones_like(tg.ones(2, 3, 4, 5), memory_format=tg.channels_last_3d)
    with pytest.raises(RuntimeError, match="pin_memory=True requires a CUDA"):
        tg.empty(2, pin_memory=True)
    with pytest.raises(RuntimeError, match="layout=.*not supported"):
        tg.zeros(2, layout=tg.layout("sparse_coo"))
    with pytest.raises(TypeError, match="memory_format must be"):
        tg.empty(2, memory_format="channels_last")
    with pytest.raises(TypeError):  # (as PyTorch: zeros takes no memory_format)
        tg.zeros(2, memory_format=tg.contiguous_format)


def test_size_keyword_and_shapes():
    assert tg.zeros(size=(2, 3)).shape == (2, 3)
    assert tg.randn(size=[4]).shape == (4,)
    assert tg.ones(()).shape == () and tg.zeros([]).shape == ()
    with pytest.raises(TypeError, match="given twice"):
        tg.randn(2, 3, size=(2, 3))
    with pytest.raises(TypeError, match="a shape is made of ints"):
        tg.zeros(2.0)


def test_full_and_empty_dtypes_as_pytorch():
    assert tg.full((2,), 3).dtype == np.int64
    assert tg.full((2,), 3.0).dtype == np.float32
    assert tg.full((2,), True).dtype == np.bool_
    assert tg.full((2,), 3, dtype=tg.float64).dtype == np.float64
    assert tg.full((1,), tg.tensor(2.5)).tolist() == [2.5]
    assert tg.empty(2, 3).dtype == np.float32 and tg.empty(2, dtype=tg.int32).dtype == np.int32
    x = tg.ones(2, dtype=tg.int32)
    assert tg.empty_like(x).dtype == np.int32 and tg.full_like(x, 7).tolist() == [7, 7]
    assert tg.full_like(tg.ones(2), 7, dtype=tg.int64).dtype == np.int64
    assert tg.zeros_like(x, dtype=tg.float64).dtype == np.float64


def test_arange_bounds_and_integer_dtypes():
    assert tg.arange(end=5).tolist() == [0, 1, 2, 3, 4]
    assert tg.arange(1, end=5).tolist() == [1, 2, 3, 4]
    assert tg.arange(start=1, end=5, step=2).tolist() == [1, 3]
    assert tg.arange(5).dtype == np.int64 and tg.arange(5.0).dtype == np.float32
    assert tg.arange(tg.tensor(3)).tolist() == [0, 1, 2]
    assert tg.arange(False, True).tolist() == [0] and tg.arange(True).dtype == np.int64
    assert tg.arange(0, True, 0.5).tolist() == [0.0, 0.5]  # (bools are the integers 0 and 1)
    # an integer dtype cuts the bounds first (toward zero): 2, -2, -1 -> 4 values
    assert tg.arange(2.1, -2.9, -1.0, dtype=tg.int64).tolist() == [2, 1, 0, -1]
    assert tg.arange(-0.5, 3, dtype=tg.int64).tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="step must be nonzero"):
        tg.arange(0, 3, 0.5, dtype=tg.int64)  # (the step is cut to 0)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tg.arange(0, 3, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        tg.arange(0, 10, -1)
    with pytest.raises(RuntimeError, match="unsupported range"):
        tg.arange(0, float("inf"))


def test_linspace_integer_dtype_converts_first():
    assert tg.linspace(4.3, 0, 5, dtype=tg.int64).tolist() == [4, 3, 2, 1, 0]
    assert tg.linspace(-1.7, 9.9, 7, dtype=tg.int64).tolist() == [-1, 0, 2, 4, 5, 7, 9]
    assert tg.linspace(0, 10, 5, dtype=tg.int64).tolist() == [0, 2, 5, 7, 10]
    assert tg.linspace(3.0, 9.0, 1).tolist() == [3.0] and tg.linspace(0, 1, 0).shape == (0,)
    assert tg.linspace(0, 1, steps=3).dtype == np.float32
    with pytest.raises(TypeError):  # (PyTorch: steps has no default)
        tg.linspace(0, 1)


def test_factories_are_typed_as_returning_tensors():
    """mypy sees each factory's result as a Tensor (never Any)."""
    import tapegrad.creation as creation
    import tapegrad.sampling as sampling

    for module in (creation, sampling):
        for name in module.__all__:
            hints = typing.get_type_hints(getattr(module, name))
            assert hints["return"] is tg.Tensor, name


# ---- against PyTorch ---------------------------------------------------------------------------
def test_arange_and_linspace_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    rng = np.random.default_rng(0)
    kinds = [(tg.float32, torch.float32), (tg.float64, torch.float64), (tg.int64, torch.int64)]
    kinds += [(tg.int32, torch.int32), (None, None)]
    for _ in range(400):
        a, b = rng.uniform(-50, 50, 2).round(int(rng.integers(0, 4)))
        n = int(rng.integers(0, 30))
        step = round(float(rng.choice([-1, 1]) * rng.uniform(0.1, 7)), int(rng.integers(0, 3)))
        start, end = (min(a, b), max(a, b)) if step > 0 else (max(a, b), min(a, b))
        for ours, theirs in kinds:
            got = tg.linspace(float(a), float(b), n, dtype=ours).numpy()
            want = torch.linspace(float(a), float(b), n, dtype=theirs).numpy()
            assert got.dtype == want.dtype and got.shape == want.shape, (a, b, n, ours)
            # (PyTorch counts up from start for the first half, down from end for the second,
            # as tapegrad; but it adds the step in SIMD lanes whose width, and whether it fuses
            # the multiply-add, depend on the CPU: the last bit of a value may differ, and so may
            # an integer cut from a value within a rounding error of an integer)
            tolerance = {np.dtype(np.float32): 1e-6, np.dtype(np.float64): 1e-14}
            rtol = tolerance.get(got.dtype, 0)
            atol = 1 if got.dtype.kind == "i" else rtol * 50  # (the bounds' magnitude)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
            if ours == tg.int32 and int(step) == 0 != step:  # (PyTorch fills zeros: refused)
                with pytest.raises(ValueError, match="step must be nonzero"):
                    tg.arange(start, end, step, dtype=ours)
                continue
            try:
                want = torch.arange(start, end, step, dtype=theirs).numpy()
            except (RuntimeError, ValueError) as error:
                with pytest.raises(type(error)):
                    tg.arange(start, end, step, dtype=ours)
                continue
            got = tg.arange(start, end, step, dtype=ours).numpy()
            assert got.dtype == want.dtype and got.shape == want.shape, (start, end, step, ours)
            rtol = tolerance.get(got.dtype, 0)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 50)


def test_factory_dtypes_match_torch():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    pairs = [
        (tg.full((2,), 3), torch.full((2,), 3)),
        (tg.full((2,), 3.0), torch.full((2,), 3.0)),
        (tg.full((2,), True), torch.full((2,), True)),
        (tg.arange(5), torch.arange(5)),
        (tg.arange(0, 1, 0.5), torch.arange(0, 1, 0.5)),
        (tg.linspace(0, 10, 5), torch.linspace(0, 10, 5)),
        (tg.eye(2, 3), torch.eye(2, 3)),
        (tg.empty(2), torch.empty(2)),
        (tg.randint(10, (3,)), torch.randint(10, (3,))),
        (tg.randint_like(tg.ones(3), 10), torch.randint_like(torch.ones(3), 10)),
        (tg.randperm(3), torch.randperm(3)),
        (tg.randn_like(tg.ones(2, dtype=tg.float64)), torch.randn_like(torch.ones(2).double())),
        (tg.normal(0, 1, (2,)), torch.normal(0, 1, (2,))),
        (tg.scalar_tensor(3), torch.scalar_tensor(3)),
        (tg.scalar_tensor(True), torch.scalar_tensor(True)),
        (tg.scalar_tensor(3, dtype=tg.int64), torch.scalar_tensor(3, dtype=torch.int64)),
        (tg.empty_strided((2, 3), (1, 2)), torch.empty_strided((2, 3), (1, 2))),
    ]
    for ours, theirs in pairs:
        assert str(ours.dtype) == str(theirs.dtype).replace("torch.", ""), (ours, theirs)
        assert ours.shape == tuple(theirs.shape)


def test_scalar_tensor_holds_the_number():
    assert tg.scalar_tensor(2.5).shape == () and tg.scalar_tensor(2.5).item() == 2.5
    assert tg.scalar_tensor(tg.tensor(4.0), dtype=tg.float64).dtype == np.float64
    assert tg.scalar_tensor(1.0, requires_grad=True).requires_grad


def test_empty_strided_lays_out_as_asked():
    torch = pytest.importorskip("torch", reason="the comparison with torch needs it")
    for size, stride in [
        ((2, 3), (3, 1)),
        ((2, 3), (1, 2)),
        ((4,), (2,)),
        ((2, 0, 3), (0, 3, 1)),
        ((), ()),
    ]:
        ours, theirs = tg.empty_strided(size, stride), torch.empty_strided(size, stride)
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        assert ours.is_contiguous() == theirs.is_contiguous()
    with pytest.raises(RuntimeError, match="dimensionality of sizes"):
        tg.empty_strided((2, 3), (1,))
    with pytest.raises(RuntimeError, match="device"):
        tg.empty_strided((2,), (1,), device="cuda")
