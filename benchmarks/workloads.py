"""The benchmark's workloads: for each, its data, its sizes, the unit it is reported in, and its
arms (one builder per way of writing it: cases.ARMS). Imports the workload_*.py modules and
cases.py; nothing here times anything (run.py does).

The workloads themselves live in workload_ops.py (elementwise, chain), workload_mlp.py (the MLP
training steps), workload_hvp.py (Hessian-vector products: through nn.Linear, and on raw ops),
workload_cnn.py (the CNN step), workload_conv.py (conv + BatchNorm + ReLU blocks) and
workload_gpt.py (the GPT training steps, checked against PyTorch: they have no NumPy arm).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import workload_cnn
import workload_conv
import workload_gpt
import workload_hvp
import workload_mlp
import workload_ops
from cases import ARMS, LABELS, ArmTable, Case, arm_available

__all__ = ["ARMS", "BUILDERS", "DATA", "LABELS", "Case", "Workload", "arm_available", "workloads"]

DATA: dict[str, Callable[..., dict]] = {
    "elementwise": workload_ops.elementwise_data,
    "mlp_small": workload_mlp.mlp_data,
    "mlp_large": workload_mlp.mlp_data,
    "mlp_large_adam": workload_mlp.mlp_data,
    "chain": workload_ops.chain_data,
    "hvp": workload_mlp.mlp_data,
    "cnn": workload_cnn.cnn_data,
    "hvp_raw": workload_mlp.mlp_data,
    "conv_bn_16": workload_conv.conv_data,
    "conv_bn_32": workload_conv.conv_data,
    "conv_dw": workload_conv.conv_data,
    "gpt_nano": workload_gpt.gpt_data,
    "gpt_char": workload_gpt.gpt_data,
}

BUILDERS: dict[str, ArmTable] = {
    "elementwise": {
        "numpy": workload_ops.elementwise_numpy,
        "tapegrad": workload_ops.elementwise_tapegrad,
        "torch": workload_ops.elementwise_torch,
        "autograd": workload_ops.elementwise_autograd,
    },
    "mlp_small": workload_mlp.SGD_ARMS,
    "mlp_large": workload_mlp.SGD_ARMS,
    "mlp_large_adam": workload_mlp.ADAM_ARMS,
    "chain": {
        "numpy": workload_ops.chain_numpy,
        "tapegrad": workload_ops.chain_tapegrad,
        "torch": workload_ops.chain_torch,
        "autograd": workload_ops.chain_autograd,
    },
    "hvp": workload_hvp.ARMS,
    "cnn": workload_cnn.ARMS,
    "hvp_raw": workload_hvp.RAW_ARMS,
    "conv_bn_16": workload_conv.ARMS,
    "conv_bn_32": workload_conv.ARMS,
    "conv_dw": workload_conv.ARMS,
    "gpt_nano": workload_gpt.ARMS,
    "gpt_char": workload_gpt.ARMS,
}


@dataclass
class Workload:
    name: str
    title: str
    unit: str  # what one reported number is: "us/op", "ms/step", ...
    scale: float  # seconds per step -> reported unit
    per: int  # the step is divided by this (ops per step), 1 for whole steps
    params: dict = field(default_factory=dict)
    repeats: int = 61  # rounds: each times every arm once
    # the target length of one timed sample (back-to-back steps): short, so that the arms of a
    # round run close together in time and a busy spell of the machine hits them alike
    sample_seconds: float = 0.025

    def data(self) -> dict:
        return DATA[self.name](**self.params)

    def arms(self, available: list | tuple = ARMS) -> list:
        """This workload's arms among `available`, numpy (if it has one) first."""
        return [a for a in ARMS if a in BUILDERS[self.name] and a in available]

    def build(self, arm: str, data: dict) -> Case:
        return BUILDERS[self.name][arm](data)


