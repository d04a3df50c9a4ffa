# %% [markdown]
# # 13 · Checking a backward pass written by hand
#
# The best way to learn backpropagation is to write it: derive the gradient of every tensor of a
# small network by hand, in NumPy, one step at a time. What you then need is a referee that says,
# for each of your gradients, whether it is right, and if not, which step went wrong first and by
# which rule the right answer is made. `tg.autograd.compare(loss, manual)` is that referee: it runs
# the tape's own backward (no `.grad` changes, no `retain_grad()` needed) and puts your gradients
# beside its own, in the order backward computes them.

# %%
import numpy as np

import tapegrad as tg
import tapegrad.nn.functional as F

rng = np.random.default_rng(0)

# %% [markdown]
# ## A tiny data set: three clouds of points in the plane

# %%
centres = np.array([[0.0, 1.0], [-1.0, -0.6], [1.0, -0.6]])
labels = np.repeat(np.arange(3), 8)  # 24 points, 8 per class
points = centres[labels] + 0.35 * rng.standard_normal((24, 2))
X, Y = tg.tensor(points), tg.tensor(labels)
n = len(labels)

# %% [markdown]
# ## The network: 2 -> 8 -> 3, tanh, cross-entropy
# Every tensor whose gradient we will derive gets a name, so that `compare` can find it.

# %%
W1 = tg.tensor(rng.standard_normal((8, 2)) * 0.8, requires_grad=True, name="W1")
b1 = tg.tensor(np.zeros(8), requires_grad=True, name="b1")
W2 = tg.tensor(rng.standard_normal((3, 8)) * 0.8, requires_grad=True, name="W2")
b2 = tg.tensor(np.zeros(3), requires_grad=True, name="b2")

pre = F.linear(X, W1, b1)  # pre = X W1^T + b1
pre.name = "pre"
h = pre.tanh()
h.name = "h"
logits = F.linear(h, W2, b2)
logits.name = "logits"
loss = F.cross_entropy(logits, Y)
print(f"loss {loss.item():.4f}")

# %% [markdown]
# ## The backward pass, by hand
# Cross-entropy's gradient with respect to the logits is the textbook's
# (softmax(x) - onehot(y)) / N; then each layer in turn: a linear layer sends g W back to its input
# and g^T x to its weight, tanh multiplies by 1 - tanh^2.

# %%
x, hv, W2v = X.numpy(), h.numpy(), W2.numpy()
probs = np.exp(logits.numpy() - logits.numpy().max(1, keepdims=True))
probs /= probs.sum(1, keepdims=True)
onehot = np.eye(3)[labels]

dlogits = (probs - onehot) / n
dW2 = dlogits.T @ hv
db2 = dlogits.sum(0)
dh = dlogits @ W2v
dpre = dh * (1 - hv**2)
dW1 = dpre.T @ x
db1 = dpre.sum(0)

# %% [markdown]
# ## The referee
# `manual` maps each tensor (or its name) to the gradient derived for it. The table lists them in
# backward order, with the rule that made the tape's gradient.

# %%
result = tg.autograd.compare(
    loss,
    {"logits": dlogits, W2: dW2, b2: db2, "h": dh, "pre": dpre, W1: dW1, b1: db1},
)
print(result)
print("first wrong:", result.first_wrong)

# %% [markdown]
# ## A mistake, found and named
# The most common slip: tanh's derivative written as 1 - tanh instead of 1 - tanh^2. Everything
# computed after it is wrong too; `compare` names the first wrong step and the rule that should
# have made it.

# %%
dpre_wrong = dh * (1 - hv)  # the planted mistake
dW1_wrong, db1_wrong = dpre_wrong.T @ x, dpre_wrong.sum(0)
checked = tg.autograd.compare(
    loss,
    {"logits": dlogits, W2: dW2, b2: db2, "h": dh, "pre": dpre_wrong, W1: dW1_wrong, b1: db1_wrong},
)
print(checked)
wrong = checked.first_wrong
print(f"the first wrong gradient is d{wrong.name}; the tape made it by {wrong.rule}")

# %% [markdown]
# In a notebook, a cell ending with the comparison shows it as a table, each rule typeset:

# %%
checked

# %% [markdown]
# ## Cross-entropy one operation at a time
# `F.cross_entropy` is one step with its textbook rule. Written out operation by operation (as in
# "becoming a backprop ninja"), every intermediate gets a gradient to derive, and `compare` checks
# each one: intermediate tensors need no `retain_grad()`.

# %%
logit_maxes = logits.amax(1, keepdim=True).detach()  # a constant shift: it changes nothing
norm_logits = logits - logit_maxes
counts = norm_logits.exp()
counts_sum = counts.sum(1, keepdims=True)
counts_sum_inv = counts_sum**-1
probs_t = counts * counts_sum_inv
logprobs = probs_t.log()
loss2 = -logprobs[np.arange(n), labels].mean()

cv, csv, csiv, pv = counts.numpy(), counts_sum.numpy(), counts_sum_inv.numpy(), probs_t.numpy()
dlogprobs = np.zeros((n, 3))
dlogprobs[np.arange(n), labels] = -1 / n
dprobs = dlogprobs / pv
dcounts_sum_inv = (dprobs * cv).sum(1, keepdims=True)
dcounts_sum = dcounts_sum_inv * -(csv**-2)
dcounts = dprobs * csiv + dcounts_sum  # (two uses of counts: their gradients add)
dnorm_logits = dcounts * cv

steps = tg.autograd.compare(
    loss2,
    {
        "logprobs": (logprobs, dlogprobs),
        "probs": (probs_t, dprobs),
        "counts_sum_inv": (counts_sum_inv, dcounts_sum_inv),
        "counts_sum": (counts_sum, dcounts_sum),
        "counts": (counts, dcounts),
        "norm_logits": (norm_logits, dnorm_logits),
        "logits": dnorm_logits,
    },
)
print(steps)

# %% [markdown]
# The last line is the shortcut of the first section: the gradient that reaches the logits through
# all these steps is (softmax(x) - onehot(y)) / N, as `tg.autograd.formula("cross_entropy")` says.

# %%
print(tg.autograd.formula("cross_entropy").splitlines()[1])
print("the same as by the shortcut:", np.allclose(dnorm_logits, dlogits))
