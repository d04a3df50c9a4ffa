# %% [markdown]
# # 02 · Functional gradients: `tg.grad` and `tg.value_and_grad`
#
# MindSpore and JAX differentiate *functions*. `grad_position` and `weights` choose what to
# differentiate with respect to, `has_aux` whether only the first output counts. Every row of the
# table below, with the seeds' `Net(3, 1)` (seed 000 / 002) and their printed numbers.
#
# | grad_position | weights | returns |
# | --- | --- | --- |
# | 0 | None | grad of input 0 |
# | 1 | None | grad of input 1 |
# | (0, 1) | None | (grad 0, grad 1) |
# | None | weights | (grads of weights,) |
# | 0 | weights | (grad 0, (grads of weights,)) |
# | (0, 1) | weights | ((grad 0, grad 1), (grads of weights,)) |
# | None | None | ValueError |

# %%
import tapegrad as tg
from tapegrad import nn

# %% [markdown]
# ## The simplest case (seed 000)

# %%
print("=== tg.grad ===")
x = tg.tensor(1.0)
y = tg.tensor(2.0)


def net(x, y):
    return x**2 + y


out = tg.grad(net, grad_position=0)(x, y)
print("out", out)
out1 = tg.grad(net, grad_position=1)(x, y)
print("out1", out1)

# %% [markdown]
# Several outputs without `has_aux`: their sum is differentiated (2x + 1 = 3).

# %%
print("=== tg.grad multiple outputs ===")


def net2(x, y):
    return x**2 + y, x


print("out", tg.grad(net2, grad_position=0)(x, y))
print("=== tg.grad has_aux ===")
out, _ = tg.grad(net2, grad_position=0, has_aux=True)(x, y)
print("out", out)
out, _ = tg.grad(net2, grad_position=1, has_aux=True)(x, y)
print("out", out)

# %% [markdown]
# ## A network with a loss and logits


# %%
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
print("=== weight ===")
for param in net.trainable_params():
    print("name:", param.name, "data:", param.data.asnumpy())
x = tg.Tensor([[1, 2, 3]], tg.float32)
y = tg.Tensor(19, tg.float32)
loss, logits = net(x, y)
print("=== output ===")
print(loss, logits)

# %%
print("=== grads 1 ===")
grad, logit = tg.grad(net, grad_position=0, weights=None, has_aux=True)(x, y)
print("grad", grad)
print("logit", logit)

print("=== grads 2 ===")
grad, logit = tg.grad(net, grad_position=1, weights=None, has_aux=True)(x, y)
print("grad", grad)
print("logit", logit)

print("=== grads 3 ===")
grad, logit = tg.grad(net, grad_position=(0, 1), weights=None, has_aux=True)(x, y)
print("grad", grad)
print("logit", logit)

print("=== grads 4 ===")
grad, logit = tg.grad(net, grad_position=None, weights=net.trainable_params(), has_aux=True)(x, y)
print("grad", grad)
print("logits", logit)

print("=== grads 5 ===")
grad, logit = tg.grad(net, grad_position=0, weights=net.trainable_params(), has_aux=True)(x, y)
print("grad", grad)
print("logit", logit)

print("=== grads 6 ===")
grad, logit = tg.grad(net, grad_position=(0, 1), weights=net.trainable_params(), has_aux=True)(x, y)
print("grad", grad)
print("logit", logit)

print("=== grads 7 ===")
grad = tg.grad(net, grad_position=0, weights=None, has_aux=False)(x, y)
print("grad", grad)

# %% [markdown]
# `has_aux=False` differentiates loss + logits, exactly like a net that returns their sum:


# %%
class Net2(nn.Cell):
    def __init__(self, in_channel, out_channel):
        super().__init__()
        self.fc = nn.Dense(in_channel, out_channel, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        loss = self.loss(logits, y)
        return loss + logits


net2 = Net2(3, 1)
net2.fc.weight.set_data(tg.Tensor([[2, 3, 4]], tg.float32))
print("grad", tg.grad(net2, grad_position=0, weights=None, has_aux=False)(x, y))

print("=== grads 8 ===")
try:
    tg.grad(net, grad_position=None, weights=None, has_aux=True)(x, y)
except ValueError as e:
    print("ValueError:", e)

# %% [markdown]
# ## `value_and_grad`: the forward value too

# %%
print("=== value and grad ===")
value, grad = tg.value_and_grad(
    net, grad_position=(0, 1), weights=net.trainable_params(), has_aux=True
)(x, y)
print("value", value)
print("grad", grad)
