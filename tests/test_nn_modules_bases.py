"""tg.nn.modules' base classes (_DropoutNd, _AvgPoolNd, _AdaptiveAvgPoolNd, _AdaptiveMaxPoolNd,
the padding bases, _NormBase, _LazyNormBase, LazyModuleMixin, ...) and
tg.optim.lr_scheduler._LRScheduler: isinstance answers equal to PyTorch's for every class of
torch.nn.modules.__all__ that tapegrad has, walked off torch's classes' __mro__."""

from __future__ import annotations

import pytest

import tapegrad as tg
from tapegrad.nn import modules

# Layers of each family and the bases they must (True) or must not (False) be instances of,
# checked without torch
FAMILIES = [
    (lambda: tg.nn.Dropout(0.1), modules.dropout._DropoutNd, True),
    (lambda: tg.nn.Dropout2d(0.1), modules.dropout._DropoutNd, True),
    (lambda: tg.nn.Dropout2d(0.1), tg.nn.Dropout, False),
    (lambda: tg.nn.AlphaDropout(0.1), tg.nn.Dropout, False),
    (lambda: tg.nn.FeatureAlphaDropout(0.1), modules.dropout._DropoutNd, True),
    (lambda: tg.nn.AvgPool1d(2), modules.pooling._AvgPoolNd, True),
    (lambda: tg.nn.AvgPool3d(2), modules.pooling._AvgPoolNd, True),
    (lambda: tg.nn.AdaptiveAvgPool2d(1), modules.pooling._AdaptiveAvgPoolNd, True),
    (lambda: tg.nn.AdaptiveAvgPool1d(1), modules.pooling._AdaptiveMaxPoolNd, False),
    (lambda: tg.nn.AdaptiveMaxPool2d(1), modules.pooling._AdaptiveMaxPoolNd, True),
    (lambda: tg.nn.AdaptiveMaxPool3d(1), modules.pooling._AdaptiveAvgPoolNd, False),
    (lambda: tg.nn.ReflectionPad2d(1), modules.padding._ReflectionPadNd, True),
    (lambda: tg.nn.ReflectionPad2d(1), modules.padding._ReplicationPadNd, False),
    (lambda: tg.nn.ReplicationPad1d(1), modules.padding._ReplicationPadNd, True),
    (lambda: tg.nn.CircularPad3d(1), modules.padding._CircularPadNd, True),
    (lambda: tg.nn.ZeroPad2d(1), modules.padding._ConstantPadNd, True),
    (lambda: tg.nn.ZeroPad2d(1), modules.padding._CircularPadNd, False),
    (lambda: tg.nn.InstanceNorm1d(3), modules.batchnorm._NormBase, True),
    (lambda: tg.nn.InstanceNorm1d(3), modules.batchnorm._BatchNorm, False),
    (lambda: tg.nn.BatchNorm2d(3), modules.instancenorm._InstanceNorm, False),
    (lambda: tg.nn.LazyBatchNorm1d(), tg.nn.BatchNorm1d, False),
    (lambda: tg.nn.LazyBatchNorm1d(), modules.batchnorm._BatchNorm, True),
    (lambda: tg.nn.LazyInstanceNorm2d(), modules.batchnorm._LazyNormBase, True),
    (lambda: tg.nn.LazyInstanceNorm2d(), modules.instancenorm._InstanceNorm, True),
    (lambda: tg.nn.LazyLinear(3), modules.lazy.LazyModuleMixin, True),
    (lambda: tg.nn.LazyConvTranspose2d(3, 2), modules.conv._LazyConvXdMixin, True),
    (lambda: tg.nn.BCEWithLogitsLoss(), modules.loss._WeightedLoss, False),
    (lambda: tg.nn.MultiMarginLoss(), modules.loss._WeightedLoss, True),
    (lambda: tg.nn.MaxUnpool2d(2), modules.pooling._MaxUnpoolNd, True),
    (lambda: tg.nn.LPPool1d(2, 2), modules.pooling._LPPoolNd, True),
]


@pytest.mark.parametrize("case", range(len(FAMILIES)))
def test_family_bases(case):
    layer, base, expected = FAMILIES[case]
    assert isinstance(layer(), base) is expected


def _torch_catalog():
    """(torch's class, tapegrad's class) for every name of torch.nn.modules.__all__ tapegrad has,
    and every torch.nn class in their __mro__s with tapegrad's class of that name (None: none)."""
    torch = pytest.importorskip("torch", reason="walks PyTorch's own classes")
    pairs = [
        (getattr(torch.nn.modules, name), getattr(tg.nn, name))
        for name in torch.nn.modules.__all__
        if hasattr(tg.nn, name)
    ]
    bases = {}
    for theirs, _ in pairs:
        for base in theirs.__mro__:
            if base.__module__.startswith("torch.nn.modules."):
                submodule = getattr(modules, base.__module__.rpartition(".")[2], None)
                bases[base] = getattr(submodule, base.__name__, None)
    return pairs, bases


