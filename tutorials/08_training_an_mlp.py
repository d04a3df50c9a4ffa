# %% [markdown]
# # 08 · Training an MLP end to end
#
# A two-class spiral, a 2-32-32-2 tanh network, cross-entropy loss and Adam. The loss falls, the
# accuracy climbs; then the same step written functionally with `tg.value_and_grad`.

# %%
from pathlib import Path

import numpy as np

import tapegrad as tg
from tapegrad import nn

tg.manual_seed(0)
rng = np.random.default_rng(0)
# Drawings go to tutorials/output/, whether this runs as a script from the repository root or as a
# notebook in tutorials/.
OUT = Path("tutorials/output") if Path("tutorials").is_dir() else Path("output")

# %% [markdown]
# ## Data: two interleaved spirals

# %%
n = 200
t = np.sqrt(rng.uniform(0, 1, n)) * 3 * np.pi
arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3 * np.pi)
points = np.concatenate([arm, -arm]) + 0.02 * rng.standard_normal((2 * n, 2))
labels = np.concatenate([np.zeros(n, np.int64), np.ones(n, np.int64)])
X = tg.tensor(points.astype(np.float32))
Y = tg.tensor(labels)

# %% [markdown]
# ## Model, loss, optimizer

# %%
model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 2))
loss_fn = nn.CrossEntropyLoss()
opt = tg.optim.Adam(model.parameters(), lr=0.02)


def accuracy():
    with tg.no_grad():
        return float((model(X).argmax(axis=1).numpy() == labels).mean())


# %% [markdown]
# ## PyTorch-style loop

# %%
first = None
for epoch in range(301):
    opt.zero_grad()
    loss = loss_fn(model(X), Y)
    loss.backward()
    opt.step()
    first = first if first is not None else loss.item()
    if epoch % 50 == 0:
        print(f"epoch {epoch:3d}  loss {loss.item():.4f}  accuracy {accuracy():.3f}")
print(f"loss fell from {first:.4f} to {loss.item():.4f}")

# %% [markdown]
# ## The same step, functionally
# `value_and_grad` with `weights=` returns the loss and a tuple of gradients; the optimizer takes
# it.

# %%
step = tg.value_and_grad(
    lambda x, y: loss_fn(model(x), y), grad_position=None, weights=model.trainable_params()
)
for _ in range(50):
    loss, grads = step(X, Y)
    opt.step(grads)
print(f"after 50 functional steps: loss {loss.item():.4f}  accuracy {accuracy():.3f}")

# %% [markdown]
# The tape of one loss on four points. Parameters are labelled with their module paths
# (`0.weight`); nodes recorded inside a module are grouped under its name.

# %%
drawing = tg.viz.draw(loss_fn(model(X[:4]), Y[:4]))
try:
    print("drawn to", drawing.save(OUT / "08_mlp_tape.svg"))
except tg.viz.GraphvizNotAvailable as e:  # Graphviz is optional
    print("not drawn:", e)
drawing
