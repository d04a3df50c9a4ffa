"""tg.nn.modules: PyTorch's torch.nn.modules layout names tapegrad's own classes, so isinstance
checks against its base classes and safe-globals lists (pytorch/examples) run; and
tg.serialization's safe-globals functions (what tg.load does with them:
test_serialization_modules.py)."""

from __future__ import annotations

import importlib

import pytest

import tapegrad as tg
from tapegrad.nn import modules


def test_submodules_hold_tapegrads_classes():
    assert modules.rnn.LSTM is tg.nn.LSTM
    assert modules.batchnorm.BatchNorm2d is tg.nn.BatchNorm2d
    assert modules.loss.CrossEntropyLoss is tg.nn.CrossEntropyLoss
    assert modules.module.Module is tg.nn.Module
    assert importlib.import_module("tapegrad.nn.modules.conv").Conv2d is tg.nn.Conv2d
    assert "LSTM" in dir(modules.rnn) and "Linear" in dir(modules.linear)


@pytest.mark.parametrize(
    "layer, base, expected",
    [
        (lambda: tg.nn.BatchNorm1d(3), modules.batchnorm._BatchNorm, True),
        (lambda: tg.nn.InstanceNorm2d(3), modules.batchnorm._NormBase, True),
        (lambda: tg.nn.LayerNorm(3), modules.batchnorm._NormBase, False),
        (lambda: tg.nn.InstanceNorm1d(3), modules.instancenorm._InstanceNorm, True),
        (lambda: tg.nn.Conv2d(1, 1, 1), modules.conv._ConvNd, True),
        (lambda: tg.nn.ConvTranspose2d(1, 1, 1), modules.conv._ConvNd, True),
        (lambda: tg.nn.Conv2d(1, 1, 1), modules.conv._ConvTransposeNd, False),
        (lambda: tg.nn.MSELoss(), modules.loss._Loss, True),
        (lambda: tg.nn.NLLLoss(), modules.loss._WeightedLoss, True),
        (lambda: tg.nn.MSELoss(), modules.loss._WeightedLoss, False),
        (lambda: tg.nn.MaxPool2d(2), modules.pooling._MaxPoolNd, True),
    ],
)
def test_base_classes_answer_isinstance_as_pytorchs(layer, base, expected):
    assert isinstance(layer(), base) is expected


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="tapegrad.nn.modules.rnn"):
        modules.rnn.NoSuchLayer


def test_safe_globals_are_accepted_and_change_nothing(tmp_path):
    net = tg.nn.Linear(2, 1)
    path = str(tmp_path / "w.npz")
    tg.save(net.state_dict(), path)
    tg.serialization.clear_safe_globals()
    with tg.serialization.safe_globals([tg.nn.Linear, modules.rnn.LSTM]):
        assert tg.serialization.get_safe_globals() == [tg.nn.Linear, tg.nn.LSTM]
        loaded = tg.load(path)
    assert tg.serialization.get_safe_globals() == []
    tg.serialization.add_safe_globals([tg.nn.Linear])
    assert tg.serialization.get_safe_globals() == [tg.nn.Linear]
    tg.serialization.clear_safe_globals()
    assert set(loaded) == {"weight", "bias"}
