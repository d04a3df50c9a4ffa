"""The Summary messages a SummaryWriter logs (scalar, histogram, image, text), encoded as
TensorBoard reads them, from tensors, arrays or numbers, and the PNG encoding images need.

Layer L5 (utils): numpy, zlib and event_file.py. Values arrive as tapegrad tensors, NumPy arrays or
Python numbers (anything NumPy can read), and are read off the tape.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any, Sequence

import numpy as np

from . import event_file as E


def as_array(value: Any) -> np.ndarray:
    """A tensor's (or array's, or number's) values as a NumPy array, off the tape.

    >>> as_array(tg.tensor([1.0, 2.0], requires_grad=True))
    array([1., 2.], dtype=float32)
    """
    if hasattr(value, "detach"):  # (a tensor, on the tape or not)
        value = value.detach()
        value = value.numpy() if hasattr(value, "numpy") else value
    return np.asarray(value)


def scalar(tag: str, value: Any) -> bytes:
    """A Summary of one number (TensorBoard's scalars dashboard).

    >>> len(scalar("loss", 0.5)) > 0
    True
    """
    values = as_array(value)
    if values.size != 1:
        raise ValueError(
            f"add_scalar: scalar_value for {tag!r} must be a single number, got "
            f"{values.size} values of shape {values.shape}; log each, or use add_histogram"
        )
    return E.summary_value(tag, E.float_field(2, float(values.reshape(()))))


def tensorflow_bins() -> np.ndarray:
    """TensorFlow's default histogram bucket edges, which PyTorch's writer uses too: 0 and +-1e-12
    growing by a factor 1.1 up to 1e20.

    >>> len(tensorflow_bins())
    1549
    """
    positive = 1e-12 * 1.1 ** np.arange(774)
    positive = positive[positive < 1e20]
    return np.concatenate([-positive[::-1], [0.0], positive])


def histogram(
    tag: str, values: Any, bins: Any = "tensorflow", max_bins: int | None = None
) -> bytes:
    """A Summary of a histogram of `values` (TensorBoard's histograms and distributions), with the
    empty buckets at either end left out.

    >>> len(histogram("w", np.arange(10.0))) > 0
    True
    """
    data = as_array(values).astype(np.float64).reshape(-1)
    if data.size == 0:
        raise ValueError(f"add_histogram: {tag!r} has no values to make a histogram of")
    if not np.isfinite(data).all():
        raise ValueError(f"add_histogram: {tag!r} holds NaN or infinite values")
    counts, edges = np.histogram(data, bins=tensorflow_bins() if bins == "tensorflow" else bins)
    if max_bins is not None and len(counts) > max_bins:  # (buckets merged, `factor` at a time)
        factor = -(-len(counts) // max_bins)
        padded = np.pad(counts, (0, -len(counts) % factor))
        counts = padded.reshape(-1, factor).sum(axis=1)
        edges = np.append(edges[:-1:factor], edges[-1])
    used = np.flatnonzero(counts)
    first, last = max(int(used[0]) - 1, 0), int(used[-1])  # (one empty bucket before the first)
    message = b"".join(
        [
            E.double_field(1, float(data.min())),
            E.double_field(2, float(data.max())),
            E.double_field(3, float(data.size)),
            E.double_field(4, float(data.sum())),
            E.double_field(5, float(data @ data)),
            E.packed_doubles(6, edges[first + 1 : last + 2].tolist()),  # (each bucket's right edge)
            E.packed_doubles(7, counts[first : last + 1].astype(np.float64).tolist()),
        ]
    )
    return E.summary_value(tag, E.bytes_field(5, message))


_LAYOUTS = {"CHW", "HWC", "HW", "WH", "NCHW", "NHWC"}


def to_hwc(values: np.ndarray, dataformats: str) -> np.ndarray:
    """An image (or a batch of them, laid out in a grid as PyTorch's writer does) as height x width
    x 3 or 4 channels; one channel is repeated as RGB.

    >>> to_hwc(np.zeros((1, 2, 3)), "CHW").shape
    (2, 3, 3)
    """
    layout = dataformats.upper()
    if layout not in _LAYOUTS or len(set(layout)) != len(layout) or values.ndim != len(layout):
        raise ValueError(
            f"dataformats {dataformats!r} does not fit an image of shape {values.shape}; use one "
            f"of {sorted(_LAYOUTS)} with as many letters as the image has axes"
        )
    if layout[0] == "N":
        return _grid(np.transpose(values, [layout.index(a) for a in "NCHW"]))
    if "C" not in layout:
        values, layout = values[..., None], layout + "C"
    hwc = np.transpose(values, [layout.index(a) for a in "HWC"])
    if hwc.shape[2] == 1:
        hwc = np.concatenate([hwc] * 3, axis=2)
    if hwc.shape[2] not in (3, 4):
        raise ValueError(f"an image has 1, 3 or 4 channels, got {hwc.shape[2]}")
    return hwc


def _grid(batch: np.ndarray) -> np.ndarray:
    """A batch (N, C, H, W) tiled into one image, 8 to a row at most (PyTorch's make_grid layout:
    as square as the count allows)."""
    n, c, h, w = batch.shape
    if c == 1:
        batch = np.concatenate([batch] * 3, axis=1)
    columns = min(n, 8)
    rows = -(-n // columns)
    canvas = np.zeros((batch.shape[1], rows * h, columns * w), batch.dtype)
    for i in range(n):
        r, k = divmod(i, columns)
        canvas[:, r * h : (r + 1) * h, k * w : (k + 1) * w] = batch[i]
    return to_hwc(canvas, "CHW")


def png(pixels: np.ndarray) -> bytes:
    """PNG bytes of an (H, W, 3 or 4) uint8 image (no filter, zlib-compressed rows).

    >>> png(np.zeros((1, 1, 3), np.uint8))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    height, width, channels = pixels.shape
    rows = np.concatenate([np.zeros((height, 1), np.uint8), pixels.reshape(height, -1)], axis=1)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    color_type = 2 if channels == 3 else 6  # RGB or RGBA, 8 bits each
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            chunk(b"IHDR", header),
            chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)),
            chunk(b"IEND", b""),
        ]
    )


