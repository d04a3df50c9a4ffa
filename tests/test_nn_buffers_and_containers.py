"""Module buffers (register_buffer, buffers, named_buffers, state_dict, load_state_dict, to),
traversal (named_modules, children, apply) and the containers ModuleDict, ParameterList,
ParameterDict, against PyTorch's semantics."""

from __future__ import annotations

import numpy as np
import pytest

import tapegrad as tg

nn = tg.nn


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.bn = nn.BatchNorm1d(3)
        self.register_buffer("scale", tg.ones(1))
        self.register_buffer("scratch", tg.zeros(2), persistent=False)
        self.p = nn.Parameter(tg.zeros(1))
        self.heads = nn.ModuleDict({"b": nn.Linear(3, 1), "a": nn.Linear(3, 2)})
        self.extra = nn.ParameterList([tg.zeros(2), tg.ones(1)])


STATE_KEYS = [
    "p",
    "scale",
    "fc.weight",
    "fc.bias",
    "bn.weight",
    "bn.bias",
    "bn.running_mean",
    "bn.running_var",
    "bn.num_batches_tracked",
    "heads.b.weight",
    "heads.b.bias",
    "heads.a.weight",
    "heads.a.bias",
    "extra.0",
    "extra.1",
]


def test_buffers_are_listed_saved_and_loaded_in_pytorchs_order():
    net = Net()
    # per module, parents first: its parameters, then its persistent buffers (PyTorch's order)
    assert list(net.state_dict()) == STATE_KEYS
    assert [n for n, _ in net.named_buffers()] == [
        "scale",
        "scratch",
        "bn.running_mean",
        "bn.running_var",
        "bn.num_batches_tracked",
    ]
    assert [n for n, _ in net.named_buffers(prefix="net", recurse=False)] == [
        "net.scale",
        "net.scratch",
    ]
    assert len(list(net.buffers())) == 5 and "scale" not in dict(net.named_parameters())
    state = {k: v.numpy() + 1 for k, v in net.state_dict().items()}
    fresh = Net()
    fresh.load_state_dict(state)
    assert (
        fresh.bn.num_batches_tracked.item() == 1 and fresh.bn.num_batches_tracked.dtype == np.int64
    )
    assert np.array_equal(fresh.scale.numpy(), [2.0]) and np.array_equal(
        fresh.scratch.numpy(), [0.0, 0.0]
    )
    del state["bn.running_var"]
    with pytest.raises(RuntimeError, match=r"missing keys \['bn.running_var'\]"):
        Net().load_state_dict(state)
    result = Net().load_state_dict(state, strict=False)
    assert result.missing_keys == ["bn.running_var"]


