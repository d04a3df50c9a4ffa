"""tg.save / tg.load of whole nn.Modules (no pickle): the module tree comes back as it was saved
(forward, state_dict, parameter order, train/eval, shared parameters, plain attributes, hooks),
classes are rebuilt only when allowed (torch.load's weights_only=True), and what cannot be
stored is a clear error; checked against PyTorch where PyTorch defines the behaviour."""

from __future__ import annotations

import importlib
import io
import json
import pickle
import sys
import textwrap

import numpy as np
import pytest

import tapegrad as tg
import tapegrad.nn.functional as F
from tapegrad import nn


# ---- models (defined at the top level: tg.save stores their classes by name) ------------------
class TiedLM(nn.Module):
    """pytorch/examples' word_language_model RNNModel, in small."""

    def __init__(self, kind: str = "LSTM", ntoken: int = 11, nhid: int = 6) -> None:
        super().__init__()
        self.drop = nn.Dropout(0.25)
        self.encoder = nn.Embedding(ntoken, nhid)
        self.rnn = getattr(nn, kind)(nhid, nhid, 2, dropout=0.25)
        self.decoder = nn.Linear(nhid, ntoken)
        self.decoder.weight = self.encoder.weight  # weight tying
        self.rnn_type, self.nhid, self.ntoken = kind, nhid, ntoken

    def forward(self, input: tg.Tensor) -> tg.Tensor:
        output, _ = self.rnn(self.drop(self.encoder(input)))
        decoded = self.decoder(self.drop(output)).view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1)


