"""nn.Module's hooks (forward pre-hooks, forward hooks, full backward hooks and backward pre-hooks,
their handles) and the rest of its API (get_submodule & co, type, cpu, share_memory, extra state),
against PyTorch: the values hooks see, replacements, order, removal and errors."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import tapegrad as tg

nn = tg.nn
torch = pytest.importorskip("torch")


def paired_mlp() -> tuple:
    """The same Linear(3, 4) -> Tanh -> Linear(4, 2) in tapegrad and in torch (float64)."""
    ours = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    theirs = torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)
    ).double()
    with torch.no_grad():
        for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            q.copy_(torch.from_numpy(p.numpy().copy()))
    return ours, theirs


def inputs() -> tuple:
    x = np.random.default_rng(0).standard_normal((5, 3))
    return tg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)


def values(items: tuple) -> list:
    """A tuple of tensors (or None) as arrays, for comparing tapegrad's with torch's."""
    out = []
    for t in items:
        if t is None:
            out.append(None)
        elif isinstance(t, tg.Tensor):
            out.append(t.numpy())
        else:
            out.append(t.detach().numpy())
    return out


def assert_same(ours: tuple, theirs: tuple) -> None:
    assert isinstance(ours, tuple) and len(ours) == len(theirs)
    for a, b in zip(values(ours), values(theirs)):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# ---- forward pre-hooks and forward hooks -----------------------------------------------------
def test_forward_hooks_see_and_replace_like_torch() -> None:
    (ours, theirs), (x, tx) = paired_mlp(), inputs()
    seen: dict = {"ours": [], "torch": []}
    for key, net in (("ours", ours), ("torch", theirs)):
        log = seen[key]
        net[0].register_forward_pre_hook(lambda m, args, log=log: log.append(("pre", args)))
        net[0].register_forward_pre_hook(lambda m, args: args[0] * 2)  # a bare value: wrapped
        net[1].register_forward_hook(lambda m, args, out, log=log: log.append(("post", out)))
        net[1].register_forward_hook(lambda m, args, out: out + 1)
    out, tout = ours(x), theirs(tx)
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-12)
    assert [k for k, _ in seen["ours"]] == [k for k, _ in seen["torch"]] == ["pre", "post"]
    pre_args = seen["ours"][0][1]
    assert isinstance(pre_args, tuple) and len(pre_args) == 1 and pre_args[0] is x
    # the second forward hook's replacement reaches the next layer; the first saw the original
    np.testing.assert_allclose(seen["ours"][1][1].numpy(), seen["torch"][1][1].detach().numpy())
    out.sum().backward()
    tout.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


def test_hook_order_prepend_and_removal() -> None:
    for make in (nn.ReLU, torch.nn.ReLU):
        m, order = make(), []
        h1 = m.register_forward_pre_hook(lambda mod, a: order.append("a"))
        m.register_forward_pre_hook(lambda mod, a: order.append("b"))
        m.register_forward_pre_hook(lambda mod, a: order.append("first"), prepend=True)
        m.register_forward_hook(lambda mod, a, o: order.append("c"))
        m.register_forward_hook(lambda mod, a, o: order.append("c0"), prepend=True)
        x = tg.ones(2) if make is nn.ReLU else torch.ones(2)
        m(x)
        assert order == ["first", "a", "b", "c0", "c"]
        h1.remove()
        h1.remove()  # (a second remove does nothing)
        order.clear()
        m(x)
        assert order == ["first", "b", "c0", "c"]


def test_handle_ids_and_with_block() -> None:
    m, calls = nn.ReLU(), []
    with m.register_forward_hook(lambda mod, a, o: calls.append(1)) as handle:
        m(tg.ones(1))
    m(tg.ones(1))
    assert calls == [1] and isinstance(handle.id, int)
    other = m.register_forward_hook(lambda mod, a, o: None)
    assert other.id != handle.id


def test_fast_path_flag_follows_registration() -> None:
    m = nn.Linear(2, 2)
    assert m._hooked is False
    handles = [
        m.register_forward_pre_hook(lambda mod, a: None),
        m.register_full_backward_hook(lambda mod, gi, go: None),
    ]
    assert m._hooked is True
    handles[0].remove()
    assert m._hooked is True  # one is left
    handles[1].remove()
    assert m._hooked is False


def test_with_kwargs_pre_hook_and_hook_like_torch() -> None:
    class Scale(nn.Module):
        def forward(self, x: tg.Tensor, *, factor: float = 1.0) -> tg.Tensor:
            return x * factor

    class TScale(torch.nn.Module):
        def forward(self, x: object, *, factor: float = 1.0) -> object:
            return x * factor

    results = []
    for m, x in ((Scale(), tg.ones(2)), (TScale(), torch.ones(2))):
        seen = []

        def pre(mod: object, args: tuple, kwargs: dict) -> tuple:
            seen.append(dict(kwargs))
            return args, {"factor": kwargs["factor"] + 1}

        def post(mod: object, args: tuple, kwargs: dict, out: object) -> object:
            seen.append(dict(kwargs))
            return out * 10

        m.register_forward_pre_hook(pre, with_kwargs=True)
        m.register_forward_hook(post, with_kwargs=True)
        results.append((m(x, factor=2.0).tolist(), seen))
    assert results[0] == results[1] == ([30.0, 30.0], [{"factor": 2.0}, {"factor": 3.0}])


def test_with_kwargs_pre_hook_bad_return_raises_like_torch() -> None:
    errors = []
    for m, x in ((nn.ReLU(), tg.ones(2)), (torch.nn.ReLU(), torch.ones(2))):
        m.register_forward_pre_hook(lambda mod, a, k: a, with_kwargs=True)
        with pytest.raises(RuntimeError) as info:
            m(x)
        errors.append(str(info.value).split(", but got")[0])
    assert errors[0] == errors[1]


def test_always_call_runs_when_forward_raises() -> None:
    class Broken(nn.Module):
        def forward(self, x: tg.Tensor) -> tg.Tensor:
            raise ValueError("broken forward")

    class TBroken(torch.nn.Module):
        def forward(self, x: object) -> object:
            raise ValueError("broken forward")

    for m, x in ((Broken(), tg.ones(1)), (TBroken(), torch.ones(1))):
        seen = []
        m.register_forward_hook(lambda mod, a, o: seen.append(("plain", o)))
        m.register_forward_hook(lambda mod, a, o: seen.append(("always", o)), always_call=True)
        with pytest.raises(ValueError, match="broken forward"):
            m(x)
        assert seen == [("always", None)]


def test_always_call_hook_that_raises_is_silenced_with_a_warning() -> None:
    class Broken(nn.Module):
        def forward(self, x: tg.Tensor) -> tg.Tensor:
            raise ValueError("broken forward")

    def bad(mod: object, a: tuple, o: object) -> None:
        raise KeyError("hook failed too")

    m = Broken()
    m.register_forward_hook(bad, always_call=True)
    with pytest.warns(UserWarning, match="always_call=True"), pytest.raises(ValueError):
        m(tg.ones(1))


def test_always_call_hook_runs_once_when_a_later_hook_raises() -> None:
    m, calls = nn.ReLU(), []
    m.register_forward_hook(lambda mod, a, o: calls.append("always"), always_call=True)

    def fails(mod: object, a: tuple, o: object) -> None:
        raise RuntimeError("later hook")

    m.register_forward_hook(fails)
    with pytest.raises(RuntimeError, match="later hook"):
        m(tg.ones(1))
    assert calls == ["always"]


def test_hook_must_be_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        nn.ReLU().register_forward_hook(3)  # type: ignore[arg-type]


# ---- backward hooks -------------------------------------------------------------------------
def test_full_backward_hook_sees_torch_grads() -> None:
    (ours, theirs), (x, tx) = paired_mlp(), inputs()
    seen: dict = {"ours": [], "torch": []}
    for key, net in (("ours", ours), ("torch", theirs)):
        log = seen[key]
        for layer in net:
            layer.register_full_backward_pre_hook(lambda m, go, log=log: log.append(("pre", go)))
            layer.register_full_backward_hook(
                lambda m, gi, go, log=log: log.append(("full", gi, go))
            )
    ours(x).sum().backward()
    theirs(tx).sum().backward()
    assert [e[0] for e in seen["ours"]] == [e[0] for e in seen["torch"]]
    for a, b in zip(seen["ours"], seen["torch"]):
        for mine, torch_ in zip(a[1:], b[1:]):
            assert_same(mine, torch_)


def test_full_backward_hook_replaces_grad_input() -> None:
    (ours, theirs), (x, tx) = paired_mlp(), inputs()
    for net in (ours, theirs):
        net[1].register_full_backward_hook(lambda m, gi, go: (gi[0] * 3,))
        net[2].register_full_backward_pre_hook(lambda m, go: (go[0] * -2,))
    ours(x).sum().backward()
    theirs(tx).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    for p, q in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-12)


def test_backward_hook_with_non_tensor_and_frozen_inputs() -> None:
    class Mix(nn.Module):
        def forward(self, a: tg.Tensor, k: int, b: tg.Tensor) -> tuple:
            return a * k + b, a * b

    class TMix(torch.nn.Module):
        def forward(self, a: object, k: int, b: object) -> tuple:
            return a * k + b, a * b

    seen = []
    for m, lib in ((Mix(), tg), (TMix(), torch)):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0])  # needs no gradient: None in grad_input
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        out, prod = m(a, 3, b)
        out.sum().backward()  # prod gets no gradient: None in grad_output
    assert_same(seen[0][0], seen[1][0])
    assert_same(seen[0][1], seen[1][1])
    # zeros for the tensor needing no gradient (as torch), None for the int and the unused output
    assert seen[0][0][1] is None and seen[0][0][2].tolist() == [0.0, 0.0]
    assert seen[0][1][1] is None


def test_backward_hook_without_input_grads_fires_at_outputs() -> None:
    seen = []
    for lin, lib in ((nn.Linear(2, 1), tg), (torch.nn.Linear(2, 1), torch)):
        lin.register_full_backward_hook(lambda mod, gi, go: seen.append((gi, go)))
        with pytest.warns(UserWarning):
            lin(lib.ones(3, 2)).sum().backward()
    assert_same(seen[0][0], seen[1][0])
    assert_same(seen[0][1], seen[1][1])
    assert seen[0][0] == (None,)


def test_backward_hook_without_input_grads_must_return_none() -> None:
    lin = nn.Linear(2, 1)
    lin.register_full_backward_hook(lambda mod, gi, go: (tg.ones(3, 2),))
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="should always return None"):
        lin(tg.ones(3, 2)).sum().backward()


def test_backward_hooks_wrong_count_raise() -> None:
    x = tg.ones(2, requires_grad=True)
    m = nn.Tanh()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        m(x).sum().backward()
    m = nn.Tanh()
    m.register_full_backward_pre_hook(lambda mod, go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_output, got 2, but expected 1"):
        m(x).sum().backward()


def test_backward_hook_removed_and_no_grad_mode() -> None:
    m, calls = nn.Tanh(), []
    handle = m.register_full_backward_hook(lambda mod, gi, go: calls.append(1))
    x = tg.ones(2, requires_grad=True)
    with tg.no_grad():
        m(x)
    m(x).sum().backward()
    handle.remove()
    m(x).sum().backward()
    assert calls == [1]


def test_non_tensor_output_warns_like_torch() -> None:
    class ListOut(nn.Module):
        def forward(self, x: tg.Tensor) -> list:
            return [x * 2]

    m = ListOut()
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with pytest.warns(UserWarning, match="Tensor or a tuple of Tensors"):
        m(tg.ones(1, requires_grad=True))


def test_deprecated_backward_hook_runs_as_full_with_a_warning() -> None:
    m, seen = nn.Tanh(), []
    with pytest.warns(FutureWarning, match="register_full_backward_hook"):
        m.register_backward_hook(lambda mod, gi, go: seen.append(gi))
    x = tg.tensor([0.5], requires_grad=True, dtype=tg.float64)
    m(x).backward(tg.ones(1, dtype=tg.float64))
    np.testing.assert_allclose(seen[0][0].numpy(), 1 - np.tanh(0.5) ** 2)


def test_gradients_through_hooked_module_check_to_second_order() -> None:
    m = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    m[1].register_full_backward_hook(lambda mod, gi, go: (gi[0] * 2,))
    m[0].register_full_backward_pre_hook(lambda mod, go: None)
    x = tg.randn(4, 3, dtype=tg.float64, requires_grad=True)

    def doubled_below_tanh(x: tg.Tensor) -> tg.Tensor:  # what the hook makes the gradient be
        h = m[0](x)
        return (2 * tg.tanh(h) - tg.tanh(h).detach()).sum()

    # gradcheck's numbers come from the forward, which the hook does not change, so compare the
    # hooked gradient with the closed form instead: twice the plain one
    (g_hooked,) = tg.autograd.grad(m(x).sum(), (x,), create_graph=True)
    (g_closed,) = tg.autograd.grad(doubled_below_tanh(x), (x,), create_graph=True)
    np.testing.assert_allclose(g_hooked.numpy(), g_closed.numpy(), rtol=1e-12)
    (gg_hooked,) = tg.autograd.grad((g_hooked**2).sum(), (x,))
    (gg_closed,) = tg.autograd.grad((g_closed**2).sum(), (x,))
    np.testing.assert_allclose(gg_hooked.numpy(), gg_closed.numpy(), rtol=1e-10)
    plain = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    plain[0].register_full_backward_hook(lambda mod, gi, go: None)  # an identity on the tape
    assert tg.autograd.gradcheck(lambda x: plain(x).sum(), (x,))
    assert tg.autograd.gradgradcheck(lambda x: plain(x).sum(), (x,))


# ---- the rest of Module's API -----------------------------------------------------------------
def nested(lib: object) -> object:
    mod = lib.nn  # type: ignore[attr-defined]
    inner = mod.Sequential(mod.Linear(2, 2), mod.BatchNorm1d(2))
    return mod.Sequential(inner, mod.ReLU())


@pytest.mark.parametrize(
    "method, target",
    [
        ("get_submodule", "0.0"),
        ("get_submodule", ""),
        ("get_submodule", "0.x"),
        ("get_submodule", "0.0.weight"),
        ("get_submodule", "0.0.weight.x"),
        ("get_parameter", "0.0.weight"),
        ("get_parameter", "0.1.running_mean"),
        ("get_parameter", "0.0.nothing"),
        ("get_parameter", "0.0"),
        ("get_parameter", "5.weight"),
        ("get_buffer", "0.1.running_var"),
        ("get_buffer", "0.0.weight"),
        ("get_buffer", "0.1.nope"),
    ],
)
def test_lookups_by_path_like_torch(method: str, target: str) -> None:
    ours, theirs = nested(tg), nested(torch)
    try:
        expected = getattr(theirs, method)(target)
    except AttributeError as e:
        with pytest.raises(AttributeError) as info:
            getattr(ours, method)(target)
        assert str(info.value) == str(e)
        return
    found = getattr(ours, method)(target)
    if isinstance(expected, torch.nn.Module):
        assert type(found).__name__ == type(expected).__name__
        assert [n for n, _ in found.named_modules()] == [n for n, _ in expected.named_modules()]
    else:  # (the values are random initialisations: the kind and shape must agree)
        assert isinstance(found, nn.Parameter) == isinstance(expected, torch.nn.Parameter)
        assert found.shape == tuple(expected.shape)


def test_get_parameter_returns_the_parameter_itself() -> None:
    net = nested(tg)
    assert net.get_parameter("0.0.bias") is net[0][0].bias
    assert net.get_buffer("0.1.num_batches_tracked") is net[0][1].num_batches_tracked


def test_set_submodule_like_torch() -> None:
    for lib in (tg, torch):
        net = nested(lib)
        net.set_submodule("0.1", lib.nn.Tanh())
        assert type(net[0][1]).__name__ == "Tanh"
        net.set_submodule("0.extra", lib.nn.Tanh())  # a new name under an existing parent
        assert [n for n, _ in net.named_children()] == ["0", "1"]
        assert "extra" in dict(net[0].named_children())
        with pytest.raises(AttributeError, match="has no attribute `new`"):
            net.set_submodule("0.new", lib.nn.Tanh(), strict=True)
        with pytest.raises(AttributeError, match="`weight` is not an nn.Module"):
            net.set_submodule("0.0.weight", lib.nn.Tanh())
        with pytest.raises(ValueError, match="without a target name"):
            net.set_submodule("", lib.nn.Tanh())
        with pytest.raises(ValueError, match="is not an nn.Module"):
            net.set_submodule("1", 3)


def test_register_module_type_cpu_share_memory() -> None:
    m = nn.Module()
    m.register_module("fc", nn.Linear(2, 1))
    assert [n for n, _ in m.named_parameters()] == ["fc.weight", "fc.bias"]
    bn = nn.BatchNorm1d(2)
    assert bn.type(tg.float64) is bn
    tbn = torch.nn.BatchNorm1d(2).type(torch.float64)
    for (n, t), (tn, tt) in zip(bn.state_dict().items(), tbn.state_dict().items()):
        assert n == tn and str(t.dtype) == str(tt.dtype).replace("torch.", "")
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Linear(2, 2).type(tg.int32)
    assert bn.cpu() is bn and bn.share_memory() is bn


class Counter(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(2, 1)
        self.calls = 0

    def get_extra_state(self) -> dict:
        return {"calls": self.calls}

    def set_extra_state(self, state: dict) -> None:
        self.calls = state["calls"]


def test_extra_state_round_trip_with_torch_keys() -> None:
    class TCounter(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(2, 1)

        def get_extra_state(self) -> dict:
            return {"calls": 0}

        def set_extra_state(self, state: dict) -> None:
            pass

    net, tnet = nn.Sequential(Counter()), torch.nn.Sequential(TCounter())
    assert list(net.state_dict()) == list(tnet.state_dict())
    net[0].calls = 7
    state = net.state_dict()
    assert state["0._extra_state"] == {"calls": 7}
    fresh = nn.Sequential(Counter())
    assert repr(fresh.load_state_dict(state)) == "<All keys matched successfully>"
    assert fresh[0].calls == 7
    del state["0._extra_state"]
    with pytest.raises(RuntimeError, match="missing keys \\['0._extra_state'\\]"):
        fresh.load_state_dict(state)
    result = fresh.load_state_dict(state, strict=False)
    assert result.missing_keys == ["0._extra_state"] and result.unexpected_keys == []


def test_extra_state_key_is_unexpected_for_a_module_without_it() -> None:
    state = nn.Sequential(Counter()).state_dict()
    plain = nn.Sequential(nn.Module())
    plain[0].fc = nn.Linear(2, 1)
    result = plain.load_state_dict(state, strict=False)
    assert result.unexpected_keys == ["0._extra_state"] and result.missing_keys == []
    with pytest.raises(RuntimeError, match="get_extra_state"):
        nn.Linear(1, 1).get_extra_state()


def test_state_dict_unchanged_by_hooks_and_matches_torch() -> None:
    ours, theirs = paired_mlp()
    before = {k: v.numpy().copy() for k, v in ours.state_dict().items()}
    ours[0].register_forward_hook(lambda m, a, o: None)
    ours[0].register_full_backward_hook(lambda m, gi, go: None)
    after = ours.state_dict()
    assert list(after) == list(before) == list(theirs.state_dict())
    for k, v in after.items():
        np.testing.assert_array_equal(v.numpy(), before[k])
    twin = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2)).double()
    assert repr(twin.load_state_dict(after)) == "<All keys matched successfully>"


def test_hooks_survive_pickling_and_old_pickles_run() -> None:
    m = nn.Linear(2, 1)
    m.register_forward_hook(_double_output)
    copy = pickle.loads(pickle.dumps(m))
    x = tg.ones(1, 2)
    np.testing.assert_allclose(copy(x).numpy(), 2 * m.forward(x).numpy())
    old = nn.Linear(2, 1)
    del old.__dict__["_hooked"]  # as a module pickled before hooks existed
    assert old(x).shape == (1, 1)
    old.register_forward_hook(_double_output)
    np.testing.assert_allclose(old(x).numpy(), 2 * old.forward(x).numpy())


def _double_output(m: object, args: tuple, out: tg.Tensor) -> tg.Tensor:
    return out * 2


def test_hooks_do_not_warn_when_unused() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        net, _ = paired_mlp()
        x, _ = inputs()
        net(x).sum().backward()


def test_in_place_change_of_a_hooked_output_keeps_gradients_right() -> None:
    # (PyTorch refuses this; tapegrad's in-place change records its own node after the identity,
    # so the hook sees the gradient of the module's output and x.grad is the true gradient)
    lin, seen = nn.Linear(3, 2).double(), []
    lin.register_full_backward_hook(lambda mod, gi, go: seen.append(go[0].numpy()))
    x = tg.ones(1, 3, dtype=tg.float64, requires_grad=True)
    y = lin(x)
    y.mul_(2)
    y.sum().backward()
    np.testing.assert_allclose(seen[0], [[2.0, 2.0]])
    np.testing.assert_allclose(x.grad.numpy(), 2 * lin.weight.numpy().sum(0, keepdims=True))


def test_hooked_module_under_func_grad_and_vmap() -> None:
    hooked = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    plain = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).double()
    plain.load_state_dict(hooked.state_dict())
    hooked[0].register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
    params = dict(hooked.named_parameters())
    x = tg.randn(4, 3, dtype=tg.float64)

    def per_example(net: nn.Module) -> dict:
        def loss(p: dict, xi: tg.Tensor) -> tg.Tensor:
            return tg.func.functional_call(net, p, (xi[None],)).sum()

        return tg.func.vmap(tg.func.grad(loss), in_dims=(None, 0))(params, x)

    with pytest.warns(UserWarning, match="none of its inputs requires a gradient"):
        got = per_example(hooked)
    want = per_example(plain)
    for k in want:
        np.testing.assert_allclose(got[k].numpy(), 3 * want[k].numpy(), rtol=1e-12)


def test_state_dict_pre_hook_and_load_post_hook_like_torch() -> None:
    logs = []
    for lib in (tg, torch):
        net, log = lib.nn.Sequential(lib.nn.Linear(2, 1)), []
        net[0].register_state_dict_pre_hook(
            lambda m, prefix, kv, log=log: log.append(("pre", type(m).__name__, prefix, kv))
        )
        net.register_state_dict_pre_hook(
            lambda m, prefix, kv, log=log: log.append(("pre", type(m).__name__, prefix, kv))
        )

        def forgive(m: object, keys: object, log: list = log) -> None:
            log.append(("post", type(m).__name__, list(keys.missing_keys)))  # type: ignore[attr-defined]
            keys.missing_keys.clear()  # type: ignore[attr-defined]

        net[0].register_load_state_dict_post_hook(forgive)
        handle = net.register_load_state_dict_post_hook(
            lambda m, keys, log=log: log.append(("post", type(m).__name__, list(keys.missing_keys)))
        )
        state = net.state_dict()
        del state["0.bias"]
        result = net.load_state_dict(state)  # strict, but the hook forgave the missing key
        log.append(repr(result))
        handle.remove()
        net.register_load_state_dict_post_hook(lambda m, keys: 1)
        with pytest.raises((RuntimeError, AssertionError), match="not expected to return"):
            net.load_state_dict(net.state_dict())
        logs.append(log)
    assert logs[0] == logs[1]
    assert logs[0][:2] == [("pre", "Sequential", "", False), ("pre", "Linear", "0.", False)]


def test_checkpoint_hooks_leave_the_call_fast_path() -> None:
    lin = nn.Linear(2, 1)
    lin.register_state_dict_pre_hook(lambda m, prefix, kv: None)
    assert lin._hooked is False
    forward = lin.register_forward_hook(lambda m, a, o: None)
    assert lin._hooked is True
    forward.remove()
    assert lin._hooked is False


def test_strict_load_without_post_hooks_changes_nothing() -> None:
    lin = nn.Linear(2, 1)
    before = lin.weight.numpy().copy()
    state = {"weight": tg.ones(1, 2)}
    with pytest.raises(RuntimeError, match="missing keys \\['bias'\\]"):
        lin.load_state_dict(state)
    np.testing.assert_array_equal(lin.weight.numpy(), before)
