"""tg.backends, as `torch.backends` on a CPU-only PyTorch: the flags programs set or read before
training (`tg.backends.cuda.matmul.allow_tf32 = True`, `tg.backends.cudnn.allow_tf32`,
`tg.backends.mps.is_available()`), with PyTorch's defaults. Setting a flag is remembered and
changes nothing: tapegrad computes on the CPU with NumPy, in the dtype asked for.

Layer L0: standard library only.
"""

from __future__ import annotations


class _Flags:
    """A namespace of settable flags; a misspelled flag is an AttributeError, not a new one."""

    __slots__: tuple[str, ...] = ()

    def __repr__(self) -> str:
        flags = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"<{type(self).__name__} {flags}>"


class _Matmul(_Flags):
    """tg.backends.cuda.matmul: TensorFloat-32 and reduced-precision reductions (no effect here)."""

    __slots__ = (
        "allow_tf32",
        "allow_fp16_reduced_precision_reduction",
        "allow_bf16_reduced_precision_reduction",
    )

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


class _Cuda(_Flags):
    """tg.backends.cuda: `matmul` flags; CUDA itself is not built in."""

    __slots__ = ("matmul",)

    def __init__(self) -> None:
        self.matmul = _Matmul()

    @staticmethod
    def is_built() -> bool:
        """False: tapegrad is not built with CUDA.

        >>> tg.backends.cuda.is_built()
        False
        """
        return False


class _Cudnn(_Flags):
    """tg.backends.cudnn: cuDNN's flags, with PyTorch's defaults; cuDNN is not available."""

    __slots__ = ("enabled", "benchmark", "deterministic", "allow_tf32")

    def __init__(self) -> None:
        self.enabled = True
        self.benchmark = False
        self.deterministic = False
        self.allow_tf32 = True

    @staticmethod
    def is_available() -> bool:
        """False: there is no cuDNN.

        >>> tg.backends.cudnn.is_available()
        False
        """
        return False

    @staticmethod
    def version() -> None:
        """None: there is no cuDNN."""
        return None


class _Mps:
    """tg.backends.mps: Apple's Metal backend, neither built nor available."""

    @staticmethod
    def is_available() -> bool:
        """False: there is no MPS device.

        >>> tg.backends.mps.is_available()
        False
        """
        return False

    @staticmethod
    def is_built() -> bool:
        """False: tapegrad is not built with MPS."""
        return False


cuda = _Cuda()
cudnn = _Cudnn()
mps = _Mps()

__all__ = ["cuda", "cudnn", "mps"]