def test_every_base_of_pytorchs_layers_is_named():
    pairs, bases = _torch_catalog()
    assert len(pairs) > 130  # (tapegrad has nearly every layer)
    missing = sorted(f"{b.__module__}.{b.__name__}" for b, ours in bases.items() if ours is None)
    assert not missing, f"tg.nn.modules lacks {missing}"


def test_isinstance_answers_are_pytorchs_for_every_layer_and_base():
    pairs, bases = _torch_catalog()
    wrong = [
        f"{theirs.__name__} vs {base.__name__}: torch {issubclass(theirs, base)}"
        for theirs, ours in pairs
        for base, our_base in bases.items()
        if our_base is not None and issubclass(ours, our_base) != issubclass(theirs, base)
    ]
    assert not wrong, wrong


def test_lazy_norms_become_their_class_after_the_first_call():
    torch = pytest.importorskip("torch", reason="compares with PyTorch's lazy norm")
    ours, theirs = tg.nn.LazyBatchNorm2d(), torch.nn.LazyBatchNorm2d()
    assert isinstance(ours, tg.nn.BatchNorm2d) is isinstance(theirs, torch.nn.BatchNorm2d)
    ours(tg.ones(2, 3, 4, 4))
    theirs(torch.ones(2, 3, 4, 4))
    assert type(ours) is tg.nn.BatchNorm2d and type(theirs) is torch.nn.BatchNorm2d
    assert ours.num_features == theirs.num_features == 3
    inst = tg.nn.LazyInstanceNorm1d()
    assert inst(tg.randn(2, 3, 5)).shape == (2, 3, 5) and type(inst) is tg.nn.InstanceNorm1d


def test_lr_scheduler_old_base_is_a_subclass_for_custom_schedules():
    torch = pytest.importorskip("torch", reason="compares with PyTorch's schedule")
    old = tg.optim.lr_scheduler._LRScheduler
    assert issubclass(old, tg.optim.lr_scheduler.LRScheduler)
    assert not issubclass(tg.optim.lr_scheduler.StepLR, old)
    assert issubclass(torch.optim.lr_scheduler._LRScheduler, torch.optim.lr_scheduler.LRScheduler)

    def run(lib):
        class Halving(lib.optim.lr_scheduler._LRScheduler):
            def get_lr(self):
                return [lr * 0.5**self.last_epoch for lr in self.base_lrs]

        opt = lib.optim.SGD([lib.nn.Parameter(lib.ones(2))], lr=1.0)
        sched = Halving(opt)
        lrs = []
        for _ in range(4):
            opt.step()
            sched.step()
            lrs.append(sched.get_last_lr()[0])
        return lrs

    assert run(tg) == run(torch) == [0.5, 0.25, 0.125, 0.0625]


def test_modules_utils_helpers_as_pytorchs():
    torch = pytest.importorskip("torch", reason="compares with PyTorch's helpers")
    from torch.nn.modules import utils as theirs

    from tapegrad.nn.modules import utils as ours

    for name in ("_single", "_pair", "_triple", "_quadruple"):
        for value in (3, (1, 2), [4], "ab", 2.5):
            assert getattr(ours, name)(value) == getattr(theirs, name)(value), (name, value)
        assert getattr(ours, name).__name__ == getattr(theirs, name).__name__
    assert ours._ntuple(5)(0) == theirs._ntuple(5)(0) == (0,) * 5
    assert ours._reverse_repeat_tuple((1, 2, 3), 2) == theirs._reverse_repeat_tuple((1, 2, 3), 2)
    assert ours._list_with_default([None, 3], [8, 5, 7]) == [5, 3]
    assert ours._list_with_default(4, [8]) == theirs._list_with_default(4, [8]) == 4
    with pytest.raises(ValueError, match="at least 3"):
        ours._list_with_default([None, 3], [7])
    with pytest.raises(ValueError, match="at least 3"):
        theirs._list_with_default([None, 3], [7])
    model = torch.nn.DataParallel(torch.nn.Linear(2, 1))
    sd_theirs = model.state_dict()
    theirs.consume_prefix_in_state_dict_if_present(sd_theirs, "module.")
    sd_ours = tg.nn.DataParallel(tg.nn.Linear(2, 1)).state_dict()
    ours.consume_prefix_in_state_dict_if_present(sd_ours, "module.")
    assert list(sd_ours) == list(sd_theirs) == ["weight", "bias"]
    tg.nn.Linear(2, 1).load_state_dict(sd_ours)
