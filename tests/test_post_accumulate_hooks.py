"""register_post_accumulate_grad_hook: called with the leaf after its .grad is updated, as
PyTorch's (an optimizer step inside backward), and refused where PyTorch refuses it."""

import numpy as np
import pytest

import tapegrad as tg


def test_the_hook_sees_the_accumulated_grad_after_each_backward():
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append((t, t.grad.tolist())))
    (x * 3).sum().backward()
    (x * 2).sum().backward()
    assert [(t is x, g) for t, g in seen] == [(True, [3.0, 3.0]), (True, [5.0, 5.0])]
    handle.remove()
    (x * 2).sum().backward()
    assert len(seen) == 2


def test_not_called_by_autograd_grad_which_accumulates_nothing():
    x = tg.tensor([1.0], requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(calls.append)
    tg.autograd.grad((x * 2).sum(), x)
    assert calls == [] and x.grad is None


def test_runs_after_the_gradient_hooks_and_on_the_recorded_path_too():
    a = tg.tensor([1.0], requires_grad=True)
    log = []
    a.register_post_accumulate_grad_hook(lambda t: log.append(("post", t.grad.item())))
    a.register_hook(lambda g: log.append(("pre", g.item())))
    (a * 3).sum().backward()
    (a * a).sum().backward(create_graph=True)
    assert log == [("pre", 3.0), ("post", 3.0), ("pre", 2.0), ("post", 5.0)]


def test_an_sgd_step_in_the_hook_matches_torch():
    torch = pytest.importorskip("torch")
    w0 = np.array([0.5, -1.0, 2.0])

    def step(p):
        with torch.no_grad() if isinstance(p, torch.Tensor) else tg.no_grad():
            p -= 0.1 * p.grad
        p.grad = None

    results = []
    for lib in (tg, torch):
        w = lib.tensor(w0, requires_grad=True)
        w.register_post_accumulate_grad_hook(step)
        for _ in range(3):
            ((w * w).sum() + w.sum()).backward()
        results.append(w.detach().numpy().copy())
    np.testing.assert_allclose(results[0], results[1])


def test_refusals_as_torch():
    with pytest.raises(RuntimeError, match="non-leaf"):
        (tg.ones(1, requires_grad=True) * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="does not require grad"):
        tg.ones(1).register_post_accumulate_grad_hook(print)
    x = tg.ones(1, requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: 5)
    with pytest.raises(TypeError, match="must return None"):
        x.sum().backward()