class Attributes(nn.Module):
    """Plain attributes of each kind tg.save stores, a non-persistent buffer, a tensor attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.register_buffer("scale", tg.full((2,), 2.0), persistent=False)
        self.register_buffer("count", tg.zeros(1, dtype=tg.int64))
        self.mask = tg.tensor([[1.0, 0.0]])  # (a plain tensor attribute, as TransformerModel's)
        self.settings = {"n": 3, "eps": 1e-5, "names": ["a", "b"], "shape": (2, 3), "none": None}
        self.by_shape = {(2, 3): "a", (4, (5,)): None}
        self.flags = {"x", "y"}
        self.dtype, self.device, self.act = tg.float64, tg.device("cpu"), F.relu

    def forward(self, x: tg.Tensor) -> tg.Tensor:
        return self.act(self.fc(x)) * self.scale * self.mask + self.count


class UsesTanh(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.act = tg.tanh  # a tapegrad function outside tapegrad.nn: listed to be loaded


def double_output(module: nn.Module, args: tuple, output: tg.Tensor) -> tg.Tensor:
    return output * 2


def shift_input(module: nn.Module, args: tuple, kwargs: dict) -> tuple:
    return (args[0] + 1,), kwargs


def round_trip(obj, **load_kwargs):
    buffer = io.BytesIO()
    tg.save(obj, buffer)
    buffer.seek(0)
    return tg.load(buffer, **load_kwargs)


def saved(obj) -> io.BytesIO:
    buffer = io.BytesIO()
    tg.save(obj, buffer)
    buffer.seek(0)
    return buffer


# ---- the module tree comes back ---------------------------------------------------------------
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("training", [True, False])
def test_whole_model_forward_state_dict_order_and_mode(kind, training):
    tg.manual_seed(0)
    model = TiedLM(kind)
    model.train(training)
    with tg.serialization.safe_globals([TiedLM]):
        back = round_trip(model)
    assert type(back) is TiedLM and back is not model
    assert [m.training for m in back.modules()] == [training] * len(list(model.modules()))
    assert [n for n, _ in back.named_parameters()] == [n for n, _ in model.named_parameters()]
    mine, theirs = model.state_dict(), back.state_dict()
    assert list(theirs) == list(mine)
    for key in mine:
        assert theirs[key].dtype == mine[key].dtype
        np.testing.assert_array_equal(theirs[key].numpy(), mine[key].numpy())
    assert all(p.requires_grad for p in back.parameters())
    assert (back.rnn_type, back.nhid) == (kind, 6) and repr(back) == repr(model)
    x = tg.tensor([[1, 4], [7, 2], [3, 3]])
    tg.manual_seed(5)
    want = model(x).numpy()
    tg.manual_seed(5)  # (dropout draws the same numbers in training)
    np.testing.assert_array_equal(back(x).numpy(), want)


def test_loaded_model_trains_and_its_tied_weight_stays_one_parameter():
    tg.manual_seed(1)
    with tg.serialization.safe_globals([TiedLM]):
        back = round_trip(TiedLM())
    assert back.decoder.weight is back.encoder.weight
    assert back.decoder.weight.name == "encoder.weight"  # (the Parameter's dotted name kept)
    opt = tg.optim.SGD(back.parameters(), lr=0.5)
    before = back.encoder.weight.numpy().copy()
    back(tg.tensor([[1, 2]])).sum().backward()
    opt.step()
    assert not np.array_equal(back.encoder.weight.numpy(), before)
    assert back.decoder.weight is back.encoder.weight


def tied(lib):
    """Embedding, LSTM and Linear in a ModuleDict, the Linear's weight the Embedding's."""
    layers = lib.nn.ModuleDict(
        {
            "encoder": lib.nn.Embedding(11, 6),
            "rnn": lib.nn.LSTM(6, 6, 2, dropout=0.25),
            "decoder": lib.nn.Linear(6, 11),
        }
    )
    layers["decoder"].weight = layers["encoder"].weight
    return layers.eval()


def test_weight_tying_parameter_order_and_mode_match_pytorch():
    torch = pytest.importorskip("torch", reason="compares the loaded model with PyTorch's")
    buffer = io.BytesIO()
    torch.save(tied(torch), buffer)
    buffer.seek(0)
    classes = [torch.nn.ModuleDict, torch.nn.Embedding, torch.nn.LSTM, torch.nn.Linear]
    with torch.serialization.safe_globals(classes):
        theirs = torch.load(buffer)
    ours = round_trip(tied(tg))
    assert ours["decoder"].weight is ours["encoder"].weight
    assert theirs["decoder"].weight is theirs["encoder"].weight
    names = [n for n, _ in ours.named_parameters()]
    assert names == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [m.training for m in ours.modules()] == [m.training for m in theirs.modules()]


def test_plain_attributes_buffers_and_tensor_attributes():
    model = Attributes()
    model.count.add_(3)
    with tg.serialization.safe_globals([Attributes]):
        back = round_trip(model)
    assert back.settings == model.settings and isinstance(back.settings["shape"], tuple)
    assert back.by_shape == model.by_shape and list(back.by_shape) == [(2, 3), (4, (5,))]
    assert back.flags == {"x", "y"} and back.dtype == tg.float64 and back.act is F.relu
    assert isinstance(back.device, tg.device) and back.device == tg.device("cpu")
    assert [n for n, _ in back.named_buffers()] == ["scale", "count"]
    assert list(back.state_dict()) == ["count", "fc.weight", "fc.bias"]  # (scale not persistent)
    assert back.count.dtype == tg.int64 and back.count.item() == 3
    assert type(back.mask) is tg.Tensor and back.mask.tolist() == [[1.0, 0.0]]
    x = tg.randn(4, 3)
    np.testing.assert_array_equal(back(x).numpy(), model(x).numpy())


def test_transformer_with_its_activation_function_and_mask_attribute():
    tg.manual_seed(2)
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2).eval()
    encoder.src_mask = tg.log(tg.tril(tg.ones(5, 5)))  # (TransformerModel keeps its mask so)
    back = round_trip(encoder)  # tapegrad's own classes and tapegrad.nn's functions: no list
    assert back.layers[0].activation is F.relu and not back.training
    out_proj = back.layers[1].self_attn.out_proj  # (listed by its PyTorch name in the examples)
    assert type(out_proj) is nn.modules.linear.NonDynamicallyQuantizableLinear
    x = tg.randn(5, 3, 8)
    np.testing.assert_array_equal(
        back(x, mask=back.src_mask).numpy(), encoder(x, mask=encoder.src_mask).numpy()
    )


def test_modules_inside_containers_and_shared_modules():
    tg.manual_seed(3)
    shared = nn.Linear(2, 2)
    net = nn.Sequential(shared, nn.ReLU(), shared)
    opt = tg.optim.Adam(net.parameters(), lr=0.1)
    net(tg.ones(1, 2)).sum().backward()
    opt.step()
    back = round_trip({"model": net, "again": [net], "opt": opt.state_dict(), "epoch": 4})
    assert back["again"][0] is back["model"] and back["model"][0] is back["model"][2]
    assert back["epoch"] == 4 and list(back["opt"]) == ["state", "param_groups"]
    twin = tg.optim.Adam(back["model"].parameters(), lr=0.1)
    twin.load_state_dict(back["opt"])
    for model, o in ((net, opt), (back["model"], twin)):
        o.zero_grad()
        model(tg.ones(1, 2)).sum().backward()
        o.step()
    for a, b in zip(net.parameters(), back["model"].parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_map_location_and_file_paths(tmp_path):
    path = tmp_path / "model.pt"
    tg.save(nn.Linear(2, 1), path)
    for where in ("cpu", tg.device("cpu"), lambda storage, loc: storage, {"cuda:0": "cpu"}):
        assert isinstance(tg.load(path, map_location=where), nn.Linear)
    with pytest.raises(RuntimeError):
        tg.load(path, map_location="cuda")


def test_state_dict_files_stay_format_1_and_modules_make_format_2():
    def header(obj):
        with np.load(saved(obj), allow_pickle=False) as archive:
            return json.loads(str(archive["__tapegrad__"]))

    assert header(nn.Linear(2, 1).state_dict())["version"] == 1
    written = header({"net": nn.Linear(2, 1)})
    assert written["version"] == 2 and written["objects"][0]["class"] == [
        "tapegrad.nn.layers",
        "Linear",
    ]


# ---- which classes come back: torch.load(weights_only=True)'s rules ---------------------------
def test_a_class_not_allowed_is_pickles_error_naming_it():
    model = TiedLM()
    with pytest.raises(pickle.UnpicklingError, match=r"TiedLM.*add_safe_globals"):
        round_trip(model)
    with pytest.raises(pickle.UnpicklingError, match="TiedLM"):
        round_trip(model, weights_only=True)
    assert isinstance(round_trip(model, weights_only=False), TiedLM)
    tg.serialization.add_safe_globals([TiedLM])
    try:
        assert TiedLM in tg.serialization.get_safe_globals()
        assert isinstance(round_trip(model), TiedLM)
    finally:
        tg.serialization.clear_safe_globals()
    with tg.serialization.safe_globals([(TiedLM, f"{TiedLM.__module__}.TiedLM")]):
        assert isinstance(round_trip(model), TiedLM)
    with pytest.raises(pickle.UnpicklingError):  # (the context is over)
        round_trip(model)


def test_pytorch_raises_the_same_error_type():
    torch = pytest.importorskip("torch", reason="checks the error type PyTorch raises")
    buffer = io.BytesIO()
    torch.save(torch.nn.Linear(2, 1), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="add_safe_globals"):
        torch.load(buffer)


def test_functions_outside_tapegrad_nn_must_be_listed():
    model = UsesTanh()
    with tg.serialization.safe_globals([UsesTanh]):
        with pytest.raises(pickle.UnpicklingError, match=r"tapegrad\.math\.tanh"):
            round_trip(model)
        with tg.serialization.safe_globals([tg.tanh]):
            assert round_trip(model).act is tg.tanh


def test_get_unsafe_globals_in_checkpoint_lists_what_to_allow():
    model = UsesTanh()
    model.inner = TiedLM()
    here = UsesTanh.__module__
    want = [f"{here}.UsesTanh", f"{here}.TiedLM", "tapegrad.math.tanh"]  # (the order met)
    assert tg.serialization.get_unsafe_globals_in_checkpoint(saved(model)) == want
    with tg.serialization.safe_globals([TiedLM]):
        assert tg.serialization.get_unsafe_globals_in_checkpoint(saved(model)) == [
            want[0],
            want[2],
        ]
    assert tg.serialization.get_unsafe_globals_in_checkpoint(saved(tg.nn.LSTM(2, 3))) == []
    assert tg.serialization.get_unsafe_globals_in_checkpoint(saved({"w": tg.ones(2)})) == []


def test_pytorch_lists_unsafe_globals_the_same_way():
    torch = pytest.importorskip("torch", reason="checks PyTorch's get_unsafe_globals_in_checkpoint")
    buffer = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buffer)
    buffer.seek(0)
    assert torch.serialization.get_unsafe_globals_in_checkpoint(buffer) == []
    buffer = io.BytesIO()
    torch.save(torch.nn.Linear(2, 1), buffer)
    buffer.seek(0)
    with torch.serialization.safe_globals([torch.nn.Linear]):
        assert torch.serialization.get_unsafe_globals_in_checkpoint(buffer) == []


def test_a_refused_module_is_not_imported(tmp_path, monkeypatch):
    (tmp_path / "savemodule_probe.py").write_text(
        textwrap.dedent(
            """
            import tapegrad as tg
            IMPORTS = []
            IMPORTS.append(1)
            class Probe(tg.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = tg.nn.Linear(2, 2)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    probe = importlib.import_module("savemodule_probe")
    buffer = saved(probe.Probe())
    monkeypatch.delitem(sys.modules, "savemodule_probe")
    with pytest.raises(pickle.UnpicklingError, match="savemodule_probe.Probe"):
        tg.load(buffer)
    assert "savemodule_probe" not in sys.modules  # weights_only: nothing imported
    buffer.seek(0)
    back = tg.load(buffer, weights_only=False)  # imports the module the file names
    assert type(back).__name__ == "Probe" and sys.modules["savemodule_probe"].IMPORTS == [1]


def test_a_name_not_found_and_a_damaged_file_are_clear_errors():
    buffer = saved(nn.Linear(2, 1))
    with np.load(buffer, allow_pickle=False) as archive:
        entries = {k: archive[k] for k in archive.files}
    header = json.loads(str(entries["__tapegrad__"]))

    def load_with(objects):
        changed = {**header, "objects": objects}
        out = io.BytesIO()
        np.savez(out, **{**entries, "__tapegrad__": np.array(json.dumps(changed))})
        out.seek(0)
        return tg.load(out, weights_only=False)

    state = header["objects"][0]["state"]
    with pytest.raises(AttributeError, match="tapegrad.nn.layers.NoSuchLayer"):
        load_with([{"class": ["tapegrad.nn.layers", "NoSuchLayer"], "state": state}])
    relu = ["tapegrad.nn.functional_activation", "relu"]
    with pytest.raises(ValueError, match="not a tapegrad nn.Module class"):
        load_with([{"class": relu, "state": state}])
    with pytest.raises(ValueError, match="damaged"):
        load_with([{"class": "Linear", "state": state}])


# ---- what cannot be stored --------------------------------------------------------------------
def test_unsavable_attributes_name_their_path_and_what_to_do(tmp_path):
    model = nn.Sequential(nn.Linear(2, 2))
    model[0].callback = lambda x: x
    with pytest.raises(TypeError, match=r"obj\.0\.callback, \S*<lambda>.*state_dict\(\)") as info:
        tg.save(model, tmp_path / "m.pt")
    assert isinstance(info.value, (pickle.PicklingError, AttributeError))  # (PyTorch's: below)
    with open(tmp_path / "other.txt", "w") as f:
        model[0].callback = f
        with pytest.raises(TypeError, match=r"obj\.0\.callback, a TextIOWrapper.*state_dict"):
            tg.save(model, tmp_path / "m.pt")
    model[0].callback = tg.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(TypeError, match=r"obj\['model'\]\.0\.callback, a SGD"):
        tg.save({"model": model}, tmp_path / "m.pt")
    with pytest.raises(TypeError) as info:
        tg.save({"model": nn.Linear(2, 1), "x": object()}, tmp_path / "m.pt")
    assert "obj['x'], a object" in str(info.value) and "attribute" not in str(info.value)
    assert not (tmp_path / "m.pt").exists()


def test_unsavable_attributes_pytorch_error_types(tmp_path):
    torch = pytest.importorskip("torch", reason="checks the error types PyTorch raises")
    model = torch.nn.Linear(2, 2)
    model.callback = lambda x: x
    with pytest.raises((pickle.PicklingError, AttributeError)):  # (a local lambda: Python's
        torch.save(model, io.BytesIO())  # pickle raises AttributeError before 3.14)
    with open(tmp_path / "other.txt", "w") as f:
        model.callback = f
        with pytest.raises(TypeError):
            torch.save(model, io.BytesIO())


def test_hooks_are_saved_by_name_as_pytorch_pickles_them():
    layer = nn.Linear(2, 2)
    layer.register_forward_hook(double_output, always_call=True)
    layer.register_forward_pre_hook(shift_input, with_kwargs=True)
    with pytest.raises(pickle.UnpicklingError, match="shift_input"):
        round_trip(layer)  # (hook functions are globals to allow, as in PyTorch)
    with tg.serialization.safe_globals([double_output, shift_input]):
        back = round_trip(layer)
    x = tg.randn(3, 2)
    np.testing.assert_array_equal(back(x).numpy(), layer(x).numpy())
    np.testing.assert_allclose(
        back(x).numpy(),
        2 * (layer.weight @ (x + 1).T).T.numpy() + 2 * (layer.bias.numpy()),
        rtol=1e-6,
    )
    layer.register_forward_hook(lambda m, args, out: out)
    with pytest.raises(TypeError, match=r"obj's forward hook \S*<lambda>") as info:
        tg.save(layer, io.BytesIO())
    assert isinstance(info.value, pickle.PicklingError) and isinstance(info.value, AttributeError)


def test_pytorch_saves_hooks_by_name_and_refuses_lambdas():
    torch = pytest.importorskip("torch", reason="checks what PyTorch does with hooks")

    layer = torch.nn.Linear(2, 2)
    layer.register_forward_hook(torch.nn.functional.relu)  # (any global function: saved)
    buffer = io.BytesIO()
    torch.save(layer, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="relu"):
        with torch.serialization.safe_globals([torch.nn.Linear]):
            torch.load(buffer)
    layer.register_forward_hook(lambda m, args, out: out)
    with pytest.raises((pickle.PicklingError, AttributeError)):
        torch.save(layer, io.BytesIO())


def test_parametrized_lazy_and_hook_object_modules_are_refused():
    ortho = nn.utils.parametrizations.orthogonal(nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="parametrized modules is only supported through"):
        tg.save(ortho, io.BytesIO())  # (PyTorch's RuntimeError and words)
    lazy = nn.LazyLinear(3)
    with pytest.raises(TypeError, match="lazy module.*call it once"):
        tg.save(lazy, io.BytesIO())
    lazy(tg.ones(2, 4))  # materialised: an ordinary Linear now
    assert round_trip(lazy).weight.shape == (3, 4)
    with pytest.warns(FutureWarning):
        normed = nn.utils.weight_norm(nn.Linear(2, 2))
    with pytest.raises(TypeError, match=r"forward pre-hook \(a WeightNorm\)"):
        tg.save(normed, io.BytesIO())


def test_pytorch_refuses_parametrized_modules_the_same_way():
    torch = pytest.importorskip("torch", reason="checks PyTorch's refusal")
    ortho = torch.nn.utils.parametrizations.orthogonal(torch.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="parametrized modules is only supported through"):
        torch.save(ortho, io.BytesIO())
