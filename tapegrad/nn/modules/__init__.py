"""tg.nn.modules: PyTorch's torch.nn.modules layout (activation, batchnorm, conv, loss, rnn, ...),
so that programs naming classes by it run: `isinstance(m, nn.modules.batchnorm._BatchNorm)`,
`nn.modules.loss._Loss` as a base class, `torch.nn.modules.rnn.LSTM` in a safe-globals list.

Layer L5: tg.nn. Each submodule holds the classes PyTorch's holds that tapegrad has (the classes
themselves: they live where tapegrad defines them, by topic), and the base classes whose
isinstance answers match PyTorch's. `import tapegrad.nn.modules.rnn` works as well; utils.py is
PyTorch's torch.nn.modules.utils (_single, _pair, _triple, _ntuple, ...).
"""

from __future__ import annotations

import sys
import types

from .. import conv, conv_transpose, group_norms, layers, lazy, losses, module, multihead_attention
from .. import normalization, pooling, shape_layers

# PyTorch's submodules and their public classes (torch 2.13), by name; a name tapegrad lacks is
# left out of its submodule
_LAYOUT = {
    "activation": "CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU "
    "LogSigmoid LogSoftmax Mish MultiheadAttention PReLU RReLU ReLU ReLU6 SELU SiLU Sigmoid "
    "Softmax Softmax2d Softmin Softplus Softshrink Softsign Tanh Tanhshrink Threshold",
    "adaptive": "AdaptiveLogSoftmaxWithLoss",
    "batchnorm": "BatchNorm1d BatchNorm2d BatchNorm3d LazyBatchNorm1d LazyBatchNorm2d "
    "LazyBatchNorm3d SyncBatchNorm",
    "channelshuffle": "ChannelShuffle",
    "container": "Container ModuleDict ModuleList ParameterDict ParameterList Sequential",
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d "
    "LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d",
    "distance": "CosineSimilarity PairwiseDistance",
    "dropout": "AlphaDropout Dropout Dropout1d Dropout2d Dropout3d FeatureAlphaDropout",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
    "LazyInstanceNorm2d LazyInstanceNorm3d",
    "lazy": "LazyModuleMixin",
    "linear": "Bilinear Identity LazyLinear Linear",
    "loss": "BCELoss BCEWithLogitsLoss CTCLoss CosineEmbeddingLoss CrossEntropyLoss "
    "GaussianNLLLoss HingeEmbeddingLoss HuberLoss KLDivLoss L1Loss MSELoss MarginRankingLoss "
    "MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss NLLLoss2d "
    "PoissonNLLLoss SmoothL1Loss SoftMarginLoss TripletMarginLoss TripletMarginWithDistanceLoss "
    "LinearCrossEntropyLoss",
    "linear_cross_entropy_options": "LinearCrossEntropyOptions",
    "module": "Module",
    "normalization": "CrossMapLRN2d GroupNorm LayerNorm LocalResponseNorm RMSNorm",
    "padding": "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
    "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d "
    "ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d "
    "AdaptiveMaxPool2d AdaptiveMaxPool3d AvgPool1d AvgPool2d AvgPool3d FractionalMaxPool2d "
    "FractionalMaxPool3d LPPool1d LPPool2d LPPool3d MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d "
    "MaxUnpool2d MaxUnpool3d",
    "rnn": "GRU GRUCell LSTM LSTMCell RNN RNNBase RNNCell RNNCellBase",
    "sparse": "Embedding EmbeddingBag",
    "transformer": "Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder "
    "TransformerEncoderLayer",
    "upsampling": "Upsample UpsamplingBilinear2d UpsamplingNearest2d",
}

# PyTorch's base classes, where tapegrad's have the same subclasses (isinstance agrees; tested
# against torch's classes' __mro__ for every class of torch.nn.modules.__all__ tapegrad has)
_BASES: dict[str, dict[str, type]] = {
    "batchnorm": {
        "_BatchNorm": normalization._BatchNorm,
        "_NormBase": normalization._NormBase,
        "_LazyNormBase": lazy._LazyNormBase,
    },
    "conv": {
        "_ConvNd": conv._ConvBase,
        "_ConvTransposeNd": conv_transpose._ConvTransposeNd,
        "_LazyConvXdMixin": lazy._LazyConv,
    },
    "dropout": {"_DropoutNd": layers._DropoutNd},
    "instancenorm": {"_InstanceNorm": group_norms._InstanceNorm},
    "lazy": {"LazyModuleMixin": lazy.LazyModuleMixin},
    "loss": {"_Loss": losses._Loss, "_WeightedLoss": losses._WeightedLoss},
    "padding": {
        "_ConstantPadNd": shape_layers._ConstantPadNd,
        "_ReflectionPadNd": shape_layers._ReflectionPadNd,
        "_ReplicationPadNd": shape_layers._ReplicationPadNd,
        "_CircularPadNd": shape_layers._CircularPadNd,
    },
    "pooling": {
        "_MaxPoolNd": pooling._MaxPoolNd,
        "_AvgPoolNd": pooling._AvgPoolNd,
        "_AdaptiveAvgPoolNd": pooling._AdaptiveAvgPoolNd,
        "_AdaptiveMaxPoolNd": pooling._AdaptiveMaxPoolNd,
        "_LPPoolNd": pooling._LPPoolNd,
        "_MaxUnpoolNd": pooling._MaxUnpoolNd,
    },
    "module": {"Module": module.Module},
    "linear": {
        "Linear": layers.Linear,
        # (MultiheadAttention's out_proj: programs list it in their safe globals)
        "NonDynamicallyQuantizableLinear": multihead_attention.NonDynamicallyQuantizableLinear,
    },
}


class _Submodule(types.ModuleType):
    """tg.nn.modules.<name>: tg.nn's classes of PyTorch's submodule of that name, looked up in
    tg.nn when first read (so every layer tg.nn defines is found, whatever its import order)."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{__name__}.{name}", f"PyTorch's torch.nn.modules.{name} names.")
        self._names = frozenset(_LAYOUT[name].split())
        self._bases = _BASES.get(name, {})

    def __getattr__(self, attr: str) -> type:
        if attr in self._bases:
            return self._bases[attr]
        nn = sys.modules[__name__.rpartition(".")[0]]
        if attr in self._names and hasattr(nn, attr):
            return getattr(nn, attr)
        raise AttributeError(f"module {self.__name__!r} has no attribute {attr!r}")

    def __dir__(self) -> list[str]:
        nn = sys.modules[__name__.rpartition(".")[0]]
        return sorted({*self._bases, *(n for n in self._names if hasattr(nn, n))})


for _name in _LAYOUT:
    sys.modules[f"{__name__}.{_name}"] = globals()[_name] = _Submodule(_name)

from . import utils  # noqa: E402  (a module of its own: _pair, _triple, ... as PyTorch's)

__all__ = sorted([*_LAYOUT, "utils"])
