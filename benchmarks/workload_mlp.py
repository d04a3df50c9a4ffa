"""Workloads mlp_small, mlp_large (SGD) and mlp_large_adam: one training step of an MLP with tanh
hidden layers, a linear output and the MSE loss, written once per arm. Imports cases.py,
numpy_optim.py and NumPy; tapegrad, torch and HIPS autograd inside the builders.

Weights are stored as PyTorch's Linear stores them, (out, in), in every arm. The tapegrad and
torch arms are the code users write: nn modules, the loss module, the optimizer.
"""

from __future__ import annotations

import numpy as np

import numpy_optim
from cases import ArmTable, F32, Case, torch_one_thread


def mlp_data(
    sizes: tuple = (32, 64, 64, 1),
    batch: int = 16,
    lr: float = 0.01,
    optimizer: str = "sgd",
    seed: int = 0,
) -> dict:
    """PyTorch's Linear init (U(-1/sqrt(fan_in), 1/sqrt(fan_in))), inputs and targets N(0, 1)."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(F32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(F32))
    return {
        "X": rng.standard_normal((batch, sizes[0])).astype(F32),
        "T": rng.standard_normal((batch, sizes[-1])).astype(F32),
        "params": params,
        "lr": lr,
        "optimizer": optimizer,
        # the direction of the Hessian-vector product (workload hvp)
        "V": [rng.standard_normal(p.shape).astype(F32) for p in params],
    }


def _sizes(d: dict) -> list:
    weights = d["params"][0::2]
    return [weights[0].shape[1]] + [w.shape[0] for w in weights]


# ---------------------------------------------------------------------------------------------
# numpy: forward and hand-derived backward, every buffer allocated once, in-place updates
# ---------------------------------------------------------------------------------------------


class NumpyMLP:
    """The MLP's loss and gradients by hand. Buffers live across steps; a hidden activation is
    overwritten by its tanh derivative once the backward pass has read it."""

    def __init__(self, X: np.ndarray, T: np.ndarray, params: list) -> None:
        self.X, self.T, self.params = X, T, params
        rows = X.shape[0]
        self.acts = [np.empty((rows, w.shape[0]), X.dtype) for w in params[0::2]]
        self.grad_hidden = [np.empty_like(a) for a in self.acts[:-1]]
        self.grads = [np.empty_like(p) for p in params]

    def loss_and_grads(self) -> tuple:
        params, acts, grads = self.params, self.acts, self.grads
        last = len(acts) - 1
        h = self.X
        for i, a in enumerate(acts):
            np.matmul(h, params[2 * i].T, out=a)
            a += params[2 * i + 1]
            if i < last:
                np.tanh(a, out=a)
            h = a
        g = acts[last]  # the output becomes y - t, then dL/dy: it is not read again
        g -= self.T
        loss = float(np.vdot(g, g)) / g.size
        g *= 2 / g.size
        for i in range(last, -1, -1):
            h_in = acts[i - 1] if i else self.X
            np.matmul(g.T, h_in, out=grads[2 * i])
            np.sum(g, axis=0, out=grads[2 * i + 1])
            if i:
                gh = self.grad_hidden[i - 1]
                np.matmul(g, params[2 * i], out=gh)
                np.multiply(h_in, h_in, out=h_in)  # tanh' = 1 - h^2, in h's own buffer
                np.subtract(1, h_in, out=h_in)
                gh *= h_in
                g = gh
        return loss, grads


def _numpy_update(params: list, d: dict):
    if d["optimizer"] == "adam":
        return numpy_optim.adam(params, lr=d["lr"])
    return numpy_optim.sgd(params, lr=d["lr"])


def mlp_numpy(d: dict) -> Case:
    params = [p.copy() for p in d["params"]]
    net = NumpyMLP(d["X"], d["T"], params)
    update = _numpy_update(params, d)

    def step():
        loss, grads = net.loss_and_grads()
        update(grads)
        return loss

    return Case(step, lambda: list(net.grads), lambda: params)


# ---------------------------------------------------------------------------------------------
# tapegrad and torch through nn: Sequential of Linear + Tanh, MSELoss, optim.SGD / optim.Adam
# ---------------------------------------------------------------------------------------------


def sequential(nn, sizes: list):
    """The same network in tapegrad and PyTorch (their nn namespaces share these names)."""
    layers = []
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(fan_in, fan_out))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


def tapegrad_model(d: dict):
    """(tapegrad, the network with the workload's weights, its parameter list)."""
    import tapegrad as tg

    net = sequential(tg.nn, _sizes(d))
    params = list(net.parameters())
    for p, v in zip(params, d["params"]):
        p.set_data(v)
    return tg, net, params


def torch_model(d: dict):
    """(torch, the network with the workload's weights, its parameter list)."""
    torch = torch_one_thread()
    net = sequential(torch.nn, _sizes(d))
    params = list(net.parameters())
    with torch.no_grad():
        for p, v in zip(params, d["params"]):
            p.copy_(torch.from_numpy(v))
    return torch, net, params


def _optimizer(optim, params: list, d: dict):
    if d["optimizer"] == "adam":
        return optim.Adam(params, lr=d["lr"])
    return optim.SGD(params, lr=d["lr"])


def _module_step_case(lib, net, params: list, d: dict) -> Case:
    """PyTorch's training step, identical in tapegrad and torch."""
    opt = _optimizer(lib.optim, params, d)
    loss_fn = lib.nn.MSELoss()
    X, T = lib.tensor(d["X"]), lib.tensor(d["T"])

    def step():
        opt.zero_grad()
        loss = loss_fn(net(X), T)
        loss.backward()
        opt.step()
        return loss

    return Case(
        step,
        lambda: [p.grad.numpy() for p in params],
        lambda: [p.detach().numpy() for p in params],
    )


def mlp_tapegrad(d: dict) -> Case:
    tg, net, params = tapegrad_model(d)
    return _module_step_case(tg, net, params, d)


def mlp_torch(d: dict) -> Case:
    torch, net, params = torch_model(d)
    return _module_step_case(torch, net, params, d)


def mlp_tapegrad_fn(d: dict) -> Case:
    """The functional path: value_and_grad over the weights, then opt.step(grads)."""
    tg, net, params = tapegrad_model(d)
    opt = _optimizer(tg.optim, params, d)
    loss_fn = tg.nn.MSELoss()
    X, T = tg.tensor(d["X"]), tg.tensor(d["T"])

    def forward(x, t):
        return loss_fn(net(x), t)

    grad_fn = tg.value_and_grad(forward, None, weights=net.trainable_params())
    out: list = []

    def step():
        loss, grads = grad_fn(X, T)
        opt.step(grads)
        out[:] = grads
        return loss

    return Case(step, lambda: [g.numpy() for g in out], lambda: [p.numpy() for p in params])


def mlp_tapegrad_ms(d: dict) -> Case:
    """MindSpore's idiom: a Cell of Dense layers with their activation, value_and_grad,
    optimizer(grads)."""
    import tapegrad as tg

    nn, sizes = tg.nn, _sizes(d)
    last = len(sizes) - 2

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.body = nn.SequentialCell(
                [
                    nn.Dense(a, b, activation="tanh" if i < last else None)
                    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:]))
                ]
            )

        def construct(self, x):
            return self.body(x)

    net = Net()
    params = net.trainable_params()
    for p, v in zip(params, d["params"]):
        p.set_data(v)
    optimizer = _optimizer(tg.optim, params, d)
    loss_fn = nn.MSELoss()
    X, T = tg.tensor(d["X"]), tg.tensor(d["T"])

    def forward_fn(x, t):
        return loss_fn(net(x), t)

    grad_fn = tg.value_and_grad(forward_fn, None, params)
    out: list = []

    def step():
        loss, grads = grad_fn(X, T)
        optimizer(grads)
        out[:] = grads
        return loss

    return Case(step, lambda: [g.numpy() for g in out], lambda: [p.numpy() for p in params])


