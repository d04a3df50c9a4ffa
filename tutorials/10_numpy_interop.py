# %% [markdown]
# # 10 · Differentiate NumPy code
#
# HIPS autograd showed that a function written with plain `np.` calls can be differentiated.
# tapegrad does the same without a wrapped NumPy: a Tensor answers NumPy's own protocols
# (`__array_ufunc__`, `__array_function__`), so `np.tanh(t)`, `np.dot(X, t)` or `np.sum(t)` run
# tapegrad's ops and are recorded. Then the gradients go to SciPy, and arrays move to and from
# other libraries without copies through DLPack.

# %%
import numpy as np

import tapegrad as tg

rng = np.random.default_rng(0)

# %% [markdown]
# ## A model written with NumPy only
#
# A 2-8-1 tanh network and the negative log-likelihood of a Bernoulli model, for points labelled by
# the sign of `x0 * x1`. Nothing below mentions tapegrad.

# %%
X = rng.standard_normal((64, 2))
y = (X[:, 0] * X[:, 1] > 0).astype(np.float64)


def predict(params, X):
    W1, b1, W2, b2 = params
    h = np.tanh(np.dot(X, W1) + b1)
    return 1.0 / (1.0 + np.exp(-(np.dot(h, W2) + b2)))


def neg_log_likelihood(params):
    p = predict(params, X)
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


params = (
    rng.standard_normal((2, 8)),
    np.zeros(8),
    rng.standard_normal(8),
    np.zeros(()),
)
print("loss at the start", round(float(neg_log_likelihood(params)), 4))

# %% [markdown]
# ## Its gradient, beside the HIPS autograd spelling
#
# With HIPS autograd the same function is differentiated by importing a wrapped NumPy:
#
# ```python
# import autograd.numpy as np
# from autograd import grad
#
# grads = grad(neg_log_likelihood)(params)
# ```
#
# With tapegrad NumPy stays NumPy; `tg.grad` hands the function Tensors (a tuple of arrays is a
# tuple of leaves) and returns one gradient per array:
#
# ```python
# import numpy as np
# import tapegrad as tg
#
# grads = tg.grad(neg_log_likelihood)(params)
# ```

# %%
grads = tg.grad(neg_log_likelihood)(params)
print("gradient shapes", [tuple(g.shape) for g in grads])

# a check by central differences on one weight
eps = 1e-6
bumped = [p.copy() for p in params]
bumped[0][1, 3] += eps
up = neg_log_likelihood(tuple(bumped))
bumped[0][1, 3] -= 2 * eps
down = neg_log_likelihood(tuple(bumped))
numeric = (up - down) / (2 * eps)
print("finite differences agree:", abs(numeric - grads[0].numpy()[1, 3]) < 1e-6)

# %% [markdown]
# ## Gradient descent on NumPy arrays

# %%
for step in range(301):
    loss, grads = tg.value_and_grad(neg_log_likelihood)(params)
    params = tuple(p - 1.0 * g.numpy() for p, g in zip(params, grads))
    if step % 100 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
accuracy = ((predict(params, X) > 0.5) == y).mean()
print(f"training accuracy {accuracy:.3f}")

# %% [markdown]
# ## What stays off the tape
#
# A NumPy function tapegrad has no rule for raises a `TypeError` naming it, rather than returning
# values whose gradient would be silently lost. Call `.numpy()` when an off-tape value is meant.
# `np.asarray(t)` (printing, plotting) always gives the values.

# %%
t = tg.tensor([[2.0, 0.0], [0.0, 3.0]], requires_grad=True)
try:
    np.linalg.svd(t)
except TypeError as e:
    print("TypeError:", str(e).split(",")[0])
print("singular values off the tape", np.linalg.svd(t.detach().numpy())[1])
print("np.asarray gives the values", np.asarray(t).tolist())

# %% [markdown]
# ## Handing gradients to SciPy
#
# `scipy.optimize.minimize(fun, x0, jac=True)` calls `fun` with a float64 array and wants the value
# and the gradient back. `tg.value_and_grad(f)` is such a function. The Rosenbrock function in 10
# dimensions, again written with NumPy:

# %%
from scipy.optimize import minimize  # noqa: E402


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


res = minimize(tg.value_and_grad(rosenbrock), np.zeros(10), jac=True, method="L-BFGS-B")
print("L-BFGS-B converged:", res.success, "in", res.nit, "iterations")
print("x =", np.round(res.x, 4))

# %% [markdown]
# ## DLPack: the same memory, seen by another library
#
# `np.from_dlpack(t)` and `torch.from_dlpack(t)` see a tensor's memory without copying, and
# `tg.from_dlpack(x)` wraps theirs. A tensor that requires grad is exported as `t.detach()`, as in
# PyTorch.

# %%
t = tg.tensor([1.0, 2.0, 3.0])
a = np.from_dlpack(t)
a[0] = 10.0
print("NumPy writes, tapegrad sees:", t.numpy().tolist())
back = tg.from_dlpack(a)
print("round trip shares memory:", np.shares_memory(back.numpy(), t.numpy()))

try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    tt = torch.from_dlpack(t)
    tt.mul_(2)
    print("PyTorch writes, tapegrad sees:", t.numpy().tolist())