def image(tag: str, values: Any, dataformats: str = "CHW") -> bytes:
    """A Summary of an image: floats are taken as [0, 1] and scaled to 0-255, uint8 as it is (as
    PyTorch's writer does).

    >>> len(image("x", np.zeros((3, 4, 4)))) > 0
    True
    """
    data = as_array(values)
    hwc = to_hwc(data, dataformats)
    scale = 1 if hwc.dtype == np.uint8 else 255
    pixels = np.clip(hwc.astype(np.float64) * scale, 0, 255).astype(np.uint8)
    height, width, channels = pixels.shape
    message = b"".join(
        [
            E.int_field(1, height),
            E.int_field(2, width),
            E.int_field(3, channels),
            E.bytes_field(4, png(pixels)),
        ]
    )
    return E.summary_value(tag, E.bytes_field(4, message))


def text(tag: str, text_string: str) -> bytes:
    """A Summary of a string (TensorBoard's text dashboard renders it as Markdown).

    >>> len(text("notes", "hello")) > 0
    True
    """
    dim = E.bytes_field(2, E.int_field(1, 1))  # (a tensor of shape [1])
    tensor = E.int_field(1, 7) + E.bytes_field(2, dim) + E.bytes_field(8, text_string)  # DT_STRING
    return E.summary_value(tag, E.bytes_field(8, tensor), E.plugin_metadata("text"))


def figure_pixels(figure: Any) -> np.ndarray:
    """A Matplotlib figure drawn into an (H, W, 4) uint8 array."""
    figure.canvas.draw()
    return np.asarray(figure.canvas.buffer_rgba()).copy()


def tag_for(main_tag: str, tag: str) -> str:
    """The directory add_scalars gives one curve: main_tag (slashes as underscores) and its tag."""
    return main_tag.replace("/", "_") + "_" + tag


__all__: Sequence[str] = []
