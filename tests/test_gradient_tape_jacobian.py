"""GradientTape.jacobian (TensorFlow's: shape target.shape + source.shape, shaped like `sources`)
and GradientTape.stop_recording (nothing recorded inside), checked against closed forms.
"""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg


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
