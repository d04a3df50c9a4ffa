# %% [markdown]
# # 06 · Your own op with its own backward, checked; and hooks
#
# `tg.autograd.Function` records a custom op on the tape like a built-in one. `gradcheck` compares
# its backward with finite differences. A hook can rewrite a gradient on its way back: flipping its
# sign turns minimisation into maximisation for part of a model (seed 003's min-max question).

# %%
import numpy as np

import tapegrad as tg

# %% [markdown]
# ## A custom op: a numerically careful softplus, log(1 + exp(x))


# %%
class Softplus(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.relu() + (1.0 + (-x.abs()).exp()).log()  # never exp of a large number

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * x.sigmoid()  # d/dx softplus = sigmoid


x = tg.tensor([-30.0, -1.0, 0.5, 40.0], dtype=tg.float64, requires_grad=True)
y = Softplus.apply(x)
print("softplus:", y)
print("node:", y.grad_fn)
y.sum().backward()
print("grad (sigmoid):", x.grad)
print("gradcheck:", tg.autograd.gradcheck(Softplus.apply, (x,)))

# %% [markdown]
# A wrong backward is caught:


# %%
class BadSquare(tg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * x  # forgot the factor 2


print(
    "gradcheck of a wrong backward:",
    tg.autograd.gradcheck(BadSquare.apply, (x,), raise_exception=False),
)

# %% [markdown]
# ## Min-max with a hook (seed 003)
# loss = d(B(A(x))) - d(C(A(x))): A and B minimise it, C maximises it. One backward, then flip the
# sign of C's gradients with a hook, and one optimizer step for everything.

# %%
tg.manual_seed(0)
A = tg.nn.Linear(1, 2)
B = tg.nn.Linear(2, 3)
C = tg.nn.Linear(2, 3)
for p in C.parameters():
    p.register_hook(lambda g: -g)  # C climbs the loss instead of descending it
opt = tg.optim.SGD(list(A.parameters()) + list(B.parameters()) + list(C.parameters()), lr=0.01)

xs = tg.rand(10, 1)
h = A(xs)
loss = ((B(h) - C(h)) ** 2).sum()
opt.zero_grad()
loss.backward()
w_before = C.weight.numpy().copy()
opt.step()
# SGD subtracts lr * grad; the hook made grad = -dloss/dC, so C moved up the loss:
moved = C.weight.numpy() - w_before
print("C moved along +dloss/dC:", bool(np.all(np.sign(moved) == np.sign(-C.weight.grad.numpy()))))
