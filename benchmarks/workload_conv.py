"""Workloads conv_bn_16, conv_bn_32 and conv_dw: a convolution block as the middle of a CNN writes
it, `nn.Sequential(nn.Conv2d(C, C, 3, padding=1, bias=False), nn.BatchNorm2d(C), nn.ReLU())` in
training mode (the depthwise one with groups=C), forward and backward from an upstream gradient G,
the input's gradient included (a block inside a network passes it on). Imports cases.py and NumPy;
tapegrad and torch inside the builders.

The convolution has no bias, as ResNet's and torchvision's conv-BN blocks (BatchNorm's shift makes
it redundant). The NumPy arm is hand-written: per-sample columns and one batched GEMM per
direction for the dense conv, nine shifted multiply-adds for the depthwise one, batch norm's
backward in its closed form with the ReLU mask folded in.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from cases import ArmTable, F32, Case, torch_one_thread

EPS, MOMENTUM = 1e-5, 0.1


def conv_data(
    batch: int = 32, channels: int = 16, size: int = 32, groups: int = 1, seed: int = 0
) -> dict:
    """PyTorch's Conv2d init bound (U(-1/sqrt(fan_in), 1/sqrt(fan_in))); BatchNorm's affine made
    non-trivial (gamma U(0.5, 1.5), beta U(-0.5, 0.5)) so its gradients are checked for real."""
    rng = np.random.default_rng(seed)
    fan_in = channels // groups * 9
    bound = 1 / np.sqrt(fan_in)
    shape = (batch, channels, size, size)
    return {
        "X": rng.standard_normal(shape).astype(F32),
        "G": rng.standard_normal(shape).astype(F32),
        "W": rng.uniform(-bound, bound, (channels, channels // groups, 3, 3)).astype(F32),
        "gamma": rng.uniform(0.5, 1.5, channels).astype(F32),
        "beta": rng.uniform(-0.5, 0.5, channels).astype(F32),
        "groups": groups,
    }


# ---------------------------------------------------------------------------------------------
# numpy: hand-written forward and backward, buffers allocated once
# ---------------------------------------------------------------------------------------------


def _taps(xp: np.ndarray, h: int, w: int) -> np.ndarray:
    """The (N, C, 3, 3, H, W) view of padded xp: what each kernel tap reads (no copy)."""
    s = xp.strides
    n, c = xp.shape[:2]
    return as_strided(xp, (n, c, 3, 3, h, w), (s[0], s[1], s[2], s[3], s[2], s[3]))


class _BatchNormReLU:
    """Batch norm (batch statistics, running ones updated) and ReLU on (N, C, L) arrays; the
    backward in its closed form, dx = gamma * inv_std * (g - mean(g) - xhat * mean(g * xhat))."""

    def __init__(self, d: dict, shape: tuple) -> None:
        self.gamma, self.beta = d["gamma"], d["beta"]
        c = shape[1]
        self.running = [np.zeros(c), np.ones(c)]
        self.xhat = np.empty(shape, d["X"].dtype)
        self.count = shape[0] * shape[2]

    def forward(self, y: np.ndarray) -> np.ndarray:
        """y (N, C, L) -> relu(bn(y)), overwriting y; keeps xhat for the backward."""
        m = self.count
        mean = y.sum(axis=(0, 2)) / m
        xhat = np.subtract(y, mean[:, None], out=self.xhat)
        var = np.einsum("ncl,ncl->c", xhat, xhat) / m
        self.inv = 1 / np.sqrt(var + EPS)
        xhat *= self.inv[:, None]
        rm, rv = self.running
        rm *= 1 - MOMENTUM
        rm += MOMENTUM * mean
        rv *= 1 - MOMENTUM
        rv += MOMENTUM * var * (m / (m - 1))
        np.multiply(xhat, self.gamma[:, None], out=y)
        y += self.beta[:, None]
        return np.maximum(y, 0, out=y)

    def backward(self, g: np.ndarray, out: np.ndarray) -> tuple:
        """(dy, dgamma, dbeta) from the output's gradient g and the output `out` (ReLU's mask)."""
        gz = np.multiply(g, out > 0)
        dbeta = gz.sum(axis=(0, 2))
        dgamma = np.einsum("ncl,ncl->c", gz, self.xhat)
        m = self.count
        gz -= (dbeta / m)[:, None]
        gz -= self.xhat * (dgamma / m)[:, None]
        gz *= (self.gamma * self.inv)[:, None]
        return gz, dgamma, dbeta


def conv_numpy(d: dict) -> Case:
    """Dense 3x3 conv: per-sample columns (N, C*9, H*W) copied once from the padded input, one
    batched GEMM forward, one for the columns' gradient (then col2im: nine strided adds) and one
    for the weight's (summed over the batch)."""
    if d["groups"] != 1:
        return _depthwise_numpy(d)
    X, G, W = d["X"], d["G"], d["W"]
    n, c, h, w = X.shape
    o = W.shape[0]
    xp = np.zeros((n, c, h + 2, w + 2), X.dtype)
    cols = np.empty((n, c * 9, h * w), X.dtype)
    dxp = np.empty_like(xp)
    bn = _BatchNormReLU(d, (n, o, h * w))
    g = G.reshape(n, o, h * w)
    out: list = []

    def step():
        xp[:, :, 1:-1, 1:-1] = X  # (a new input each step, as inside a network)
        np.copyto(cols.reshape(n, c, 3, 3, h, w), _taps(xp, h, w))
        wm = W.reshape(o, c * 9)
        y = np.matmul(wm, cols)  # (N, O, H*W)
        z = bn.forward(y)
        dy, dgamma, dbeta = bn.backward(g, z)
        dw = np.matmul(dy, cols.transpose(0, 2, 1)).sum(axis=0).reshape(W.shape)
        dcols = np.matmul(wm.T, dy).reshape(n, c, 3, 3, h, w)
        dxp.fill(0)
        for i in range(3):
            for j in range(3):
                dxp[:, :, i : i + h, j : j + w] += dcols[:, :, i, j]
        out[:] = [dxp[:, :, 1:-1, 1:-1].copy(), dw, dgamma, dbeta]
        return z

    return Case(step, lambda: list(out))


