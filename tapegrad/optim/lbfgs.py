"""L-BFGS, PyTorch's algorithm step for step: the two-loop recursion over the last
`history_size` curvature pairs, a fixed step (lr) or a strong-Wolfe line search (cubic
interpolation, bracketing then zoom), and PyTorch's stopping tests in PyTorch's order.

Layer L5: imports optim/optimizer.py and tensor. All parameters are seen as one flat vector
(concatenated in order); the state lives under the first parameter with PyTorch's keys
(`func_evals`, `n_iter`, `d`, `t`, `old_dirs`, `old_stps`, `ro`, `H_diag`, `prev_flat_grad`,
`prev_loss`, `al`). Scalars stay NumPy scalars of the parameters' dtype, as PyTorch's 0-d tensors.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .._state import enable_grad, no_grad
from ..tensor import Tensor
from .optimizer import Loss, Optimizer, hyperparameter

# a trial step length along d -> (the loss there, its flat gradient)
Evaluate = Callable[[Any], tuple[float, np.ndarray]]


def _cubic_minimum(
    x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: tuple | None = None
) -> Any:
    """The minimiser of the cubic through (x1, f1, slope g1) and (x2, f2, slope g2), clipped to
    `bounds` (default: between x1 and x2); the bounds' midpoint when the cubic has no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    square = d1**2 - g1 * g2
    if square < 0:
        return (low + high) / 2.0
    d2 = np.sqrt(square)
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, low), high)


def _strong_wolfe(
    evaluate: Evaluate,
    t: Any,
    d: np.ndarray,
    f: float,
    g: np.ndarray,
    gtd: Any,
    tolerance_change: float,
    max_ls: int,
    c1: float = 1e-4,
    c2: float = 0.9,
) -> tuple[float, np.ndarray, Any, int]:
    """A step length along d meeting the strong Wolfe conditions (sufficient decrease c1, slope
    c2), as PyTorch searches for it: grow t by cubic extrapolation until a bracket is found, then
    shrink the bracket by cubic interpolation. Returns (loss, flat gradient, t, evaluations)."""
    d_norm = np.abs(d).max()
    f_new, g_new = evaluate(t)
    evals, gtd_new = 1, g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done, ls_iter = False, 0
    bracket: list = []  # ends as [t, loss, flat gradient, slope along d]
    while ls_iter < max_ls:  # phase 1: find an interval holding an acceptable step
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, done = [[t, f_new, g_new, gtd_new]], True
            break
        if gtd_new >= 0:
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        bounds = (t + 0.01 * (t - t_prev), t * 10)
        t, t_prev = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds), t
        f_prev, g_prev, gtd_prev = f_new, g_new, gtd_new
        f_new, g_new = evaluate(t)
        evals, gtd_new, ls_iter = evals + 1, g_new.dot(d), ls_iter + 1
    if ls_iter == max_ls:  # (no bracket within the budget: the zoom below does not run)
        bracket = [[0, f, g, None], [t, f_new, g_new, None]]
    stuck = False  # "insufficient progress": the last trial sat near an end of the bracket
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    while not done and ls_iter < max_ls:  # phase 2: zoom
        ends = (bracket[0][0], bracket[1][0])
        if abs(ends[1] - ends[0]) * d_norm < tolerance_change:
            break
        (t0, f0, _, gtd0), (t1, f1, _, gtd1) = bracket
        t = _cubic_minimum(t0, f0, gtd0, t1, f1, gtd1)
        # keep the trial away from the ends: at least 10% of the bracket inside
        margin = 0.1 * (max(ends) - min(ends))
        if min(max(ends) - t, t - min(ends)) < margin:
            if stuck or t >= max(ends) or t <= min(ends):
                if abs(t - max(ends)) < abs(t - min(ends)):
                    t = max(ends) - margin
                else:
                    t = min(ends) + margin
                stuck = False
            else:
                stuck = True
        else:
            stuck = False
        f_new, g_new = evaluate(t)
        evals, gtd_new, ls_iter = evals + 1, g_new.dot(d), ls_iter + 1
        if f_new > f + c1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new, gtd_new]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = [t, f_new, g_new, gtd_new]
    t, f_new, g_new, _ = bracket[low]
    return f_new, g_new, t, evals