def test_assignment_deletion_and_none_buffers():
    m = nn.Module()
    m.register_buffer("steps", tg.zeros(2))
    m.steps = tg.tensor([3.0, 4.0])  # assigning a Tensor to a buffer's name updates the buffer
    assert m.state_dict()["steps"].tolist() == [3.0, 4.0] and m._buffers["steps"] is m.steps
    with pytest.raises(TypeError, match="cannot assign a int to buffer 'steps'"):
        m.steps = 5
    m.steps = None
    assert m.steps is None and list(m.state_dict()) == [] and list(m.buffers()) == []
    m.register_buffer("steps", tg.ones(1))
    m.steps = nn.Parameter(tg.ones(1))  # a Parameter replaces the buffer, as in PyTorch
    assert list(m.buffers()) == [] and [n for n, _ in m.named_parameters()] == ["steps"]
    m.register_buffer("other", tg.ones(1), persistent=False)
    assert "other" not in m.state_dict()
    m.register_buffer("other", tg.ones(1))  # re-registering can make it persistent
    assert "other" in m.state_dict()
    del m.other
    assert list(m.buffers()) == []
    with pytest.raises(TypeError, match="buffer name should be a string"):
        m.register_buffer(3, tg.ones(1))
    with pytest.raises(KeyError, match="contain no '.'"):
        m.register_buffer("a.b", tg.ones(1))
    with pytest.raises(TypeError, match="a tapegrad Tensor or None is required"):
        m.register_buffer("arr", np.ones(1))
    m.plain = 1
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", tg.ones(1))

    class Early(nn.Module):
        def __init__(self) -> None:
            self.register_buffer("x", tg.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_to_casts_floating_buffers_and_keeps_integer_ones():
    net = Net()
    for cast, dtype in [(net.double, np.float64), (net.half, np.float16), (net.float, np.float32)]:
        cast()
        assert net.bn.running_mean.dtype == dtype and net.scale.dtype == dtype
        assert net.scratch.dtype == dtype and net.fc.weight.dtype == dtype
        assert net.bn.num_batches_tracked.dtype == np.int64
    net.to(tg.float64)
    out = net.bn(tg.randn(4, 3, dtype=tg.float64))
    assert out.dtype == np.float64 and net.bn.running_mean.dtype == np.float64


def test_traversal_follows_pytorch():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in seq.named_modules()] == ["", "0", "1"]
    assert [n for n, _ in seq.named_modules(remove_duplicate=False)] == ["", "0", "1", "2"]
    assert [n for n, _ in seq.named_modules(prefix="net")] == ["net", "net.0", "net.1"]
    assert [n for n, _ in seq.named_children()] == ["0", "1"] and len(list(seq.children())) == 2
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert [n for n, _ in seq.named_parameters(remove_duplicate=False)] == [
        "0.weight",
        "0.bias",
        "2.weight",
        "2.bias",
    ]
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]  # as PyTorch
    visited = []
    Net().apply(lambda m: visited.append(type(m).__name__))
    # children before their parent, each once
    assert visited == [
        "Linear",
        "BatchNorm1d",
        "Linear",
        "Linear",
        "ModuleDict",
        "ParameterList",
        "Net",
    ]
    with pytest.raises(KeyError, match="attribute 'keys' already exists"):
        nn.ModuleDict({"keys": nn.ReLU()})
    with pytest.raises(TypeError, match="module name should be a string"):
        nn.Module().add_module(1, nn.ReLU())


def test_module_dict():
    d = nn.ModuleDict([("b", nn.Linear(1, 1)), ("a", nn.ReLU())])
    assert list(d) == ["b", "a"] and list(d.keys()) == ["b", "a"] and len(d) == 2 and "a" in d
    d["c"] = nn.Tanh()
    d.update({"a": nn.Sigmoid(), "z": nn.Identity()})  # replacing keeps the key's place
    assert list(d) == ["b", "a", "c", "z"] and isinstance(d["a"], nn.Sigmoid)
    assert isinstance(d.pop("c"), nn.Tanh) and list(d) == ["b", "a", "z"]
    del d["z"]
    assert [n for n, _ in d.named_parameters()] == ["b.weight", "b.bias"]
    assert [type(v).__name__ for v in d.values()] == ["Linear", "Sigmoid"]
    d.clear()
    assert len(d) == 0
    with pytest.raises(ValueError, match="element #0 has length 3; 2 is required"):
        nn.ModuleDict([("a", nn.ReLU(), 1)])
    with pytest.raises(TypeError, match="update should be called with a mapping"):
        nn.ModuleDict(nn.ReLU())
    with pytest.raises(NotImplementedError, match="container"):
        nn.ModuleDict()(1)


def test_parameter_list_and_dict():
    plist = nn.ParameterList([tg.zeros(2), nn.Parameter(tg.ones(3), name="given")])
    plist.append(tg.ones(1))
    plist += [tg.zeros(4)]
    assert len(plist) == 4 and all(isinstance(p, nn.Parameter) for p in plist)
    assert [n for n, _ in plist.named_parameters()] == ["0", "1", "2", "3"]
    assert plist[-1].shape == (4,) and plist[1].name == "given"
    part = plist[1:3]
    assert isinstance(part, nn.ParameterList) and [p.shape for p in part] == [(3,), (1,)]
    assert part[0] is plist[1]
    plist[0] = tg.full((2,), 7.0)
    assert plist[0].tolist() == [7.0, 7.0] and plist[0].requires_grad
    with pytest.raises(IndexError, match="index 4 is out of range for length 4"):
        plist[4]
    with pytest.raises(TypeError, match="iterable"):
        plist.extend(tg.ones(2))
    with pytest.raises(RuntimeError, match="should not be called"):
        plist(1)
    assert repr(nn.ParameterList([tg.zeros(2, 3)])) == (
        "ParameterList(  (0): Parameter containing: [float32 of size 2x3])"  # (PyTorch's layout)
    )
    assert repr(nn.ParameterList([tg.zeros(2), tg.ones(1)])) == (
        "ParameterList(\n    (0): Parameter containing: [float32 of size 2]\n"
        "    (1): Parameter containing: [float32 of size 1]\n)"
    )
    pdict = nn.ParameterDict({"keys": tg.ones(1), "w": tg.zeros(2)})
    pdict["b"] = tg.ones(3)
    assert list(pdict) == ["keys", "w", "b"] and pdict["keys"].shape == (1,)
    assert [n for n, _ in pdict.named_parameters()] == ["keys", "w", "b"]
    assert pdict.get("missing") is None and "w" in pdict and len(pdict) == 3
    assert pdict.pop("w").shape == (2,) and list(pdict.keys()) == ["keys", "b"]
    with pytest.raises(TypeError, match="keys must be strings"):
        pdict[1] = tg.ones(1)

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.ParameterList([tg.ones(2)])
            self.table = nn.ParameterDict({"scale": tg.ones(1)})

    assert list(Model().state_dict()) == ["layers.0", "table.scale"]