def _depthwise_numpy(d: dict) -> Case:
    """Depthwise 3x3 conv (groups = channels): nine shifted multiply-adds each way, no columns;
    the weight's gradient as nine per-channel dot products."""
    X, G, W = d["X"], d["G"], d["W"]
    n, c, h, w = X.shape
    xp = np.zeros((n, c, h + 2, w + 2), X.dtype)
    dxp = np.empty_like(xp)
    y = np.empty((n, c, h, w), X.dtype)
    tmp = np.empty_like(y)
    bn = _BatchNormReLU(d, (n, c, h * w))
    g = G.reshape(n, c, h * w)
    taps = [(i, j) for i in range(3) for j in range(3)]
    out: list = []

    def step():
        xp[:, :, 1:-1, 1:-1] = X
        k = W.reshape(c, 9)
        np.multiply(xp[:, :, :h, :w], k[:, 0, None, None], out=y)
        for t, (i, j) in enumerate(taps[1:], 1):
            np.add(
                y, np.multiply(xp[:, :, i : i + h, j : j + w], k[:, t, None, None], out=tmp), out=y
            )
        z = bn.forward(y.reshape(n, c, h * w))
        dz, dgamma, dbeta = bn.backward(g, z)
        dy = dz.reshape(n, c, h, w)
        dw = np.empty((c, 9), X.dtype)
        dxp.fill(0)
        for t, (i, j) in enumerate(taps):
            dw[:, t] = np.einsum("nchw,nchw->c", dy, xp[:, :, i : i + h, j : j + w])
            dxp[:, :, i : i + h, j : j + w] += np.multiply(dy, k[:, t, None, None], out=tmp)
        out[:] = [dxp[:, :, 1:-1, 1:-1].copy(), dw.reshape(W.shape), dgamma, dbeta]
        return z

    return Case(step, lambda: list(out))


# ---------------------------------------------------------------------------------------------
# tapegrad and torch: the same module code
# ---------------------------------------------------------------------------------------------


def _block(nn, d: dict):
    c, groups = d["X"].shape[1], d["groups"]
    return nn.Sequential(
        nn.Conv2d(c, c, 3, padding=1, groups=groups, bias=False), nn.BatchNorm2d(c), nn.ReLU()
    )


def _module_case(lib, net, d: dict, set_weights) -> Case:
    conv, bn = net[0], net[1]
    set_weights(conv.weight, d["W"])
    set_weights(bn.weight, d["gamma"])
    set_weights(bn.bias, d["beta"])
    X = lib.tensor(d["X"], requires_grad=True)
    G = lib.tensor(d["G"])
    leaves = [X, conv.weight, bn.weight, bn.bias]

    def step():
        net.zero_grad()
        X.grad = None
        y = net(X)
        y.backward(G)
        return y

    return Case(step, lambda: [t.grad.numpy() for t in leaves])


def conv_tapegrad(d: dict) -> Case:
    import tapegrad as tg

    net = _block(tg.nn, d)
    return _module_case(tg, net, d, lambda p, v: p.set_data(v))


def conv_torch(d: dict) -> Case:
    torch = torch_one_thread()
    net = _block(torch.nn, d)

    def set_weights(p, v):
        with torch.no_grad():
            p.copy_(torch.from_numpy(v))

    return _module_case(torch, net, d, set_weights)


ARMS: ArmTable = {"numpy": conv_numpy, "tapegrad": conv_tapegrad, "torch": conv_torch}
