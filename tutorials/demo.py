"""`make demo`: train a tiny model on tapegrad, watch the loss fall, look at a gradient, the tape.

Runs as a plain script; writes the drawn tape to tutorials/output/demo_tape.svg (with Graphviz).
"""

from pathlib import Path

import numpy as np

import tapegrad as tg

tg.manual_seed(0)
rng = np.random.default_rng(0)

# A noisy sine wave, and a 1-16-1 tanh network to fit it.
x = tg.tensor(rng.uniform(-3, 3, size=(64, 1)))
y = tg.tensor(np.sin(x.numpy()) + 0.05 * rng.standard_normal((64, 1)))
model = tg.nn.Sequential(tg.nn.Linear(1, 16), tg.nn.Tanh(), tg.nn.Linear(16, 1))
loss_fn = tg.nn.MSELoss()
opt = tg.optim.Adam(model.parameters(), lr=0.05)

print("Training a 1-16-1 MLP on sin(x), PyTorch style (zero_grad, backward, step):")
for step in range(201):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    if step % 40 == 0:
        print(f"  step {step:3d}   loss {loss.item():.5f}")

# The same gradient two ways: MindSpore/JAX style (a function of the weights) and PyTorch style.
weights = model.trainable_params()
grads = tg.grad(lambda x, y: loss_fn(model(x), y), grad_position=None, weights=weights)(x, y)
opt.zero_grad()
loss_fn(model(x), y).backward()
print("\nd(loss)/d(output bias) from tg.grad:   ", grads[-1])
print("the same from loss.backward(), .grad:", weights[-1].grad)

# One small expression, explained step by step, and drawn.
a = tg.tensor(2.0, requires_grad=True, name="a")
b = tg.tensor(3.0, requires_grad=True, name="b")
out = (a * b + a.sin()) ** 2
print("\nThe backward pass of out = (a*b + sin(a))**2, step by step:")
tg.explain(out)
# (run from the repository root by `make demo`, or from tutorials/)
target = Path("tutorials" if Path("tutorials").is_dir() else ".", "output", "demo_tape.svg")
try:
    tg.viz.draw(out, target, show_values=True, show_grads=True)
    print(f"\nThe tape is drawn in {target}")
except tg.viz.GraphvizNotAvailable as e:  # Graphviz is an optional extra
    print(f"\n(no drawing: {e})")
