"""tapegrad: reverse-mode autodiff you can read, on NumPy.

    import tapegrad as tg
    x = tg.tensor([1.0, 2.0], requires_grad=True)
    (x * x).sum().backward()      # PyTorch style: x.grad == [2, 4]
    tg.grad(lambda x: (x * x).sum())(x)   # MindSpore/JAX style

Layer L6: re-exports only, and one call: glibc's malloc keeps freed memory for the next step
(_malloc.py says why; TAPEGRAD_MALLOC=system opts out). See DESIGN.md for the layers.
"""

from __future__ import annotations

from . import autograd, dtype, dtypes
from .creation import (
    arange,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from .devices import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    device,
    layout,
    memory_format,
    preserve_format,
    strided,
)
from .histograms import histogram
from .random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .random import numpy_generator as generator  # (the NumPy generator behind the default one)
from .sampling import (
    bernoulli,
    multinomial,
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from .dtypes import bool_, double, float16, float32, float64, half, int8, int16, int32, int64, uint8
from .dtypes import float_ as float, int_ as int, long  # PyTorch's aliases: tg.float is float32
from .math import (
    abs,
    add,
    allclose,
    amax,
    amin,
    argmax,
    argmin,
    broadcast_to,
    cat,
    clamp,
    clip,
    concatenate,
    cos,
    div,
    dot,
    exp,
    expand,
    expand_dims,
    flatten,
    isfinite,
    log,
    log1p,
    expm1,
    log_softmax,
    logsumexp,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mul,
    neg,
    permute,
    pow,
    prod,
    relu,
    reshape,
    sigmoid,
    sign,
    sin,
    softmax,
    split,
    sqrt,
    square,
    squeeze,
    stack,
    std,
    sub,
    sum,
    tan,
    tanh,
    transpose,
    unsqueeze,
    var,
    where,
)
from .math import (  # PyTorch's further names (their in-place forms too)
    abs_,
    argsort,
    ceil,
    ceil_,
    clamp_,
    clip_,
    cos_,
    cumsum,
    diag,
    einsum,
    erf,
    erf_,
    exp_,
    expm1_,
    flip,
    floor,
    floor_,
    frac,
    frac_,
    gather,
    log1p_,
    log_,
    masked_fill,
    neg_,
    norm,
    outer,
    reciprocal,
    relu_,
    round,
    round_,
    sigmoid_,
    sin_,
    sort,
    sqrt_,
    square_,
    t,
    tan_,
    tanh_,
    tile,
    topk,
    trace,
    tril,
    triu,
    trunc,
    trunc_,
)
from .math import (  # and more: rsqrt, cumprod, narrow, unbind, mm, bmm, reciprocal_
    bmm,
    cumprod,
    mm,
    narrow,
    reciprocal_,
    rsqrt,
    rsqrt_,
    unbind,
)
from . import _malloc
from ._state import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .tensor import Tensor
from .tensor.printing import get_printoptions, set_printoptions

from . import functional, nn, optim, amp, viz, explain as _explain_module, ops  # noqa: E402
from . import utils  # noqa: E402
from . import backends, cuda  # noqa: E402
from .functional import (
    GradientTape,
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    stop_gradient,  # noqa: E402
    value_and_grad,
    vjp,
)
from .explain import explain  # noqa: E402
from .interop import from_dlpack  # noqa: E402
from .nn import Parameter  # noqa: E402
from .serialization import load, save  # noqa: E402
from .mindspore_compat import (  # noqa: E402
    GRAPH_MODE,
    PYNATIVE_MODE,
    ParameterTuple,
    get_context,
    set_context,
)

__version__ = "0.1.0"

_malloc.keep_freed_memory()  # (a training step re-allocates what it freed: no page faults)
