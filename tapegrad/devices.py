"""Where a tensor lives and how it is laid out: `tg.device`, `tg.strided`, the memory formats,
and the one check every factory runs on PyTorch's placement keywords (`device=`, `layout=`,
`pin_memory=`, `memory_format=`).

tapegrad computes with NumPy on the CPU, so the CPU is the only device and strided the only layout;
a memory format is accepted and changes nothing (every array is laid out as NumPy makes it).
Anything else is a clear error saying so, never a silent fallback.

Layer L0: standard library only.
"""

from __future__ import annotations

from typing import Any, Union

# The device types PyTorch knows: a tg.device of any of them can be made (as torch.device("cuda")
# can on a CPU-only PyTorch); only "cpu" can hold a tensor.
DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()


class device:
    """A device, as PyTorch's `torch.device`: `tg.device("cpu")`, `tg.device("cpu", 0)`.

    >>> tg.device("cpu").type
    'cpu'
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type: "str | device", index: int | None = None) -> None:
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(device) takes no index; pass device(type, index)")
            self._type, self._index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(
                f"device() takes a device type string such as 'cpu' (or 'cpu:0'), got "
                f"{type!r} ({type.__class__.__name__})"
            )
        name, _, number = type.partition(":")
        if name not in DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device "
                f"string: {type}"
            )
        if number:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed "
                    f"explicitly: {type}"
                )
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if index is not None and (
            isinstance(index, bool) or not isinstance(index, int) or index < 0
        ):
            raise RuntimeError(f"Device index must not be negative (an int >= 0), got {index!r}")
        self._type, self._index = name, index

    @property
    def type(self) -> str:
        """The device type: `"cpu"`, `"cuda"`, ..."""
        return self._type

    @property
    def index(self) -> int | None:
        """The device's number, or None when the string named none (`"cpu"`)."""
        return self._index

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __repr__(self) -> str:
        index = "" if self._index is None else f", index={self._index}"
        return f"device(type='{self._type}'{index})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, device):
            return NotImplemented
        return (self._type, self._index) == (other._type, other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self) -> tuple:
        return (device, (self._type, self._index))

    # `with tg.device("cpu"):` is PyTorch's way to set the default device of factories
    def __enter__(self) -> "device":
        check_device(self, "with tg.device(...)")
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


DeviceLike = Union[str, device, None]


def check_device(where: Any, who: str = "tapegrad") -> None:
    """Accept the CPU ("cpu", "cpu:0", tg.device("cpu"), a tensor's .device, None); anything else
    is a clear RuntimeError.

    >>> check_device("cpu")
    """
    if where is None:
        return
    if isinstance(where, bool) or isinstance(where, int):
        raise RuntimeError(
            f"{who}: device={where!r} names a CUDA device by number; tapegrad computes on the CPU "
            f"with NumPy (use device='cpu', or leave device= out)"
        )
    kind = where.type if isinstance(where, device) else device(str(where)).type
    if kind != "cpu":
        raise RuntimeError(
            f"{who}: device {str(where)!r} is not available; tapegrad computes on the CPU with "
            f"NumPy (use device='cpu', or leave device= out)"
        )


class layout:
    """A memory layout, as PyTorch's `torch.layout`: only `tg.strided` (dense arrays) exists here.

    >>> tg.strided
    tapegrad.strided
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"tapegrad.{self.name}"


strided = layout("strided")


class memory_format:
    """A memory format, as PyTorch's `torch.memory_format`: accepted by factories, no effect here
    (`tg.contiguous_format`, `tg.preserve_format`, `tg.channels_last`, `tg.channels_last_3d`).

    >>> tg.channels_last
    tapegrad.channels_last
    """

    __slots__ = ("name", "rank")

    def __init__(self, name: str, rank: int | None = None) -> None:
        self.name = name
        self.rank = rank  # the number of dimensions the format is made for (None: any)

    def __repr__(self) -> str:
        return f"tapegrad.{self.name}"


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last", 4)
channels_last_3d = memory_format("channels_last_3d", 5)
_MemoryFormat = memory_format  # (check_placement's keyword of the same name hides the class)


def check_placement(
    who: str,
    device: Any = None,
    layout: Any = None,
    pin_memory: bool | None = False,
    memory_format: Any = None,
    ndim: int | None = None,
) -> None:
    """The placement keywords a factory was given, checked as PyTorch does on a CPU-only build:
    the CPU, the strided layout, no pinned memory; a memory format suits the result's rank.

    >>> check_placement("zeros", device="cpu", layout=tg.strided)
    """
    check_device(device, who)
    if layout is not None and layout is not strided:
        raise RuntimeError(
            f"{who}: layout={layout!r} is not supported; tapegrad's tensors are dense NumPy "
            f"arrays (layout=tg.strided, the default)"
        )
    if pin_memory:
        raise RuntimeError(
            f"{who}: pin_memory=True requires a CUDA or other accelerator backend; tapegrad "
            f"computes on the CPU, where there is nothing to pin (leave pin_memory=False)"
        )
    if memory_format is not None:
        if not isinstance(memory_format, _MemoryFormat):
            raise TypeError(
                f"{who}: memory_format must be tg.contiguous_format, tg.preserve_format, "
                f"tg.channels_last or tg.channels_last_3d, got {memory_format!r}"
            )
        rank = memory_format.rank
        if rank is not None and ndim is not None and ndim != rank:
            raise RuntimeError(
                f"{who}: required rank {rank} tensor to use {memory_format.name} format, got "
                f"rank {ndim}"
            )


__all__ = [
    "DeviceLike",
    "channels_last",
    "channels_last_3d",
    "check_device",
    "check_placement",
    "contiguous_format",
    "device",
    "layout",
    "memory_format",
    "preserve_format",
    "strided",
]