# ---------------------------------------------------------------------------------------------
# raw tensors (operators only, hand-written SGD) and HIPS autograd
# ---------------------------------------------------------------------------------------------


def raw_mlp_loss(X, T, params):
    """The same loss in tapegrad and PyTorch from operators and methods both share."""
    h = X
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = h @ params[2 * i].T + params[2 * i + 1]
        if i < n_layers - 1:
            h = h.tanh()
    diff = h - T
    return (diff * diff).mean()


def mlp_tapegrad_raw(d: dict) -> Case:
    import tapegrad as tg

    X, T, lr = tg.tensor(d["X"]), tg.tensor(d["T"]), d["lr"]
    params = [tg.tensor(p.copy(), requires_grad=True) for p in d["params"]]
    out: list = []

    def step():
        loss = raw_mlp_loss(X, T, params)
        loss.backward()
        grads = [p.grad for p in params]
        with tg.no_grad():
            for p, g in zip(params, grads):
                p -= lr * g
                p.grad = None
        out[:] = grads
        return loss

    return Case(step, lambda: [g.numpy() for g in out], lambda: [p.numpy() for p in params])


def autograd_mlp_loss(params, X, T):
    import autograd.numpy as anp

    h = X
    n_layers = len(params) // 2
    for i in range(n_layers):
        h = anp.dot(h, params[2 * i].T) + params[2 * i + 1]
        if i < n_layers - 1:
            h = anp.tanh(h)
    diff = h - T
    return anp.mean(diff * diff)


def mlp_autograd(d: dict) -> Case:
    import autograd

    X, T, lr = d["X"], d["T"], d["lr"]
    df = autograd.grad(autograd_mlp_loss)
    state = {"params": [p.copy() for p in d["params"]], "grads": []}

    def step():
        params = state["params"]
        grads = df(params, X, T)
        state["params"] = [p - lr * g for p, g in zip(params, grads)]
        state["grads"] = grads

    return Case(
        step, lambda: [np.asarray(g) for g in state["grads"]], lambda: list(state["params"])
    )


SGD_ARMS: ArmTable = {
    "numpy": mlp_numpy,
    "tapegrad": mlp_tapegrad,
    "tapegrad_fn": mlp_tapegrad_fn,
    "tapegrad_ms": mlp_tapegrad_ms,
    "tapegrad_raw": mlp_tapegrad_raw,
    "torch": mlp_torch,
    "autograd": mlp_autograd,
}
ADAM_ARMS: ArmTable = {
    "numpy": mlp_numpy,
    "tapegrad": mlp_tapegrad,
    "tapegrad_fn": mlp_tapegrad_fn,
    "torch": mlp_torch,
}
