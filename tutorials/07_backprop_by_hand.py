# %% [markdown]
# # 07 · Backprop by hand, beside the tape
#
# Reverse mode computes vector-Jacobian products: starting from dL/dout, each op multiplies by its
# local Jacobian (transposed) and passes the result to its inputs. Seed 004 does this for
# f(x) = cos(sin(x)) and for a matrix network; here each step is done by hand with NumPy and
# compared with the tape, then `tg.explain` shows the tape's own steps.

# %%
from pathlib import Path

import numpy as np

import tapegrad as tg

# Drawings go to tutorials/output/, whether this runs as a script from the repository root or as a
# notebook in tutorials/.
OUT = Path("tutorials/output") if Path("tutorials").is_dir() else Path("output")

# %% [markdown]
# ## f(x) = cos(sin(x)): forward

# %%
x_np = np.array([1.0, 2.0, 5.0], np.float32)
y1 = np.cos(np.sin(x_np))
x = tg.tensor(x_np, requires_grad=True)
y2 = x.sin().cos()
print("y1 = ", y1)
print("y2 = ", y2.numpy())

# %% [markdown]
# ## Backward, by the chain rule: f'(x) = -sin(sin(x)) * cos(x)
# As two VJPs: g_a = g * (-sin(a)) with a = sin(x), then g_x = g_a * cos(x).

# %%
g = np.ones(3, np.float32)  # dL/dout, the seed (L = sum of outputs)
a = np.sin(x_np)
g_a = g * -np.sin(a)  # CosBackward's rule
g_x = g_a * np.cos(x_np)  # SinBackward's rule
print("y1 = ", -np.sin(np.sin(x_np)) * np.cos(x_np))
print("by hand:", g_x)
print("y2 = ", tg.grad(lambda t: t.sin().cos())(x).numpy())

# %% [markdown]
# The tape's steps, in the order the engine runs them:

# %%
tg.explain(x.sin().cos(), gradient=tg.ones(3))

# %% [markdown]
# And the tape itself, with the values and the gradients it would send:

# %%
drawing = tg.viz.draw(x.sin().cos().sum(), show_values=True, show_grads=True)
try:
    print("drawn to", drawing.save(OUT / "07_cos_sin.svg"))
except tg.viz.GraphvizNotAvailable as e:  # Graphviz is optional
    print("not drawn:", e)
drawing

# %% [markdown]
# ## out = (x * z) @ y with a parameter z (seed 004)

# %%
x = tg.Tensor([[0.5, 0.6, 0.4], [1.2, 1.3, 1.1]], dtype=tg.float32)
y = tg.Tensor([[0.01, 0.3, 1.1], [0.1, 0.2, 1.3], [2.1, 1.2, 3.3]], dtype=tg.float32)


class Net(tg.nn.Cell):
    def __init__(self):
        super().__init__()
        self.z = tg.nn.Parameter(tg.Tensor(np.array([1.0], np.float32)), name="z")

    def construct(self, x, y):
        return (x * self.z) @ y


net = Net()

# %% [markdown]
# d/dx with the output seeded by ones: ones @ yᵀ (every row the same)

# %%
print(tg.grad(net)(x, y))
print(np.matmul(np.ones((2, 3)), y.numpy().T))

# %% [markdown]
# Both inputs (GradOperation(get_all=True)): d/dy = xᵀ @ ones

# %%
print(tg.grad(net, grad_position=(0, 1))(x, y))
print(np.matmul(x.numpy().T, np.ones((2, 3))))

# %% [markdown]
# The parameter z (GradOperation(get_by_list=True)). Seed 004 asks how 15.337 comes about: out =
# z * (x @ y), so d(sum out)/dz = sum(x @ y).

# %%
print(tg.grad(net, grad_position=None, weights=net.trainable_params())(x, y))
print("sum(x @ y) =", np.sum(x.numpy() @ y.numpy()))

# %% [markdown]
# ## Sensitivity: a given dL/dout instead of ones (GradOperation(sens_param=True))
# `tg.vjp` takes the cotangent explicitly (and `weights=` the parameters): every gradient is scaled
# by 0.1, as in seed 004's output.

# %%
grad_wrt_output = tg.Tensor([[0.1, 0.1, 0.1], [0.1, 0.1, 0.1]], dtype=tg.float32)
out, vjp_fn = tg.vjp(net, x, y, weights=net.trainable_params())
print(vjp_fn(grad_wrt_output))  # ((d/dx, d/dy), (d/dz,)), each 0.1 times the gradients above
