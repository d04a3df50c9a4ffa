# %% [markdown]
# # 03 · Higher-order derivatives
#
# Backward rules are written with tapegrad ops, so the backward pass can itself be recorded and
# differentiated again. Seed 001's examples, then Jacobians and Hessians.

# %%
import numpy as np

import tapegrad as tg

# %% [markdown]
# ## Single input, single output: d²/dx² sin(x) = -sin(x), ≈ 0 at π

# %%
x_train = tg.tensor(np.array([3.1415926]), dtype=tg.float32)
firstgrad = tg.grad(tg.sin)
secondgrad = tg.grad(firstgrad)
output = secondgrad(x_train)
print(np.around(output.numpy(), decimals=2))

# %% [markdown]
# ## Single input, two outputs: the outputs are summed, d²/dx² (sin x + cos x) = -sin x - cos x ≈ 1


# %%
def net(x):
    return x.sin(), x.cos()


output = tg.grad(tg.grad(net))(x_train)
print(np.around(output.numpy(), decimals=2))

# %% [markdown]
# ## Two inputs, two outputs


# %%
def net2(x, y):
    out1 = x.sin() - y.cos()
    out2 = x.cos() - y.sin()
    return out1, out2


y_train = tg.tensor(np.array([3.1415926]), dtype=tg.float32)
firstgrad = tg.grad(net2, grad_position=(0, 1))
secondgrad = tg.grad(firstgrad, grad_position=(0, 1))
output = secondgrad(x_train, y_train)
print(np.around(output[0].numpy(), decimals=2))
print(np.around(output[1].numpy(), decimals=2))

# %% [markdown]
# ## PyTorch style: `create_graph=True`

# %%
x = tg.tensor(2.0, requires_grad=True)
y = x**4
(d1,) = tg.autograd.grad(y, x, create_graph=True)  # 4x³ = 32
(d2,) = tg.autograd.grad(d1, x, create_graph=True)  # 12x² = 48
(d3,) = tg.autograd.grad(d2, x, create_graph=True)  # 24x = 48
(d4,) = tg.autograd.grad(d3, x)  # 24
print("derivatives of x**4 at 2:", d1.item(), d2.item(), d3.item(), d4.item())

# %% [markdown]
# ## Jacobian and Hessian
# `jacobian(f)(x)` has shape `out.shape + in.shape`; `hessian(f)(x)` is the Jacobian of the
# gradient.


# %%
def f(v):
    return (v**2).sum() * v[0]


v = tg.tensor([1.0, 2.0, 3.0])
print("jacobian of v**2:\n", tg.jacobian(lambda v: v**2)(v))
print("hessian of sum(v**2) * v0:\n", tg.hessian(f)(v))

# %% [markdown]
# ## Vector-Jacobian and Jacobian-vector products

# %%
out, vjp_fn = tg.vjp(lambda v: v.sin() * 2, v)
print("vjp with ones:", vjp_fn(tg.ones(3))[0])
out, tangent_out = tg.jvp(lambda v: v.sin() * 2, (v,), (tg.ones(3),))
print("jvp with ones:", tangent_out)