def test_state_and_traversal_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch parity checks need torch")

    class TorchNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(2, 3)
            self.bn = torch.nn.BatchNorm1d(3)
            self.register_buffer("scale", torch.ones(1))
            self.register_buffer("scratch", torch.zeros(2), persistent=False)
            self.p = torch.nn.Parameter(torch.zeros(1))
            self.heads = torch.nn.ModuleDict(
                {"b": torch.nn.Linear(3, 1), "a": torch.nn.Linear(3, 2)}
            )
            self.extra = torch.nn.ParameterList([torch.zeros(2), torch.ones(1)])

    theirs, ours = TorchNet(), Net()
    assert list(theirs.state_dict()) == list(ours.state_dict()) == STATE_KEYS
    for method in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert [n for n, _ in getattr(theirs, method)()] == [n for n, _ in getattr(ours, method)()]
    visited_t, visited_o = [], []
    theirs.apply(lambda m: visited_t.append(type(m).__name__))
    ours.apply(lambda m: visited_o.append(type(m).__name__))
    assert [n.replace("TorchNet", "Net") for n in visited_t] == visited_o
    theirs.train()
    for _ in range(3):
        theirs.bn(torch.randn(8, 3) * 2 + 1)
    ours.load_state_dict({k: v.numpy() for k, v in theirs.state_dict().items()})
    theirs.eval()
    ours.eval()
    x = np.random.default_rng(0).standard_normal((4, 2)).astype(np.float32)
    with torch.no_grad():
        want = theirs.bn(theirs.fc(torch.tensor(x))).numpy()
    assert np.allclose(ours.bn(ours.fc(tg.tensor(x))).numpy(), want, atol=1e-6)
    back = {k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()}
    TorchNet().load_state_dict(back)  # and the arrays load back into PyTorch


def test_module_list_prints_a_run_of_alike_children_once_as_pytorch():
    blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU()])
    assert repr(blocks) == (
        "ModuleList(\n  (0-2): 3 x Linear(in_features=2, out_features=2, bias=True)\n"
        "  (3): ReLU()\n)"
    )
    assert repr(nn.ModuleList()) == "ModuleList()"
    torch = pytest.importorskip("torch")
    theirs = torch.nn.ModuleList(
        [torch.nn.Sequential(torch.nn.Tanh()), torch.nn.Sequential(torch.nn.Tanh())]
        + [torch.nn.Linear(2, 3), torch.nn.Linear(2, 2)]
    )
    ours = nn.ModuleList(
        [nn.Sequential(nn.Tanh()), nn.Sequential(nn.Tanh()), nn.Linear(2, 3), nn.Linear(2, 2)]
    )
    assert repr(ours) == repr(theirs)


def test_load_state_dict_result_prints_as_pytorch():
    net = nn.Linear(2, 2)
    assert repr(net.load_state_dict(net.state_dict())) == "<All keys matched successfully>"
    partial = net.load_state_dict({"weight": tg.zeros(2, 2)}, strict=False)
    assert partial.missing_keys == ["bias"] and partial.unexpected_keys == []
    assert str(partial) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])"
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Linear(2, 2)
    assert repr(theirs.load_state_dict({"weight": torch.zeros(2, 2)}, strict=False)) == str(partial)
    assert repr(theirs.load_state_dict(theirs.state_dict())) == repr(
        net.load_state_dict({k: v for k, v in net.state_dict().items()})
    )