def workloads(quick: bool = False) -> dict:
    """The timed workloads at the sizes of issues 6 and 17 (quick: a shorter chain, for a smoke
    run)."""
    chain_ops = 20_000 if quick else 100_000
    small, large = (32, 64, 64, 1), (784, 512, 512, 10)
    user = "nn.Sequential(Linear, Tanh), MSELoss"
    block = "Conv2d 3x3 (padding 1, no bias) + BatchNorm2d (training) + ReLU"
    gpt_step = "forward, zero_grad, backward, clip_grad_norm_(1.0), AdamW (2 groups)"
    return {
        w.name: w
        for w in [
            Workload(
                "elementwise",
                "1,000 small elementwise ops on (16,) f32 (sin, tanh, exp, mul, add), fwd+bwd",
                "us/op",
                1e6,
                1000,
                {"n_ops": 1000, "width": 16},
                61,
            ),
            Workload(
                "mlp_small",
                f"MLP 32-64-64-1 tanh, batch 16: {user}, SGD step",
                "us/step",
                1e6,
                1,
                {"sizes": small, "batch": 16},
                81,
            ),
            Workload(
                "mlp_large",
                f"MLP 784-512-512-10 tanh, batch 128: {user}, SGD step",
                "ms/step",
                1e3,
                1,
                {"sizes": large, "batch": 128},
                61,
            ),
            Workload(
                "mlp_large_adam",
                f"MLP 784-512-512-10 tanh, batch 128: {user}, Adam step",
                "ms/step",
                1e3,
                1,
                {"sizes": large, "batch": 128, "lr": 1e-3, "optimizer": "adam"},
                61,
            ),
            Workload(
                "chain",
                f"chain of {chain_ops:,} ops x = x*1.0001 + 0.0001 on (1,), fwd+bwd",
                "us/op",
                1e6,
                chain_ops,
                {"n_ops": chain_ops},
                9,
                1.0,
            ),
            Workload(
                "hvp",
                "Hessian-vector product, MLP 32-64-64-1 tanh, batch 16: autograd.grad("
                "create_graph=True), then grad of <grads, v>",
                "us/hvp",
                1e6,
                1,
                {"sizes": small, "batch": 16},
                81,
            ),
            Workload(
                "cnn",
                "LeNet-style CNN, batch 64, 1x28x28: nn modules, CrossEntropyLoss, SGD step",
                "ms/step",
                1e3,
                1,
                {"batch": 64, "size": 28},
                61,
            ),
            Workload(
                "hvp_raw",
                "Hessian-vector product, MLP 32-64-64-1 tanh, batch 16, on raw ops (X @ W.T + b, "
                "tanh, mean of squares) in every arm",
                "us/hvp",
                1e6,
                1,
                {"sizes": small, "batch": 16},
                81,
            ),
            Workload(
                "conv_bn_16",
                f"{block}, 16->16 on (32, 16, 32, 32), fwd+bwd",
                "ms/step",
                1e3,
                1,
                {"batch": 32, "channels": 16, "size": 32},
                41,
            ),
            Workload(
                "conv_bn_32",
                f"{block}, 32->32 on (32, 32, 16, 16), fwd+bwd",
                "ms/step",
                1e3,
                1,
                {"batch": 32, "channels": 32, "size": 16},
                41,
            ),
            Workload(
                "conv_dw",
                f"{block}, depthwise (groups 32) on (32, 32, 32, 32), fwd+bwd",
                "ms/step",
                1e3,
                1,
                {"batch": 32, "channels": 32, "size": 32, "groups": 32},
                41,
            ),
            Workload(
                "gpt_nano",
                "minGPT's adder GPT (3 layers, 3 heads, 48 wide, vocab 10, T = 6, batch 64; "
                f"masked_fill + softmax attention): {gpt_step}",
                "ms/step",
                1e3,
                1,
                {"model": "nano", "batch": 64, "lr": 5e-4, "betas": (0.9, 0.95)},
                41,
            ),
            Workload(
                "gpt_char",
                "nanoGPT's char GPT (4 layers, 4 heads, 128 wide, vocab 65, T = 64, batch 12, no "
                f"bias; F.scaled_dot_product_attention): {gpt_step}",
                "ms/step",
                1e3,
                1,
                {"model": "char", "batch": 12, "lr": 1e-3, "betas": (0.9, 0.99)},
                41,
            ),
        ]
    }
