"""tg.onnx: PyTorch's torch.onnx names, so that programs importing it run; exporting is refused.

Layer L5: the standard library only. tapegrad records a tape per run and has no traced graph to
write as ONNX: `export` raises a clear error (a program reaches it only when asked to export),
and `is_in_onnx_export()` is False, as in PyTorch outside an export.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OnnxExporterError", "export", "is_in_onnx_export"]


class OnnxExporterError(RuntimeError):
    """Raised when an ONNX export cannot be done (always, in tapegrad)."""


def export(model: Any, args: Any = (), f: Any = None, *more: Any, **options: Any) -> None:
    """Refused: tapegrad cannot write ONNX (it has no traced graph).

    >>> tg.onnx.export(net, x, "net.onnx")  # doctest: +SKIP
    Traceback (most recent call last):
    tapegrad.onnx.OnnxExporterError: ...
    """
    raise OnnxExporterError(
        "tg.onnx.export: tapegrad cannot export models to ONNX (it records a tape per run, not a "
        "traced graph); save the weights with tg.save(model.state_dict(), path) instead"
    )


def is_in_onnx_export() -> bool:
    """Whether an ONNX export is running: never in tapegrad.

    >>> tg.onnx.is_in_onnx_export()
    False
    """
    return False
