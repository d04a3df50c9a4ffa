"""The instrument itself: translation, judging, and that a wrong op is caught (not passed)."""

from __future__ import annotations

import dataclasses
from collections import namedtuple

import numpy as np
import pytest

from .databases import torch_missing_reason

_missing = torch_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

import torch  # noqa: E402

import tapegrad as tg  # noqa: E402

from . import databases, mapping, run_ops  # noqa: E402
from .translate import MissingName, Translator  # noqa: E402
from .verdicts import classify, compare  # noqa: E402


def test_translation_keeps_values_dtypes_and_identity() -> None:
    a = torch.tensor([[1.5, -2.0]], dtype=torch.float64, requires_grad=True)
    translate = Translator()
    got = translate(
        (a, [a, torch.Size([2, 3])], {"dtype": torch.int64, "device": torch.device("cpu")})
    )
    x, (again, size), kwargs = got
    assert isinstance(x, tg.Tensor) and x.dtype == tg.float64 and x.requires_grad
    np.testing.assert_array_equal(x.numpy(), [[1.5, -2.0]])
    assert again is x and size == (2, 3) and type(size) is tuple
    assert kwargs == {"dtype": tg.int64, "device": "cpu"}
    assert translate.differentiable() == [(a, x)]


def test_a_name_tapegrad_lacks_is_a_refusal_not_dropped() -> None:
    with pytest.raises(MissingName, match="tg.quint8"):
        Translator()(torch.quint8)
    assert classify(MissingName("tg.quint8")).category == "missing name: tg.quint8"


def test_errors_are_sorted_by_kind() -> None:
    def keyword() -> None:
        tg.zeros(2, colour="red")  # type: ignore[call-overload]

    with pytest.raises(TypeError) as caught:
        keyword()
    assert classify(caught.value).category == "keyword refused: colour="
    with pytest.raises(Exception) as caught_clear:
        tg.tensor([1.0, 2.0]).reshape(5)
    assert classify(caught_clear.value).verdict == "refused"
    with pytest.raises(AttributeError) as caught_name:
        tg.Tensor.no_such_method  # noqa: B018
    assert classify(caught_name.value).category == "missing name: Tensor.no_such_method"


def test_results_are_compared_by_structure_dtype_and_nan() -> None:
    t = torch.tensor([1.0, float("nan")], dtype=torch.float64)
    same = tg.tensor([1.0, float("nan")], dtype=tg.float64)
    assert compare(t, same).verdict == "passed"
    assert compare(t, tg.tensor([1.0, 2.0], dtype=tg.float64)).category == "NaN"
    assert compare(t, tg.tensor([1.0, float("nan")], dtype=tg.float32)).category == "dtype"
    assert compare((t, t), [same, same]).category == "structure"
    assert compare(torch.max(torch.ones(2, 2), 1), (same, same)).category == "structure"
    pair = namedtuple("max", ["values", "indices"])
    values = torch.max(torch.ones(2, 2, dtype=torch.float64), 1)
    ours = pair(tg.ones(2, dtype=tg.float64), tg.zeros(2, dtype=tg.int64))
    assert compare(values, ours).verdict == "passed"
    assert compare(1.0, 1).category == "structure"


class _SinFlatSlope(tg.autograd.Function):
    """sin with a first derivative that is right and a second that is zero (cos of a constant)."""

    @staticmethod
    def forward(ctx, x):  # type: ignore[no-untyped-def]
        ctx.save_for_backward(x)
        return tg.sin(x)

    @staticmethod
    def backward(ctx, g):  # type: ignore[no-untyped-def]
        (x,) = ctx.saved_tensors
        return g * tg.cos(x.detach())


def _sin_entry() -> mapping.OpEntry:
    op_db, _, _ = databases.load()
    entry = mapping.op_entry(next(info for info in op_db if info.name == "sin"))
    assert entry is not None
    return entry


@pytest.mark.parametrize(
    "impostor, verdict",
    [
        (lambda x: tg.cos(x), "value"),  # wrong values
        (lambda x: tg.sin(x).detach(), "gradient"),  # right values, no gradient
        (lambda x: tg.sin(x.detach()) + 2 * (x - x.detach()), "gradient value"),  # wrong slope
        (lambda x: tg.sin(x).astype(tg.float32), "dtype"),
        (lambda x: _SinFlatSlope.apply(x), "second-order gradient value"),
    ],
)
def test_a_wrong_op_is_caught(impostor: object, verdict: str) -> None:
    entry = _sin_entry()
    function = dataclasses.replace(entry.variants[0], tapegrad_fn=impostor)
    tally = run_ops.run_op(dataclasses.replace(entry, variants=(function,)), cap=4)
    float_kinds = {o.category for _, o in tally.mismatches if "float64" in o.detail}
    assert verdict in float_kinds, float_kinds
    assert tally.passed < tally.samples


def test_the_real_op_passes() -> None:
    entry = _sin_entry()
    function = entry.variants[0]
    tally = run_ops.run_op(dataclasses.replace(entry, variants=(function,)), cap=4)
    float64 = [o for _, o in tally.mismatches if "float64" in o.detail]
    assert tally.samples > 0 and not float64


def _entry(name: str) -> mapping.OpEntry:
    op_db, _, _ = databases.load()
    entry = mapping.op_entry(next(info for info in op_db if info.name == name))
    assert entry is not None
    return entry


@pytest.mark.parametrize("name", ["uniform", "nn.functional.dropout", "bernoulli"])
def test_random_ops_are_seeded_alike_and_compared_by_value(name: str) -> None:
    entry = _entry(name)
    assert entry.values and entry.seeded
    tally = run_ops.run_op(entry, cap=4)
    assert tally.samples > 0 and tally.passed == tally.samples, tally.mismatches


def test_a_random_op_drawing_from_another_state_is_caught() -> None:
    entry = _entry("uniform")  # (Tensor.uniform_: called as it is, seeded by the harness)
    inplace = next(v for v in entry.variants if v.inplace)

    def drawn_elsewhere(x: tg.Tensor, *args: object, **kwargs: object) -> object:
        tg.manual_seed(7)  # (not the seed PyTorch's side was given)
        return x.uniform_(*args, **kwargs)  # type: ignore[arg-type]

    wrong = dataclasses.replace(inplace, tapegrad_fn=drawn_elsewhere)
    tally = run_ops.run_op(dataclasses.replace(entry, variants=(wrong,)), cap=4)
    assert tally.samples > 0 and "value" in {o.category for _, o in tally.mismatches}


def test_uninitialised_memory_is_compared_by_shape_only() -> None:
    entry = _entry("empty_like")
    assert not entry.values and not entry.seeded
