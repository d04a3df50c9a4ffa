"""Tests of tg.GradientTape, TensorFlow style (seed 003): watch, gradient structure, one use unless
persistent, unconnected sources, nesting for higher order, and the .numpy() pitfall of seed 003;
GradientTape.jacobian (TensorFlow's: shape target.shape + source.shape, shaped like `sources`) and
GradientTape.stop_recording (nothing recorded inside), checked against closed forms.
"""

import numpy as np
import pytest

import tapegrad as tg
from tapegrad._state import state


def test_watch_a_constant():
    x = tg.tensor(3.0)
    with tg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).item() == 6.0
    assert tape.watched_variables() == (x,)


def test_variables_are_watched_automatically_and_structure_follows_sources():
    w = tg.nn.Parameter(tg.tensor([1.0, 2.0]))
    b = tg.nn.Parameter(tg.tensor(0.5))
    with tg.GradientTape(persistent=True) as tape:
        loss = ((w * 3.0).sum() + b) ** 2  # (9 + 0.5)^2
    gw, gb = tape.gradient(loss, [w, b])
    assert gw.tolist() == [57.0, 57.0] and gb.item() == 19.0
    assert isinstance(tape.gradient(loss, [w, b]), list)
    assert isinstance(tape.gradient(loss, (w, b)), tuple)
    grads = tape.gradient(loss, {"w": w, "b": b})
    assert grads["b"].item() == 19.0


def test_non_persistent_tape_is_one_use():
    x = tg.tensor(2.0)
    with tg.GradientTape() as tape:
        tape.watch(x)
        y = x**3
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="non-persistent GradientTape.*persistent=True"):
        tape.gradient(y, x)


def test_persistent_tape_gives_several_gradients():
    x = tg.tensor(3.0)
    with tg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).item() == 108.0  # 4x^3
    assert tape.gradient(y, x).item() == 6.0


def test_unconnected_sources_give_none_or_zeros():
    x, c = tg.tensor(2.0), tg.tensor([1.0, 1.0])
    unwatched = tg.tensor(5.0)
    with tg.GradientTape(persistent=True) as tape:
        tape.watch([x, c])
        y = x * 2
    gx, gc_, gu = tape.gradient(y, [x, c, unwatched])
    assert gx.item() == 2.0 and gc_ is None and gu is None
    gc_ = tape.gradient(y, c, unconnected_gradients="zero")
    assert gc_.shape == (2,) and not gc_.numpy().any()


def test_output_gradients_and_several_targets():
    x = tg.tensor([1.0, 2.0])
    with tg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x, output_gradients=tg.tensor([0.5, 0.1])).tolist() == pytest.approx(
        [1.0, 0.4]
    )
    assert tape.gradient([y, x.sum()], x).tolist() == [3.0, 5.0]  # summed over targets


def test_nested_tapes_give_second_derivatives():
    x = tg.tensor(2.0)
    with tg.GradientTape() as outer:
        outer.watch(x)
        with tg.GradientTape() as inner:
            inner.watch(x)
            y = x**3
        dy = inner.gradient(y, x)  # recorded by the outer tape
    assert dy.item() == 12.0
    assert outer.gradient(dy, x).item() == 12.0  # 6x
    assert state.diff_depth == 0


def test_tape_records_inside_no_grad_and_mixes_with_tg_grad():
    x = tg.tensor(2.0)
    with tg.no_grad():
        with tg.GradientTape() as tape:
            tape.watch(x)
            y = tg.sin(x)
        assert not tg.is_grad_enabled()
    np.testing.assert_allclose(tape.gradient(y, x).item(), np.cos(2.0), rtol=1e-6)

    def f(x):  # tg.grad of a function that uses a tape inside: the second derivative
        with tg.GradientTape() as t:
            t.watch(x)
            y = x**3
        return t.gradient(y, x)

    assert tg.grad(f)(tg.tensor(2.0)).item() == 12.0


