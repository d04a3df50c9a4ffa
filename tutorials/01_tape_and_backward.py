# %% [markdown]
# # 01 · The tape and `backward()` (PyTorch style)
#
# Every op on a tensor that requires grad is recorded on a **tape**: a node holding the op's
# backward rule and edges to its inputs. `backward()` walks the tape in reverse. The examples and
# printed numbers are those of the PyTorch half of seed 000 (MindSpore's "Gradient Derivation"
# guide).

# %%
from pathlib import Path

import tapegrad as tg

# Drawings go to tutorials/output/, whether this runs as a script from the repository root or as a
# notebook in tutorials/.
OUT = Path("tutorials/output") if Path("tutorials").is_dir() else Path("output")

# %% [markdown]
# ## `tensor.backward()`: leaves get `.grad`

# %%
print("=== tensor.backward ===")
x = tg.tensor(1.0, requires_grad=True)
y = tg.tensor(2.0, requires_grad=True)
z = x**2 + y
print("x.grad before backward", x.grad)
print("y.grad before backward", y.grad)
z.backward()
print("z", z)
print("x.grad", x.grad)  # dz/dx = 2x = 2
print("y.grad", y.grad)  # dz/dy = 1

# %% [markdown]
# ## `tg.autograd.backward(z)` is the same thing

# %%
print("=== tg.autograd.backward ===")
x = tg.tensor(1.0, requires_grad=True)
y = tg.tensor(2.0, requires_grad=True)
z = x**2 + y
tg.autograd.backward(z)
print("z", z)
print("x.grad", x.grad)
print("y.grad", y.grad)

# %% [markdown]
# ## `tg.autograd.grad` returns gradients instead of filling `.grad`
# The second call works without `retain_graph=True`: it only runs the nodes on the path to `y`
# (`AddBackward`), never the `PowBackward` whose saved tensors the first call freed.

# %%
print("=== tg.autograd.grad ===")
x = tg.tensor(1.0, requires_grad=True)
y = tg.tensor(2.0, requires_grad=True)
z = x**2 + y
out = tg.autograd.grad(z, x)
out1 = tg.autograd.grad(z, y)
print("out", out)
print("out1", out1)
print("x.grad is still", x.grad)

# %% [markdown]
# ## A non-scalar output needs the vector of the vector-Jacobian product
# Seed 000's first example: `y.backward(x)` weights each output element by `x`.

# %%
print("=== backward with a gradient ===")
x0 = tg.ones(2, 2, requires_grad=True)
x = x0 * 2
y = x - 1
y.backward(x)  # d(sum(x * y))/dx0 with x held as weights = 2 * x = 4
print("x0.grad", x0.grad)

# %% [markdown]
# ## `.grad` accumulates: zero it between steps

# %%
print("=== accumulation ===")
w = tg.tensor(3.0, requires_grad=True)
for _ in range(3):
    (w * w).backward()
    print("w.grad", w.grad)  # 6, 12, 18
w.grad = None  # or w.grad.zero_()
(w * w).backward()
print("after reset w.grad", w.grad)

# %% [markdown]
# ## `no_grad` and `enable_grad`

# %%
print("=== tg.no_grad ===")
x = tg.tensor(1.0, requires_grad=True)
y = tg.tensor(2.0, requires_grad=True)
z = x**2 + y
print("z.requires_grad", z.requires_grad)
with tg.no_grad():
    z = x**2 + y
print("z.requires_grad", z.requires_grad)

print("=== tg.enable_grad ===")
with tg.no_grad():
    z = x**2 + y
print("z.requires_grad", z.requires_grad)
with tg.enable_grad():
    z = x**2 + y
print("z.requires_grad", z.requires_grad)

# %% [markdown]
# ## `retain_graph`: a backward frees the tape's saved tensors

# %%
print("=== retain_graph ===")
x = tg.tensor(2.0, requires_grad=True)
z = x.sin() * x
z.backward(retain_graph=True)
print("first backward, x.grad", x.grad)
z.backward()  # works: the first call kept the saved tensors
print("second backward, x.grad", x.grad)
try:
    z.backward()  # the second call freed them
except RuntimeError as e:
    print("third backward:", str(e).split(".")[0])

# %% [markdown]
# ## See the tape
# `grad_fn` is the node that made a tensor; `tg.viz` draws the whole tape. Name tensors (`name=` or
# `t.name = ...`) and the drawing uses the names; `show_values` and `show_grads` put the data and
# the gradient on every node (the gradients come from one backward run that writes no `.grad`).

# %%
a = tg.tensor(2.0, requires_grad=True, name="a")
b = tg.tensor(3.0, requires_grad=True, name="b")
out = (a * b + a.sin()) ** 2
print("out.grad_fn", out.grad_fn)
print(tg.viz.to_dot(out).splitlines()[0])

# %%
drawing = tg.viz.draw(out, show_values=True, show_grads=True, rankdir="LR")
try:
    print("drawn to", drawing.save(OUT / "01_tape.svg"))
except tg.viz.GraphvizNotAvailable as e:  # Graphviz is optional; drawing.source is the DOT text
    print("not drawn:", e)
drawing

# %% [markdown]
# ## The backward pass, step by step
# `tg.explain` runs the same engine and shows each node's rule, the forward values it reads, the
# gradient arriving and the gradients it sends on (a table in a notebook, text in a script).

# %%
tg.explain(out)
