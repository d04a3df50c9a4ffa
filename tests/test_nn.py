"""tg.nn: Parameter, Module/Cell registration and naming, layers, losses, checkpoints, training."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tapegrad as tg
from helpers import seed_net
from tapegrad import nn
from tapegrad.nn import functional as F


# ---- the seed program ------------------------------------------------------------------------
def test_seed_net_forward_and_names():
    net = seed_net()
    params = net.trainable_params()
    assert [p.name for p in params] == ["fc.weight"]
    np.testing.assert_array_equal(params[0].numpy(), [[2.0, 3.0, 4.0]])
    loss, logits = net(tg.tensor([[1, 2, 3]], tg.float32), tg.tensor(19, tg.float32))
    assert loss.item() == 1.0 and logits.item() == 20.0
    assert loss.dtype == tg.float32 and logits.shape == ()


def test_seed_net_backward():
    net = seed_net()
    x = tg.tensor([[1, 2, 3]], tg.float32, requires_grad=True)
    y = tg.tensor(19, tg.float32, requires_grad=True)
    loss, _ = net(x, y)
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[4.0, 6.0, 8.0]])
    assert y.grad.item() == -2.0
    np.testing.assert_array_equal(net.fc.weight.grad.numpy(), [[2.0, 4.0, 6.0]])


def test_seed_net_autograd_grad_touches_no_grad_attribute():
    net = seed_net()
    x = tg.tensor([[1, 2, 3]], tg.float32, requires_grad=True)
    y = tg.tensor(19, tg.float32, requires_grad=True)
    loss, _ = net(x, y)
    gx, gy, gw = tg.autograd.grad(loss, [x, y, *net.trainable_params()])
    np.testing.assert_array_equal(gx.numpy(), [[4.0, 6.0, 8.0]])
    assert gy.item() == -2.0
    np.testing.assert_array_equal(gw.numpy(), [[2.0, 4.0, 6.0]])
    assert net.fc.weight.grad is None


# ---- Parameter ---------------------------------------------------------------------------------
def test_parameter_is_a_named_leaf_copy():
    src = np.zeros((1, 3), np.float32)
    p = nn.Parameter(src, name="w")
    assert isinstance(p, tg.Tensor) and p.is_leaf and p.requires_grad and p.grad_fn is None
    assert repr(p) == "Parameter(name=w, shape=(1, 3), dtype=float32, requires_grad=True)"
    with tg.no_grad():
        p += 1.0
    assert src[0, 0] == 0.0  # the caller's array is not aliased
    assert type(p * 2) is tg.Tensor  # ops make plain tensors


def test_parameter_rejects_integer_data_and_shape_changes():
    with pytest.raises(TypeError, match="floating-point"):
        nn.Parameter([1, 2])
    p = nn.Parameter(tg.zeros(1, 3), name="fc.weight")
    with pytest.raises(ValueError, match=r"shape \(2, 3\).*fc.weight.*\(1, 3\)"):
        p.set_data(tg.zeros(2, 3))


def test_set_data_casts_and_invalidates_saved_graphs():
    p = nn.Parameter(tg.ones(3))
    out = (p * p).sum()
    p.set_data(np.array([1, 2, 3]))  # ints are cast to the parameter's float32
    assert p.dtype == tg.float32 and p.numpy().tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError):
        out.backward()  # p changed after it was saved: reported, not a silently wrong gradient


# ---- Module registration and naming -----------------------------------------------------------
class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 3)
        self.act = nn.Tanh()
        self.scale = nn.Parameter(tg.ones(3))

    def forward(self, x):
        return self.act(self.lin(x)) * self.scale


class Outer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = Block()
        self.heads = nn.ModuleList([nn.Linear(3, 1), nn.Linear(3, 1, bias=False)])
        self.seq = nn.Sequential(nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1))
        self.tag = "not a parameter"

    def forward(self, x):
        h = self.block(x)
        return self.seq(self.heads[0](h) + self.heads[1](h))


def test_dotted_names_in_definition_order_and_parameter_names():
    net = Outer()
    names = [n for n, _ in net.named_parameters()]
    # As PyTorch and MindSpore: a module's own parameters first, then its children's, in order.
    assert names == [
        "block.scale",
        "block.lin.weight",
        "block.lin.bias",
        "heads.0.weight",
        "heads.0.bias",
        "heads.1.weight",
        "seq.0.weight",
        "seq.0.bias",
        "seq.2.weight",
        "seq.2.bias",
    ]
    assert [p.name for p in net.parameters()] == names
    assert net.block.lin.weight.name == "block.lin.weight"
    list(net.block.named_parameters())  # listing a sub-module must not shorten the names
    assert net.block.scale.name == "block.scale"
    assert [n for n, _ in net.named_modules()][:4] == ["", "block", "block.lin", "block.act"]
    assert [type(m).__name__ for m in net.children()] == ["Block", "ModuleList", "Sequential"]
    assert net(tg.ones(4, 2)).shape == (4, 1)


def test_explicit_names_are_kept_and_shared_parameters_listed_once():
    class Tied(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(2, 2)
            self.b = nn.Linear(2, 2)
            self.b.weight = self.a.weight
            self.special = nn.Parameter(tg.zeros(1), name="my_special")

    net = Tied()
    assert [n for n, _ in net.named_parameters()] == ["special", "a.weight", "a.bias", "b.bias"]
    assert net.special.name == "my_special"


def test_trainable_params_respects_freezing_and_zero_grad():
    net = Outer()
    net.block.requires_grad_(False)
    trainable = net.trainable_params()
    assert isinstance(trainable, list) and len(trainable) == 7
    assert all(not p.name.startswith("block") for p in trainable)
    net(tg.ones(2, 2)).sum().backward()
    assert net.block.lin.weight.grad is None and net.seq[0].weight.grad is not None
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_train_eval_apply_and_reassignment():
    net = Outer()
    assert net.eval() is net and not net.training and not net.seq[1].training
    net.train()
    assert net.block.lin.training
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Outer" and seen.count("Linear") == 5
    net.block = nn.Identity()  # replacing a sub-module drops its parameters
    assert not any(n.startswith("block") for n, _ in net.named_parameters())
    del net.seq
    assert len(list(net.parameters())) == 3


def test_forward_and_construct_styles_and_clear_errors():
    class Torchy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(2, 1)

        def forward(self, x):
            return self.fc(x) * 2

    class Nothing(nn.Module):
        pass

    class Forgot(nn.Module):
        def __init__(self) -> None:
            self.fc = nn.Linear(2, 1)

    t = Torchy()
    with pytest.raises(TypeError, match="set_data"):
        t.fc.weight = tg.zeros(1, 2)  # would silently stop training the weight
    t.fc.bias = None  # allowed: a layer without bias
    assert [n for n, _ in t.named_parameters()] == ["fc.weight"]
    np.testing.assert_allclose(t(tg.ones(1, 2)).numpy(), t.fc(tg.ones(1, 2)).numpy() * 2)
    assert t(tg.ones(1, 2)).grad_fn is not None
    with pytest.raises(NotImplementedError, match="neither forward"):
        Nothing()(tg.ones(1))
    with pytest.raises(RuntimeError, match=r"super\(\).__init__\(\)"):
        Forgot()
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        t.missing


def test_repr_of_a_model():
    assert repr(seed_net()) == (
        "SeedNet(\n  (fc): Dense(in_channels=3, out_channels=1, has_bias=False)\n"
        "  (loss): MSELoss()\n)"
    )


# ---- state_dict --------------------------------------------------------------------------------
def test_state_dict_round_trip_gives_the_same_outputs():
    tg.manual_seed(0)
    a, b = Outer(), Outer()
    x = tg.randn(5, 2)
    assert not np.allclose(a(x).numpy(), b(x).numpy())
    state = a.state_dict()
    assert list(state) == [n for n, _ in a.named_parameters()]
    b.load_state_dict(state)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    with tg.no_grad():
        a.seq[0].weight += 1.0  # a saved state is a copy: later training does not change it
    assert not np.array_equal(state["seq.0.weight"].numpy(), a.seq[0].weight.numpy())


def test_load_state_dict_errors_name_the_problem():
    net = Outer()
    state = net.state_dict()
    missing = {k: v for k, v in state.items() if k != "block.scale"}
    with pytest.raises(RuntimeError, match=r"missing keys \['block.scale'\]"):
        net.load_state_dict(missing)
    extra = {**state, "head.bias": tg.zeros(1)}
    with pytest.raises(RuntimeError, match=r"unexpected keys \['head.bias'\]"):
        net.load_state_dict(extra)
    result = net.load_state_dict(missing, strict=False)
    assert result.missing_keys == ["block.scale"] and result.unexpected_keys == []

    bad = {**state, "seq.0.weight": tg.zeros(3, 3), "block.scale": tg.full((3,), 7.0)}
    with pytest.raises(RuntimeError, match=r"size mismatch for seq.0.weight.*\(3, 3\).*\(2, 1\)"):
        net.load_state_dict(bad)
    assert net.block.scale.numpy().tolist() == [1.0, 1.0, 1.0]  # nothing was loaded


# ---- layers ------------------------------------------------------------------------------------
def test_dense_and_linear_layout_init_and_reproducibility():
    tg.manual_seed(123)
    d1 = nn.Dense(4, 3)
    tg.manual_seed(123)
    d2 = nn.Linear(4, 3)
    assert d1.weight.shape == (3, 4) and d1.bias.shape == (3,)
    np.testing.assert_array_equal(d1.weight.numpy(), d2.weight.numpy())
    np.testing.assert_array_equal(d1.bias.numpy(), d2.bias.numpy())
    big = nn.Dense(100, 200)
    bound = 1 / math.sqrt(100)  # kaiming_uniform(a=sqrt(5)) == U(-1/sqrt(in), 1/sqrt(in))
    w = big.weight.numpy()
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.005  # the std of U(-b, b)
    x = tg.randn(5, 4)
    np.testing.assert_allclose(
        d1(x).numpy(), x.numpy() @ d1.weight.numpy().T + d1.bias.numpy(), rtol=1e-6
    )


def test_dense_options():
    d = nn.Dense(2, 2, activation="relu", weight_init="ones", bias_init=-5.0)
    assert d(tg.ones(1, 2)).numpy().tolist() == [[0.0, 0.0]]  # relu(2 - 5)
    t = nn.Dense(2, 1, activation=tg.tanh, weight_init=tg.tensor([[0.5, 0.5]]), bias_init="zeros")
    assert t(tg.ones(1, 2)).item() == pytest.approx(math.tanh(1.0))
    assert nn.Dense(3, 2, dtype=tg.float16).weight.dtype == tg.float16
    assert nn.Linear(3, 2, bias=False).bias is None
    with pytest.raises(ValueError, match="unknown activation 'gelu'"):
        nn.Dense(2, 2, activation="gelu")
    with pytest.raises(TypeError, match="has_bias must be a bool"):
        nn.Dense(2, 2, "normal")
    with pytest.raises(TypeError, match="Dense: in_channels must be a positive int"):
        nn.Dense(0, 2)


def test_linear_with_no_inputs_or_no_outputs_is_an_empty_layer_as_pytorch_builds():
    torch = pytest.importorskip("torch")
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        layer = nn.Linear(0, 3)  # y = bias (zero: PyTorch's bound 1/sqrt(fan_in) is 0 here)
    assert layer.weight.shape == (3, 0) and layer.bias.numpy().tolist() == [0.0, 0.0, 0.0]
    y = layer(tg.ones(2, 0))
    y.sum().backward()
    with pytest.warns(UserWarning, match="zero-element"):
        reference = torch.nn.Linear(0, 3)
    ry = reference(torch.ones(2, 0))
    ry.sum().backward()
    np.testing.assert_array_equal(y.numpy(), ry.detach().numpy())
    assert layer.weight.grad.shape == tuple(reference.weight.grad.shape) == (3, 0)
    np.testing.assert_array_equal(layer.bias.grad.numpy(), reference.bias.grad.numpy())
    with pytest.warns(UserWarning, match="zero-element"):  # (PyTorch's kaiming_uniform_ warns)
        no_outputs = nn.Linear(3, 0)
    assert no_outputs.weight.shape == (0, 3) and no_outputs(tg.ones(2, 3)).shape == (2, 0)


def test_linear_errors_say_linear_and_its_argument_names():
    with pytest.raises(RuntimeError, match="in_features must be a non-negative int, got -1"):
        nn.Linear(-1, 2)  # (PyTorch's error type for a negative size)
    with pytest.raises(TypeError, match="Linear: out_features must be an int, got 2.5"):
        nn.Linear(2, 2.5)
    with pytest.raises(ValueError, match=r"\(its in_features\).*with in_features=4$"):
        nn.Linear(3, 2)(tg.ones(2, 4))
    with pytest.raises(ValueError, match=r"Dense expects .*\(its in_channels\)"):
        nn.Dense(3, 2)(tg.ones(2, 4))
    with pytest.raises(TypeError, match=r"^Linear\.forward\(\) takes 2 positional arguments but 3"):
        nn.Linear(3, 2)(tg.ones(2, 3), tg.ones(2, 3))
    assert nn.Linear(3, 2)(input=tg.ones(2, 3)).shape == (2, 2)  # (PyTorch's keyword)


def test_activations_flatten_and_sequential_container():
    x = tg.tensor([[-1.0, 0.5], [2.0, -3.0]])
    np.testing.assert_allclose(nn.ReLU()(x).numpy(), [[0, 0.5], [2, 0]])
    np.testing.assert_allclose(nn.Tanh()(x).numpy(), np.tanh(x.numpy()), rtol=1e-6)
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), 1 / (1 + np.exp(-x.numpy())), rtol=1e-6)
    assert nn.Flatten()(tg.ones(2, 3, 4)).shape == (2, 12)
    seq = nn.SequentialCell([nn.Flatten(), nn.Linear(12, 2), nn.ReLU()])
    assert len(seq) == 3 and isinstance(seq[-1], nn.ReLU) and len(seq[1:]) == 2
    assert seq(tg.ones(5, 3, 4)).shape == (5, 2)


def test_init_helpers_are_seeded_and_in_place():
    t = tg.zeros(50, 40)
    tg.manual_seed(7)
    a = nn.init.xavier_uniform_(t).numpy().copy()
    tg.manual_seed(7)
    b = nn.init.xavier_uniform_(tg.zeros(50, 40)).numpy()
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).max() <= math.sqrt(6 / 90)
    assert nn.init.constant_(tg.zeros(2), 3.0).tolist() == [3.0, 3.0]
    assert nn.init.ones_(tg.zeros(2)).tolist() == [1.0, 1.0]
    assert abs(nn.init.normal_(tg.zeros(20000), 1.0, 2.0).numpy().std() - 2.0) < 0.05
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        nn.init.kaiming_uniform_(tg.zeros(3))


# ---- losses ------------------------------------------------------------------------------------
def test_mse_reductions():
    pred, target = tg.tensor([1.0, 2.0, 4.0]), tg.tensor([1.0, 0.0, 1.0])
    assert nn.MSELoss()(pred, target).item() == pytest.approx(13 / 3)
    assert nn.MSELoss(reduction="sum")(pred, target).item() == 13.0
    assert nn.MSELoss(reduction="none")(pred, target).tolist() == [0.0, 4.0, 9.0]
    with pytest.raises(ValueError, match="reduction must be"):
        nn.MSELoss(reduction="avg")


def _np_cross_entropy(logits: np.ndarray, target: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(target)), target]


def test_cross_entropy_values_stability_and_targets():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(6, 4)).astype(np.float32)
    target = rng.integers(0, 4, 6)
    ce = nn.CrossEntropyLoss()
    assert ce(tg.tensor(logits), target).item() == pytest.approx(
        _np_cross_entropy(logits, target).mean(), rel=1e-5
    )
    none = nn.CrossEntropyLoss(reduction="none")(tg.tensor(logits), tg.tensor(target))
    np.testing.assert_allclose(none.numpy(), _np_cross_entropy(logits, target), rtol=1e-5)
    huge = ce(tg.tensor([[1000.0, 0.0, -1000.0]]), [0])  # naive softmax would overflow to nan
    assert huge.item() == 0.0
    probs = np.eye(4, dtype=np.float32)[target]  # one-hot probabilities == class indices
    assert ce(tg.tensor(logits), tg.tensor(probs)).item() == pytest.approx(
        ce(tg.tensor(logits), target).item()
    )
    assert ce(tg.tensor([2.0, 0.0]), 0).item() == pytest.approx(math.log(1 + math.exp(-2)))


def test_cross_entropy_errors():
    ce = nn.CrossEntropyLoss()
    with pytest.raises(IndexError, match="class index 3 is out of range for 3 classes"):
        ce(tg.zeros(2, 3), [0, 3])
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        ce(tg.zeros(2, 3), [0, 1, 2])


def test_bce_with_logits_values_and_stability():
    x = np.array([-3.0, -0.5, 0.0, 2.0], np.float32)
    y = np.array([0.0, 1.0, 1.0, 0.0], np.float32)
    p = 1 / (1 + np.exp(-x))
    expected = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    out = nn.BCEWithLogitsLoss(reduction="none")(tg.tensor(x), y)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)
    extreme = nn.BCEWithLogitsLoss(reduction="sum")(
        tg.tensor([200.0, -200.0]), tg.tensor([1.0, 0.0])
    )
    assert extreme.item() == 0.0
    wrong = nn.BCEWithLogitsLoss(reduction="sum")(tg.tensor([200.0]), tg.tensor([0.0]))
    assert wrong.item() == pytest.approx(200.0)
    with pytest.raises(ValueError, match="target shape"):
        nn.BCEWithLogitsLoss()(tg.zeros(3), tg.zeros(2))


def test_loss_gradients_pass_gradcheck_in_float64():
    rng = np.random.default_rng(3)
    logits = tg.tensor(rng.normal(size=(4, 3)), dtype=tg.float64, requires_grad=True)
    target = np.array([0, 2, 1, 2])
    assert tg.autograd.gradcheck(lambda z: nn.CrossEntropyLoss()(z, target), (logits,))
    assert tg.autograd.gradcheck(
        lambda z: nn.CrossEntropyLoss(reduction="none")(z, target), (logits,)
    )
    x = tg.tensor(rng.normal(size=(5,)), dtype=tg.float64, requires_grad=True)
    y = tg.tensor(rng.uniform(size=(5,)), dtype=tg.float64, requires_grad=True)
    assert tg.autograd.gradcheck(lambda a, b: nn.BCEWithLogitsLoss()(a, b), (x, y))
    assert tg.autograd.gradcheck(lambda a, b: nn.MSELoss(reduction="sum")(a, b), (x, y))


# ---- float16 -----------------------------------------------------------------------------------
def test_float16_flows_through_dense_and_mse():
    net = seed_net().half()
    assert net.fc.weight.dtype == tg.float16
    x = tg.tensor([[1, 2, 3]], tg.float16)
    loss, logits = net(x, 19)
    assert loss.dtype == tg.float16 and logits.dtype == tg.float16 and loss.item() == 1.0
    loss.backward()
    assert net.fc.weight.grad.dtype == tg.float16
    np.testing.assert_array_equal(net.fc.weight.grad.numpy(), [[2, 4, 6]])


# ---- gradient accumulation ---------------------------------------------------------------------
def test_gradient_accumulation_with_backward_and_with_functional_grads():
    tg.manual_seed(0)
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x, y = tg.randn(8, 3), tg.randn(8, 1)
    loss_fn = nn.MSELoss(reduction="sum")
    full = tg.autograd.grad(loss_fn(net(x), y), net.trainable_params())

    for chunk in (slice(0, 4), slice(4, 8)):  # PyTorch style: .grad accumulates over backward calls
        loss_fn(net(x[chunk]), y[chunk]).backward()
    for p, g in zip(net.parameters(), full):
        np.testing.assert_allclose(p.grad.numpy(), g.numpy(), rtol=1e-5, atol=1e-6)

    # Functional style (MindSpore): add up the tuples of weight gradients of the micro-batches.
    grad_fn = tg.grad(
        lambda a, b: loss_fn(net(a), b), grad_position=None, weights=net.trainable_params()
    )
    total = None
    for chunk in (slice(0, 4), slice(4, 8)):
        grads = grad_fn(x[chunk], y[chunk])
        assert isinstance(grads, tuple) and len(grads) == 4
        total = grads if total is None else tuple(a + b for a, b in zip(total, grads))
    for a, b in zip(total, full):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


# ---- training ----------------------------------------------------------------------------------
def _regression(make_opt) -> tuple[float, float]:
    tg.manual_seed(0)
    rng = np.random.default_rng(0)
    X = rng.uniform(-2, 2, (128, 2)).astype(np.float32)
    Y = (np.sin(X[:, :1]) + 0.5 * X[:, 1:] ** 2).astype(np.float32)
    X, Y = tg.tensor(X), tg.tensor(Y)
    net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))
    opt, loss_fn = make_opt(net.parameters()), nn.MSELoss()
    first = loss_fn(net(X), Y).item()
    for _ in range(200):
        opt.zero_grad()
        loss_fn(net(X), Y).backward()
        opt.step()
    return first, loss_fn(net(X), Y).item()


@pytest.mark.parametrize(
    "make_opt",
    [lambda p: tg.optim.SGD(p, lr=0.05, momentum=0.9), lambda p: tg.optim.Adam(p, lr=0.02)],
    ids=["sgd", "adam"],
)
def test_mlp_regression_loss_drops_more_than_10x(make_opt):
    first, last = _regression(make_opt)
    assert last < first / 10


def test_classifier_reaches_95_percent_on_separable_blobs():
    tg.manual_seed(1)
    rng = np.random.default_rng(1)
    centers = np.array([[0, 3], [3, -2], [-3, -2]], np.float32)
    labels = rng.integers(0, 3, 150)
    X = tg.tensor(centers[labels] + rng.normal(0, 0.7, (150, 2)).astype(np.float32))
    net = nn.Sequential(nn.Dense(2, 16, activation="relu"), nn.Dense(16, 3))
    opt, loss_fn = tg.optim.Adam(net.trainable_params(), lr=0.05), nn.CrossEntropyLoss()
    before = (net(X).argmax(axis=1).numpy() == labels).mean()
    for _ in range(60):
        opt.zero_grad()
        loss_fn(net(X), labels).backward()
        opt.step()
    accuracy = (net(X).argmax(axis=1).numpy() == labels).mean()
    assert accuracy > 0.95 and before < 0.9


# ---- public names ------------------------------------------------------------------------------
def test_public_names_per_api():
    assert tg.nn.Cell is tg.nn.Module and tg.Parameter is tg.nn.Parameter
    assert tg.nn.SequentialCell is tg.nn.Sequential and tg.nn.CellList is tg.nn.ModuleList
    for name in (
        "Dense",
        "Linear",
        "Sequential",
        "ReLU",
        "Tanh",
        "Sigmoid",
        "Flatten",
        "MSELoss",
        "CrossEntropyLoss",
        "BCEWithLogitsLoss",
        "StaticLossScaler",
        "DynamicLossScaler",
        "all_finite",
        "clip_by_global_norm",
        "clip_grad_norm_",
        "init",
        "utils",
    ):
        assert hasattr(tg.nn, name), name
    for name in ("SGD", "Adam", "AdamW"):
        assert hasattr(tg.optim, name), name
    assert tg.nn.StaticLossScaler is tg.amp.StaticLossScaler is tg.ops.StaticLossScaler
    assert tg.nn.clip_by_global_norm is tg.ops.clip_by_global_norm is tg.amp.clip_by_global_norm
    assert tg.nn.all_finite is tg.amp.all_finite is tg.ops.all_finite
    assert tg.ops.stop_gradient is tg.functional.stop_gradient
    assert tg.nn.utils.clip_grad_norm_ is tg.nn.clip_grad_norm_


def test_functional_spellings_match_the_modules():
    import tapegrad.nn.functional as F

    rng = np.random.default_rng(3)
    x = tg.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    w = tg.tensor(rng.standard_normal((2, 3)))
    b = tg.tensor(rng.standard_normal(2))
    out = F.linear(x, w, b)
    assert np.allclose(out.numpy(), x.numpy() @ w.numpy().T + b.numpy())
    y = tg.tensor(rng.standard_normal((4, 2)))
    assert np.isclose(F.mse_loss(out, y).item(), np.mean((out.numpy() - y.numpy()) ** 2))
    labels = tg.tensor([0, 1, 1, 0])
    assert np.isclose(
        F.cross_entropy(out, labels).item(), tg.nn.CrossEntropyLoss()(out, labels).item()
    )
    z = tg.tensor([0.0, 2.0])
    assert np.allclose(
        F.binary_cross_entropy_with_logits(z, tg.tensor([1.0, 0.0]), reduction="none").numpy(),
        [np.log(2.0), np.log1p(np.exp(2.0))],
    )
    assert np.array_equal(F.relu(out).numpy(), tg.relu(out).numpy())
    assert np.allclose(F.softmax(out, dim=1).numpy().sum(1), 1.0)
    F.cross_entropy(out, labels).backward()
    assert x.grad is not None and x.grad.shape == (4, 3)


def test_dropout_scales_in_training_and_is_the_identity_in_eval():
    tg.manual_seed(0)
    drop = tg.nn.Dropout(0.25)
    x = tg.ones(2000, requires_grad=True)
    y = drop(x)
    kept = y.numpy() != 0
    assert 0.7 < kept.mean() < 0.8
    assert np.allclose(y.numpy()[kept], 1 / 0.75)
    y.sum().backward()
    assert np.array_equal(
        x.grad.numpy() != 0, kept
    )  # the gradient flows through kept elements only
    drop.eval()
    assert drop(x) is x and not drop.training
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        tg.nn.Dropout(1.5)


def test_optimizer_state_dict_round_trip_resumes_training_exactly():
    import copy

    def make():
        tg.manual_seed(1)
        return tg.nn.Sequential(tg.nn.Linear(3, 4), tg.nn.Tanh(), tg.nn.Linear(4, 1))

    rng = np.random.default_rng(0)
    X, Y = tg.tensor(rng.standard_normal((8, 3))), tg.tensor(rng.standard_normal((8, 1)))
    loss_fn = tg.nn.MSELoss()
    net = make()
    opt = tg.optim.Adam(net.parameters(), lr=0.05)

    def step(n, o):
        o.zero_grad()
        loss_fn(n(X), Y).backward()
        o.step()

    for _ in range(3):
        step(net, opt)
    saved_net, saved_opt = copy.deepcopy(net.state_dict()), opt.state_dict()
    for _ in range(2):
        step(net, opt)

    twin = make()
    twin.load_state_dict(saved_net)
    twin_opt = tg.optim.Adam(twin.parameters(), lr=0.5)  # lr comes back from the saved groups
    twin_opt.load_state_dict(saved_opt)
    assert twin_opt.param_groups[0]["lr"] == 0.05
    for _ in range(2):
        step(twin, twin_opt)
    for a, b in zip(net.parameters(), twin.parameters()):
        assert np.array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="same parameters"):
        tg.optim.Adam(list(twin.parameters())[:2], lr=0.1).load_state_dict(saved_opt)


def test_cross_entropy_weight_ignore_index_and_label_smoothing_follow_pytorch():
    rng = np.random.default_rng(5)
    x_np = rng.standard_normal((5, 4))
    y_np = np.array([0, 3, -100, 1, 3])
    w_np = np.array([1.0, 2.0, 0.5, 1.5])
    logp = x_np - np.log(np.exp(x_np).sum(1, keepdims=True))
    keep = y_np != -100
    picked = -logp[np.arange(5), np.where(keep, y_np, 0)]
    # weighted mean over the samples that count, weighted by their class's weight (PyTorch's rule)
    expected = (
        np.sum(np.where(keep, w_np[np.where(keep, y_np, 0)] * picked, 0)) / w_np[y_np[keep]].sum()
    )
    x = tg.tensor(x_np, requires_grad=True)
    loss = tg.nn.CrossEntropyLoss(weight=w_np)(x, tg.tensor(y_np))
    assert np.isclose(loss.item(), expected)
    loss.backward()
    assert np.allclose(x.grad.numpy()[2], 0.0)  # the ignored sample gets no gradient
    # label smoothing eps: (1 - eps) * nll + eps * mean over classes of -log p
    eps = 0.2
    smooth = (1 - eps) * picked + eps * (-logp).mean(1)
    got = tg.nn.CrossEntropyLoss(label_smoothing=eps, reduction="none")(
        tg.tensor(x_np), tg.tensor(y_np)
    )
    assert np.allclose(got.numpy(), np.where(keep, smooth, 0.0))
    assert tg.autograd.gradcheck(
        lambda t: tg.nn.CrossEntropyLoss(weight=w_np, label_smoothing=0.1)(t, tg.tensor(y_np)),
        (tg.tensor(x_np, requires_grad=True),),
    )
    with pytest.raises(ValueError, match="label_smoothing"):
        tg.nn.CrossEntropyLoss(label_smoothing=1.5)


def test_bce_with_logits_pos_weight_and_weight():
    rng = np.random.default_rng(6)
    x_np, y_np = rng.standard_normal((4, 3)) * 3, rng.uniform(0, 1, (4, 3))
    pw, w = np.array([0.5, 2.0, 3.0]), rng.uniform(0.5, 1.5, (4, 3))
    sp = np.log1p(np.exp(-np.abs(x_np))) + np.maximum(x_np, 0)  # softplus(x)
    expected = w * ((1 - y_np) * sp + pw * y_np * (sp - x_np))
    got = tg.nn.BCEWithLogitsLoss(weight=w, reduction="none", pos_weight=pw)(
        tg.tensor(x_np), tg.tensor(y_np)
    )
    assert np.allclose(got.numpy(), expected)
    assert tg.autograd.gradcheck(
        lambda t: tg.nn.BCEWithLogitsLoss(pos_weight=pw)(t, tg.tensor(y_np)),
        (tg.tensor(x_np, requires_grad=True),),
    )


@pytest.mark.parametrize(
    "name",
    [
        "uniform_",
        "normal_",
        "zeros_",
        "ones_",
        "xavier_uniform_",
        "kaiming_uniform_",
        "calculate_fan_in_and_fan_out",
    ],
)
def test_init_helpers_refuse_non_tensors_clearly(name):
    with pytest.raises(
        TypeError, match=rf"{name} takes a tapegrad Tensor \(e\.g\. layer\.weight\), got int"
    ):
        getattr(tg.nn.init, name)(5)


def test_module_to_takes_a_device_or_a_dtype_as_tensors_do():
    net = tg.nn.Dense(3, 2)
    assert net.to("cpu") is net and net.weight.dtype == np.float32
    assert net.to("cpu", tg.float64).weight.dtype == np.float64
    assert net.to(device="cpu", dtype=tg.float16).weight.dtype == np.float16
    with pytest.raises(RuntimeError, match="tapegrad computes on the CPU"):
        net.to("cuda")
    with pytest.raises(TypeError, match="parameters must stay floating point"):
        net.to(tg.int32)


def test_linear_reset_parameters_draws_pytorchs_init_again():
    """Linear.reset_parameters (PyTorch's name, called by model-init loops): the weight and bias
    drawn anew from U(+-1/sqrt(in)), the same numbers as torch's on the same seed; an empty
    weight (0 inputs) is left empty and its bias gets bound 0, as PyTorch's init."""
    lin = tg.nn.Linear(5, 3)
    before = lin.weight.detach().numpy().copy()
    tg.manual_seed(1)
    lin.reset_parameters()
    after = lin.weight.detach().numpy()
    assert not np.array_equal(before, after) and np.abs(after).max() <= 1 / np.sqrt(5)
    with pytest.warns(UserWarning, match="zero-element"):  # (as torch's init warns)
        empty = tg.nn.Linear(0, 2)
        empty.reset_parameters()
    assert empty.weight.shape == (2, 0) and empty.bias.tolist() == [0.0, 0.0]
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    ref = torch.nn.Linear(5, 3)
    torch.manual_seed(1)
    ref.reset_parameters()
    np.testing.assert_array_equal(after, ref.weight.detach().numpy())
    np.testing.assert_array_equal(lin.bias.detach().numpy(), ref.bias.detach().numpy())


@pytest.mark.parametrize("shape", [(4, 3), (2, 4, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("as_parameter", [False, True])
def test_linear_layer_equals_F_linear_on_every_path(shape, bias, as_parameter):
    # a 2-D plain Tensor with a bias takes Dense.forward's short way to the op; the rest F.linear
    layer = nn.Linear(3, 2, bias=bias).double()
    rng = np.random.default_rng(0)
    x = (nn.Parameter if as_parameter else tg.tensor)(rng.standard_normal(shape))
    x.requires_grad_(True)
    out = layer(x)
    ref = F.linear(x, layer.weight, layer.bias)
    np.testing.assert_array_equal(out.numpy(), ref.numpy())
    assert out.shape == ref.shape and out.dtype == ref.dtype
    got = tg.autograd.grad(out.sum(), [x, *layer.parameters()])
    want = tg.autograd.grad(ref.sum(), [x, *layer.parameters()])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    dense = nn.Dense(3, 2, activation="tanh").double()
    np.testing.assert_array_equal(
        dense(x).numpy(), np.tanh(F.linear(x, dense.weight, dense.bias).numpy())
    )