def test_seed003_numpy_target_is_a_clear_error():
    x = tg.tensor(3.0)
    with tg.GradientTape() as tape:
        tape.watch(x)
        y = x.numpy() ** 2  # left the tape, as in the seed's question
    with pytest.raises(TypeError, match="not a tapegrad Tensor: its value left the tape"):
        tape.gradient(y, x)


def test_bad_arguments():
    with pytest.raises(TypeError, match="watch.. takes tapegrad Tensors"):
        tg.GradientTape().watch(3.0)
    x = tg.tensor(1.0, requires_grad=True)
    with tg.GradientTape() as tape:
        y = x * 2
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="zeros!")


# ---- jacobian, stop_recording --------------------------------------------------------------------
def test_jacobian_of_an_elementwise_function():
    x = tg.tensor([1.0, 2.0])
    with tg.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), [[2.0, 0.0], [0.0, 4.0]])  # TF's doc


def test_jacobian_shapes_and_structure():
    a = np.arange(6.0).reshape(2, 3) / 5
    w = tg.tensor(a, requires_grad=True)
    b = tg.tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    unused = tg.tensor(3.0, requires_grad=True)
    with tg.GradientTape(persistent=True) as tape:
        y = tg.tanh(w * b)  # (2, 3)
    jw, (jb, ju) = tape.jacobian(y, [w, (b, unused)])
    assert jw.shape == (2, 3, 2, 3) and jb.shape == (2, 3, 3) and ju is None
    d = 1 - np.tanh(a * b.numpy()) ** 2
    want_w = np.zeros((2, 3, 2, 3))
    want_b = np.zeros((2, 3, 3))
    for i in range(2):
        for j in range(3):
            want_w[i, j, i, j] = d[i, j] * b.numpy()[j]
            want_b[i, j, j] = d[i, j] * a[i, j]
    np.testing.assert_allclose(jw.numpy(), want_w, rtol=1e-12)
    np.testing.assert_allclose(jb.numpy(), want_b, rtol=1e-12)
    jz = tape.jacobian(y, unused, unconnected_gradients="zero")
    assert jz.shape == (2, 3) and not jz.numpy().any()
    js = tape.jacobian(y.sum(), w)  # a scalar target: the gradient's shape
    np.testing.assert_allclose(js.numpy(), d * b.numpy(), rtol=1e-12)


def test_jacobian_of_a_second_order_with_nested_tapes():
    x = tg.tensor([0.5, 1.5])
    with tg.GradientTape() as outer:
        outer.watch(x)
        with tg.GradientTape() as inner:
            inner.watch(x)
            y = (x**3).sum()
        g = inner.gradient(y, x)  # 3 x^2, kept on the outer tape
    np.testing.assert_allclose(outer.jacobian(g, x).numpy(), np.diag(6 * x.numpy()), rtol=1e-6)


def test_jacobian_on_a_used_tape_and_bad_targets():
    x = tg.tensor([1.0, 2.0])
    with tg.GradientTape() as tape:
        tape.watch(x)
        y = x * 2
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.jacobian(y, x)
    with tg.GradientTape() as tape2:
        tape2.watch(x)
    with pytest.raises(TypeError, match="not a tapegrad Tensor"):
        tape2.jacobian(np.ones(2), x)
    with pytest.raises(ValueError, match="'none' or 'zero'"):
        tg.GradientTape().jacobian(y, x, unconnected_gradients="zeros")


def test_stop_recording():
    x = tg.tensor(4.0)
    with tg.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with tape.stop_recording():
            y = x**2
        z = x**3 + y
    assert tape.gradient(y, x) is None  # TF's documented example
    assert tape.gradient(z, x).item() == 48.0  # y is a constant to the tape
    assert tg.is_grad_enabled()


def test_stop_recording_outside_the_block_is_an_error():
    tape = tg.GradientTape()
    with pytest.raises(RuntimeError, match="inside the tape's"):
        with tape.stop_recording():
            pass
