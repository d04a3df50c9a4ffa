"""tg.onnx: programs that import torch.onnx (pytorch/examples' word_language_model) run; exporting
is refused with a clear error, as tapegrad has no traced graph to write."""

from __future__ import annotations

import pytest

import tapegrad as tg


def test_export_is_refused_clearly():
    net = tg.nn.Linear(2, 1)
    with pytest.raises(tg.onnx.OnnxExporterError, match="cannot export models to ONNX"):
        tg.onnx.export(net, tg.ones(1, 2), "net.onnx")
    assert issubclass(tg.onnx.OnnxExporterError, RuntimeError)


def test_no_export_is_running():
    assert tg.onnx.is_in_onnx_export() is False
