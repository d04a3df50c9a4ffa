"""tg.nn: Parameter, Module/Cell, layers, losses, init, and the training helpers MindSpore keeps.

Layer L5: re-exports only (the code lives in parameter, module, containers, layers, activation,
activation_piecewise, normalization, sparse, losses, losses_margin, distance, the functional
modules, init, utils, amp, and optimizers: MindSpore's nn.SGD / nn.Momentum / nn.Adam).
"""

from __future__ import annotations

from ..amp import DynamicLossScaler, StaticLossScaler, all_finite, clip_by_global_norm
from . import functional, functional_conv, functional_pooling, init, parallel, utils
from .activation import CELU, ELU, GELU, GLU, SELU, LeakyReLU, LogSigmoid, LogSoftmax, Mish
from .activation import ReLU, Sigmoid, SiLU, Softmax, Softmax2d, Softmin, Softplus, Softsign
from .activation import Tanh, Tanhshrink
from .activation_piecewise import Hardshrink, Hardsigmoid, Hardswish, Hardtanh, PReLU, ReLU6
from .activation_piecewise import RReLU, Softshrink, Threshold
from .conv import Conv1d, Conv2d
from .containers import Container, ModuleDict, ParameterDict, ParameterList
from .distance import CosineSimilarity, PairwiseDistance
from .layers import Dense, Dropout, Flatten, Identity, Linear
from .functional_linear import LinearCrossEntropyOptions
from .parallel import DataParallel
from .losses import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    LinearCrossEntropyLoss,
    MSELoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
)
from .losses_margin import (
    CosineEmbeddingLoss,
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Cell, CellList, Module, ModuleList, Sequential, SequentialCell
from .normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm
from ..compat.mindspore_optimizers import SGD, Adam, Momentum
from .parameter import Buffer, Parameter
from .pooling import AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from .sparse import Embedding
from .utils import clip_grad_norm_

# ---- layers PyTorch has that real programs use (branch layers) ----
from .group_norms import GroupNorm, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .group_norms import LocalResponseNorm, RMSNorm
from .recurrent import GRU, LSTM, RNN, RNNBase
from .recurrent_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .dropouts import AlphaDropout, Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout
from .multihead_attention import MultiheadAttention
from .transformer import TransformerEncoder, TransformerEncoderLayer
from .resampling import PixelShuffle, PixelUnshuffle, Upsample, UpsamplingBilinear2d
from .resampling import UpsamplingNearest2d
from .shape_layers import CircularPad1d, CircularPad2d, CircularPad3d, ConstantPad1d
from .shape_layers import ConstantPad2d, ConstantPad3d, ReflectionPad1d, ReflectionPad2d
from .shape_layers import ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d
from .shape_layers import Unflatten, ZeroPad1d, ZeroPad2d, ZeroPad3d

# ---- PyTorch's layers, second batch (branch layers2) ----
from .pooling import AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d, AdaptiveMaxPool2d
from .pooling import AdaptiveMaxPool3d, MaxUnpool1d, MaxUnpool2d
from .bilinear import Bilinear
from .embedding_bag import EmbeddingBag
from .resampling import ChannelShuffle
from .fold import Fold, Unfold

# ---- PyTorch's layers, third batch (branch layers3) ----
from .pooling import LPPool1d, LPPool2d
from .conv import Conv3d
from .transformer_decoder import Transformer, TransformerDecoder, TransformerDecoderLayer

__all__ = [
    "Adam",
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "Conv1d",
    "Conv2d",
    "MaxPool1d",
    "MaxPool2d",
    "BCELoss",
    "BCEWithLogitsLoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "Cell",
    "CellList",
    "CrossEntropyLoss",
    "DataParallel",
    "Dense",
    "Dropout",
    "ELU",
    "DynamicLossScaler",
    "Embedding",
    "Flatten",
    "GELU",
    "HuberLoss",
    "Identity",
    "L1Loss",
    "LinearCrossEntropyLoss",
    "LinearCrossEntropyOptions",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSoftmax",
    "MSELoss",
    "Module",
    "Momentum",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "Parameter",
    "ParameterDict",
    "ParameterList",
    "ReLU",
    "SGD",
    "Sequential",
    "SequentialCell",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "StaticLossScaler",
    "Tanh",
    "all_finite",
    "clip_by_global_norm",
    "clip_grad_norm_",
    "functional",
    "functional_conv",
    "functional_pooling",
    "init",
    "parallel",
    "utils",
    "CELU",
    "GLU",
    "SELU",
    "LogSigmoid",
    "Mish",
    "Softmax2d",
    "Softmin",
    "Softsign",
    "Tanhshrink",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "PReLU",
    "ReLU6",
    "RReLU",
    "Softshrink",
    "Threshold",
    "CosineSimilarity",
    "PairwiseDistance",
    "GaussianNLLLoss",
    "KLDivLoss",
    "PoissonNLLLoss",
    "CosineEmbeddingLoss",
    "HingeEmbeddingLoss",
    "MarginRankingLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "RMSNorm",
    "LocalResponseNorm",
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNCell",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "PixelShuffle",
    "PixelUnshuffle",
    "Upsample",
    "UpsamplingBilinear2d",
    "UpsamplingNearest2d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "Unflatten",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "MultiheadAttention",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d",
    "Bilinear",
    "EmbeddingBag",
    "ChannelShuffle",
    "Fold",
    "Unfold",
    "Transformer",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "LPPool1d",
    "LPPool2d",
    "Conv3d",
]

# ---- the CTC loss (branch tidy2) ----
from .losses_ctc import CTCLoss  # noqa: E402

__all__ += ["CTCLoss"]

# ---- PyTorch's 3-D pooling family and ConvTranspose3d (branch layers4) ----
from .pooling import AvgPool3d, LPPool3d, MaxPool3d, MaxUnpool3d  # noqa: E402
from .conv_transpose import ConvTranspose3d  # noqa: E402

__all__ += ["AvgPool3d", "LPPool3d", "MaxPool3d", "MaxUnpool3d", "ConvTranspose3d"]

# ---- nn.Buffer, the recurrent base classes, Container, the distance triplet loss (misc2) ----
__all__ += ["Buffer", "Container", "RNNBase", "RNNCellBase", "TripletMarginWithDistanceLoss"]

# ---- lazy layers: the input size read off the first input (branch misc2) ----
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: E402
from .lazy import LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d  # noqa: E402
from .lazy import LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d  # noqa: E402
from .lazy import LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d  # noqa: E402
from .lazy import LazyInstanceNorm3d, LazyLinear  # noqa: E402

__all__ += ["UninitializedBuffer", "UninitializedParameter", "LazyBatchNorm1d", "LazyBatchNorm2d"]
__all__ += ["LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d"]
__all__ += ["LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d"]
__all__ += ["LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear"]

# ---- fractional max pooling (branch resample) ----
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402

__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]

# ---- PyTorch's names ModuleInfo samples and real programs use (branch nnmissing) ----
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
from .cross_map_lrn import CrossMapLRN2d  # noqa: E402
from .losses import NLLLoss2d  # noqa: E402
from .sync_batchnorm import SyncBatchNorm  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss", "CrossMapLRN2d", "NLLLoss2d", "SyncBatchNorm"]

# ---- PyTorch's torch.nn.modules layout (nn.modules.batchnorm._BatchNorm, ...) ----
from . import modules  # noqa: E402
