# %% [markdown]
# # 05 · Loss scaling, overflow checks, clipping and gradient accumulation
#
# Seed 000's mixed-precision section: multiply the loss by a large scale so small float16 gradients
# do not underflow, divide the gradients back, check they are finite, clip them.

# %%
import numpy as np

import tapegrad as tg
from tapegrad import nn
from tapegrad.amp import DynamicLossScaler, StaticLossScaler, all_finite


class Net(nn.Cell):
    def __init__(self, in_channel, out_channel):
        super().__init__()
        self.fc = nn.Dense(in_channel, out_channel, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        loss = self.loss(logits, y)
        return loss, logits


net = Net(3, 1)
net.fc.weight.set_data(tg.Tensor([[2, 3, 4]], tg.float32))
x = tg.Tensor([[1, 2, 3]], tg.float32)
y = tg.Tensor(19, tg.float32)

# %% [markdown]
# ## StaticLossScaler

# %%
loss_scale = StaticLossScaler(1024.0)


def forward_fn(x, y):
    loss, logits = net(x, y)
    print("loss", loss)
    loss = loss_scale.scale(loss)
    return loss, logits


value_and_grad_func = tg.value_and_grad(
    forward_fn, grad_position=None, weights=net.trainable_params(), has_aux=True
)
(loss, logits), grad = value_and_grad_func(x, y)
print("=== loss scale ===")
print("loss", loss)
print("grad", grad)
print("=== unscale ===")
loss = loss_scale.unscale(loss)
grad = loss_scale.unscale(grad)
print("loss", loss)
print("grad", grad)
state = all_finite(grad)  # True when nothing overflowed
print(state)

# %% [markdown]
# ## Why scale: a float16 gradient that underflows to zero without it


# %%
# d loss / d w = 2 * (w*x - y) * x = 2e-8: smaller than float16's smallest subnormal (6e-8).
def float16_weight_grad(scaler=None):
    net16 = nn.Dense(1, 1, has_bias=False, weight_init="ones", dtype=tg.float16)
    x16 = tg.tensor([[1e-5]], tg.float16)
    y16 = tg.tensor([[1e-5 - 1e-3]], tg.float16)
    loss16 = nn.MSELoss()(net16(x16), y16)
    if scaler is not None:
        loss16 = scaler.scale(loss16)
    return tg.autograd.grad(loss16, net16.trainable_params())


plain = float16_weight_grad()
scaler16 = StaticLossScaler(1024.0)
# unscale in float32 (master weights): back in float16 the value would underflow again
rescued = scaler16.unscale(tuple(g.astype(tg.float32) for g in float16_weight_grad(scaler16)))
print(
    "float16 grad without scaling:", plain[0].item(), " with scaling, unscaled:", rescued[0].item()
)


# %% [markdown]
# ## DynamicLossScaler: halve on overflow, grow after a window of good steps

# %%
scaler = DynamicLossScaler(scale_value=2.0**10, scale_factor=2, scale_window=3)
for finite in [True, True, True, False, True]:
    scaler.adjust(finite)
    print("finite" if finite else "overflow", "-> scale", float(np.asarray(scaler.scale_value)))

# %% [markdown]
# ## Clipping by the global norm
# Every gradient is multiplied by clip_norm / max(global_norm, clip_norm); the input is not changed.

# %%
grads = (tg.tensor([3.0, 4.0]), tg.tensor([[12.0]]))  # global norm 13
clipped = tg.ops.clip_by_global_norm(grads, clip_norm=1.0)
print("clipped:", clipped)
print("original untouched:", grads[0])

# %% [markdown]
# ## Gradient accumulation: two half-batches give the full batch's gradient

# %%
rng = np.random.default_rng(0)
xb = tg.tensor(rng.standard_normal((8, 3)).astype(np.float32))
yb = tg.tensor(rng.standard_normal((8,)).astype(np.float32))
model = nn.Dense(3, 1)
loss_fn = nn.MSELoss(reduction="sum")

model.zero_grad()
loss_fn(model(xb).squeeze(-1), yb).backward()
full = model.weight.grad.numpy().copy()

model.zero_grad()
for part in (slice(0, 4), slice(4, 8)):  # .grad accumulates across backward calls
    loss_fn(model(xb[part]).squeeze(-1), yb[part]).backward()
print(
    "accumulated with backward == full batch:",
    np.allclose(model.weight.grad.numpy(), full, atol=1e-5),
)

grad_fn = tg.grad(
    lambda a, b: loss_fn(model(a).squeeze(-1), b),
    grad_position=None,
    weights=model.trainable_params(),
)
g1 = grad_fn(xb[:4], yb[:4])
g2 = grad_fn(xb[4:], yb[4:])
summed = tuple(a + b for a, b in zip(g1, g2))
print("summed functional grads == full batch:", np.allclose(summed[0].numpy(), full, atol=1e-5))
