# %% [markdown]
# # 11 · Per-example gradients with vmap, and what their norms tell
#
# `loss.backward()` gives the gradient of the *mean* loss: the examples' gradients summed up and
# divided. Some uses need each example's own gradient: finding the examples a model struggles with,
# clipping each example's influence (differentially private training), estimating gradient noise.
# A loop of one backward per example works but is slow; `vmap(grad(loss))` computes all of them in
# one vectorised call: `grad` gives one example's gradient, `vmap` runs it over the batch, with
# every op batched by its primitive's batching rule. These are the first examples of PyTorch's
# "Per-sample-gradients" tutorial and of JAX's autodiff cookbook, in tapegrad.

# %%
import numpy as np

import tapegrad as tg
import tapegrad.func as tf
from tapegrad.nn import functional as F

tg.manual_seed(0)
rng = np.random.default_rng(0)

# %% [markdown]
# ## A small classifier
#
# Three classes of points in 4 dimensions, around three centres, a few of them deliberately
# labelled wrong; a 4-16-3 network trained for a few steps.

# %%
centres = rng.standard_normal((3, 4)) * 2.0
labels = rng.integers(0, 3, 120)
points = centres[labels] + rng.standard_normal((120, 4))
flipped = np.array([5, 17, 42])  # mislabelled on purpose
labels[flipped] = (labels[flipped] + 1) % 3
X, Y = tg.tensor(points.astype(np.float32)), tg.tensor(labels)

model = tg.nn.Sequential(tg.nn.Linear(4, 16), tg.nn.Tanh(), tg.nn.Linear(16, 3))
initial = {name: p.detach().clone() for name, p in model.named_parameters()}  # (used at the end)
opt = tg.optim.SGD(model.parameters(), lr=0.5)
for step in range(30):
    opt.zero_grad()
    loss = F.cross_entropy(model(X), Y)
    loss.backward()
    opt.step()
print(f"loss after 30 steps: {loss.item():.3f}")

# %% [markdown]
# ## One example's loss as a function of the parameters
#
# `functional_call` runs the model with the parameters we pass (for that call only), so the loss is
# a function of a dict of tensors, which `grad` differentiates. `vmap` maps it over the examples:
# `in_dims=(None, 0, 0)` shares the parameters and takes one example and one label at a time.

# %%
params = {name: p.detach() for name, p in model.named_parameters()}


def example_loss(params, x, y):
    logits = tf.functional_call(model, params, (x[None],))  # a batch of one
    return F.cross_entropy(logits, y[None])


per_example = tf.vmap(tf.grad(example_loss), in_dims=(None, 0, 0))(params, X, Y)
for name, g in per_example.items():
    print(f"{name:9s} per-example gradients {g.shape}")

# %% [markdown]
# Two checks: their mean is the gradient `backward()` gives for the mean loss, and each is the
# gradient of that one example's loss (a loop, one backward per example).

# %%
model.zero_grad()
F.cross_entropy(model(X), Y).backward()
print(
    "mean of per-example gradients = batch gradient:",
    all(
        np.allclose(per_example[n].numpy().mean(0), p.grad.numpy(), atol=1e-6)
        for n, p in model.named_parameters()
    ),
)
loop = [tf.grad(example_loss)(params, X[i], Y[i]) for i in range(len(X))]
print(
    "each equals its own backward:",
    all(
        np.allclose(per_example[n].numpy(), np.stack([g[n].numpy() for g in loop]), atol=1e-6)
        for n in params
    ),
)

# %% [markdown]
# ## Which examples pull hardest?
#
# The norm of an example's gradient (over all parameters) says how much it would move the model.
# The largest belong to the examples the model gets wrong, here the mislabelled ones.

# %%
squares = sum((g.reshape(len(X), -1) ** 2).sum(1) for g in per_example.values())
norms = squares.sqrt().numpy()
predicted = model(X).argmax(1).numpy()
order = np.argsort(-norms)
print("largest per-example gradient norms:")
for i in order[:5]:
    tag = "mislabelled" if i in flipped else ("wrong" if predicted[i] != labels[i] else "right")
    print(
        f"  example {i:3d}: norm {norms[i]:.3f}, label {labels[i]}, predicted {predicted[i]}", tag
    )
print(f"median norm: {np.median(norms):.3f}")
print(
    "mislabelled examples among the 5 largest:",
    sorted(int(i) for i in set(order[:5]) & set(flipped)),
)

# %% [markdown]
# ## Clipping each example's gradient
#
# Differentially private SGD bounds every example's influence: each gradient is scaled down to norm
# at most C before they are averaged. With per-example gradients that is a few tensor ops. Trained
# so from the same starting point as above, the model learns too (a little more slowly: the clipped
# mislabelled examples pull less, and so do the others).


# %%
def clipped_step(params, lr=0.5, C=0.5):
    grads = tf.vmap(tf.grad(example_loss), in_dims=(None, 0, 0))(params, X, Y)
    total = sum((g.reshape(len(X), -1) ** 2).sum(1) for g in grads.values()).sqrt()
    scale = (C / (total + 1e-12)).clip(max=1.0)
    return {
        n: p - lr * (grads[n] * scale.reshape((-1,) + (1,) * p.ndim)).mean(0)
        for n, p in params.items()
    }


def mean_loss(params):
    return F.cross_entropy(tf.functional_call(model, params, (X,)), Y).item()


clipped = initial
before = mean_loss(clipped)
for _ in range(30):
    clipped = clipped_step(clipped)
print(f"clipped per-example SGD, 30 steps: loss {before:.3f} -> {mean_loss(clipped):.3f}")

# %% [markdown]
# JAX's spelling works too: `tg.vmap(f, in_axes=...)` is the same transform with JAX's keyword
# names, and `tg.grad` (MindSpore/JAX style) composes with it as `tapegrad.func.grad` does.

# %%
jax_style = tg.vmap(tg.grad(example_loss), in_axes=(None, 0, 0))(params, X, Y)
print(
    "tg.vmap(tg.grad(...)) agrees:",
    np.allclose(
        jax_style["0.weight"].numpy(),
        tf.vmap(tf.grad(example_loss), in_dims=(None, 0, 0))(params, X, Y)["0.weight"].numpy(),
    ),
)