class LBFGS(Optimizer):
    """L-BFGS, PyTorch's algorithm: up to max_iter quasi-Newton iterations per step(closure),
    each along the direction from the two-loop recursion over the last history_size pairs, with
    step lr (the first iteration ever: min(1, 1/|g|_1) * lr) or a strong-Wolfe line search
    (line_search_fn="strong_wolfe"). One parameter group only; the closure is required.

    >>> opt = tg.optim.LBFGS([w], lr=1, line_search_fn="strong_wolfe"); opt.step(closure)
    """

    _state_like_params = False  # (the state holds flat vectors, under the first parameter)

    def __init__(
        self,
        params: Any,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(
            lr=lr,
            max_iter=max_iter,
            max_eval=max_eval,
            tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change,
            history_size=history_size,
            line_search_fn=line_search_fn,
        )
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError(
                "LBFGS doesn't support per-parameter options (parameter groups): pass one "
                "list of parameters"
            )

    def _validate(self, group: dict) -> None:
        super()._validate(group)
        for name in ("max_iter", "max_eval", "history_size"):
            if not isinstance(group[name], (int, np.integer)) or isinstance(group[name], bool):
                raise TypeError(f"{name} must be an int, got {group[name]!r}")
        for name in ("tolerance_grad", "tolerance_change"):
            group[name] = hyperparameter(name, group[name], -np.inf)
        if group["line_search_fn"] not in (None, "strong_wolfe"):
            raise RuntimeError(
                f"line_search_fn={group['line_search_fn']!r}: only 'strong_wolfe' is supported "
                f"(or None for a fixed step of lr)"
            )

    def add_param_group(self, group: dict) -> None:
        """Refused after construction: LBFGS has exactly one parameter group (as PyTorch)."""
        if self.param_groups:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().add_param_group(group)

    def _flat_grad(self) -> np.ndarray:
        """All gradients as one new vector (zeros for a parameter without one)."""
        parts = []
        for p in self.param_groups[0]["params"]:
            grad = getattr(p, "_grad", None)
            parts.append(np.zeros(p.numel(), p.dtype) if grad is None else grad._data.ravel())
        return np.concatenate(parts)

    def _move(self, t: Any, d: np.ndarray) -> None:
        """p += t * d, each parameter from its slice of the flat vector d."""
        offset = 0
        for p in self.param_groups[0]["params"]:
            n = p.numel()
            self._descend_by(p, d[offset : offset + n].reshape(p.shape), -t)
            offset += n

    def _restore(self, saved: list[np.ndarray]) -> None:
        for p, value in zip(self.param_groups[0]["params"], saved):
            np.copyto(p._data, value)
            Optimizer._changed(p)

    def step(self, closure: Callable[[], Loss]) -> Loss:  # type: ignore[override]
        """Up to max_iter L-BFGS iterations; `closure` clears the gradients, computes the loss,
        calls backward and returns the loss. Returns the closure's first loss.

        >>> def closure(): opt.zero_grad(); loss = f(w); loss.backward(); return loss
        >>> opt.step(closure)
        """
        if not callable(closure) or isinstance(closure, Tensor):
            raise TypeError(
                "LBFGS.step needs a closure that re-evaluates the loss (zero_grad, forward, "
                "backward, return the loss): it evaluates the loss several times per step"
            )
        group = self.param_groups[0]
        lr, history_size = group["lr"], group["history_size"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        params = group["params"]
        state = self.state.setdefault(params[0], {})
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        def evaluate() -> float:
            with enable_grad():
                return float(closure())  # type: ignore[arg-type]

        with enable_grad():
            first_loss = closure()
        loss = float(first_loss)  # type: ignore[arg-type]
        evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:  # already optimal
            return first_loss
        # (lists are copied: a saved or loaded state_dict shares them with this optimizer)
        d, t, h_diag = state.get("d"), state.get("t"), state.get("H_diag")
        old_dirs, old_stps = list(state.get("old_dirs", [])), list(state.get("old_stps", []))
        ro, al = list(state.get("ro", [])), list(state.get("al", [None] * history_size))
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        with no_grad():
            while n_iter < max_iter:
                n_iter += 1
                state["n_iter"] += 1
                if state["n_iter"] == 1:  # steepest descent, no curvature known yet
                    d = np.negative(flat_grad)
                    old_dirs, old_stps, ro, h_diag = [], [], [], 1
                else:
                    y = flat_grad - prev_flat_grad
                    s = d * t
                    ys = y.dot(s)
                    if ys > 1e-10:  # keep only pairs of positive curvature
                        if len(old_dirs) == history_size:
                            old_dirs.pop(0)
                            old_stps.pop(0)
                            ro.pop(0)
                        old_dirs.append(y)
                        old_stps.append(s)
                        ro.append(1.0 / ys)
                        h_diag = ys / y.dot(y)
                    d = self._two_loop(flat_grad, old_dirs, old_stps, ro, al, h_diag)
                prev_flat_grad = flat_grad.copy()
                prev_loss = loss
                if state["n_iter"] == 1:
                    with np.errstate(divide="ignore"):
                        t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
                else:
                    t = lr
                gtd = flat_grad.dot(d)
                if gtd > -tolerance_change:  # not a descent direction any more
                    break
                step_evals = 0
                if group["line_search_fn"] is not None:
                    start = [p._data.copy() for p in params]

                    def along(step: Any, start: list = start) -> tuple[float, np.ndarray]:
                        self._move(step, d)
                        value = evaluate()
                        grad = self._flat_grad()
                        self._restore(start)
                        return value, grad

                    loss, flat_grad, t, step_evals = _strong_wolfe(
                        along, t, d, loss, flat_grad, gtd, tolerance_change, max_eval - evals
                    )
                    self._move(t, d)
                    optimal = np.abs(flat_grad).max() <= tolerance_grad
                else:
                    self._move(t, d)
                    optimal = False
                    if n_iter != max_iter:  # (the last iteration's loss is never needed)
                        loss = evaluate()
                        flat_grad = self._flat_grad()
                        optimal = np.abs(flat_grad).max() <= tolerance_grad
                        step_evals = 1
                evals += step_evals
                state["func_evals"] += step_evals
                if (
                    n_iter == max_iter
                    or evals >= max_eval
                    or optimal
                    or np.abs(d * t).max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change
                ):
                    break
        state.update(
            d=d,
            t=t,
            old_dirs=old_dirs,
            old_stps=old_stps,
            ro=ro,
            H_diag=h_diag,
            prev_flat_grad=prev_flat_grad,
            prev_loss=prev_loss,
        )
        if state["n_iter"] > 1:  # (PyTorch makes "al" in the first iteration that uses it)
            state["al"] = al
        return first_loss

    @staticmethod
    def _two_loop(
        g: np.ndarray, dirs: list, stps: list, ro: list, al: list, h_diag: Any
    ) -> np.ndarray:
        """The L-BFGS direction -H g: the inverse-Hessian estimate from the stored pairs (y in
        dirs, s in stps, ro = 1/y.s) applied to -g by the two-loop recursion; al is reused."""
        q = np.negative(g)
        for i in range(len(dirs) - 1, -1, -1):
            al[i] = stps[i].dot(q) * ro[i]
            q -= al[i] * dirs[i]
        r = q * h_diag
        for i in range(len(dirs)):
            be_i = dirs[i].dot(r) * ro[i]
            r += (al[i] - be_i) * stps[i]
        return r


__all__ = ["LBFGS"]
