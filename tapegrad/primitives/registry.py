"""The rule table's machinery: `primitive` registers a NumPy forward with one rule per input.

Layer L1: standard library and numpy. A rule is a Python expression over `g` (dL/dout), `out`, the
inputs and the op's parameters (`x="g * y"`), written as a textbook writes it and compiled into the
function that runs: the formula that explain and tg.autograd.formula show IS the code. Where the
textbook form divides by zero at an edge (pow at 0 ** 0) or is slow (linear's batch), `override`
runs a kernel text instead, tested equal to the textbook wherever the textbook is defined; the
kernels show with `formula(detail=True)`. What the running rule reads decides what the tape saves:
an input whose value no needed rule reads is never saved nor version-checked (`x * 3` saves
nothing of x). Rules call primitives and operators, so they record on Tensors (a backward with
create_graph=True) and are plain NumPy on arrays (every other backward).
"""

from __future__ import annotations

import ast
import builtins
import difflib
import inspect
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable

REGISTRY: dict[str, "Primitive"] = {}

SHAPE_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})


@dataclass(frozen=True)
class TensorLayer:
    """What the Tensor layer (L3) plugs into the layers below it, once, through `bind`."""

    tensor_type: type  # the Tensor class: a Primitive called on one of them records
    apply: Callable[..., Any]  # apply(prim, *args, **params) -> Tensor: run and record one op
    wrap: Callable[..., Any]  # wrap(array, grad_fn=None) -> Tensor
    accumulate: Callable[..., Any]  # accumulate(leaf, grad, create_graph, owned): into .grad


def _unbound(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("the Tensor layer is not bound yet: import tapegrad (not only its parts)")


_tensor_type: Any = type(None)  # (nothing is an instance of it until bind() runs)
_apply: Any = _unbound
layer = TensorLayer(type(None), _unbound, _unbound, _unbound)  # (replaced by bind())


def bind(tensor_layer: TensorLayer) -> None:
    """Plug the Tensor layer in: from now on a Primitive called on Tensors records itself.

    >>> bind(TensorLayer(Tensor, apply, wrap))   # done once, by tapegrad.tensor
    """
    global _tensor_type, _apply, layer
    _tensor_type, _apply, layer = tensor_layer.tensor_type, tensor_layer.apply, tensor_layer
    return None


def value(x: Any) -> Any:
    """The array behind x, whether x is a Tensor or already an array (for constant masks)."""
    return getattr(x, "_data", x)


@dataclass(frozen=True)
class SavePlan:
    """What to keep for one pattern of inputs needing gradients (read off the rules' texts)."""

    saved: tuple[int, ...]  # inputs whose values some needed rule reads
    shaped: tuple[int, ...]  # inputs whose shape and dtype the engine or a rule needs
    out: bool  # some needed rule reads `out`
    # the needed rules as one function `(g, out, inputs, params) -> one gradient per input`
    # (None where none is needed); None for variadic ops and custom Functions (rule_for_all)
    backward: Callable | None = None


class Primitive:
    """One differentiable op: a NumPy forward, a rule per input (or one for all), formula texts."""

    __slots__ = (
        "name",
        "forward",
        "expr",
        "texts",
        "rules",
        "rule_for_all",
        "input_names",
        "params",
        "variadic",
        "input_defaults",
        "node_name",
        "view",
        "elementwise",
        "batch",
        "plans",
        "kernels",
        "kernel_reason",
        "_overridden",
        "_namespace",
        "_reads",
        "__weakref__",
    )

    def __init__(
        self,
        name: str,
        forward: Callable,
        expr: str,
        texts: dict[str, str | None],
        namespace: dict,
        *,
        view: bool = False,
        elementwise: bool = False,
        rule_for_all: Callable | None = None,
        batch: Callable | None = None,
    ) -> None:
        self.name = name
        self.forward = forward
        self.expr = expr
        self.node_name = "".join(part.capitalize() for part in name.split("_")) + "Backward"
        self.view = view  # the output may share the input's memory (basic indexing, reshape, ...)
        # value by value: a one-input op keeps its input's shape and dtype, and when every input
        # has the output's shape and dtype, each rule gives g's (nothing to un-broadcast or cast)
        self.elementwise = elementwise
        # vmap's batching rule: (level, prim, inputs, batched, params) -> the output for the whole
        # batch, from inputs with the batch along axis 0 where `batched` (primitives/batching.py)
        self.batch = batch
        self.input_names, self.params, self.variadic, self.input_defaults = _signature(forward)
        unknown = set(texts) - set(self.input_names)
        if unknown:
            raise ValueError(
                f"primitive {name!r}: rules for unknown inputs {sorted(unknown)}; "
                f"its inputs are {self.input_names}"
            )
        self.texts = tuple(texts.get(n) for n in self.input_names)
        self._namespace = namespace
        self._reads = [_reads(t, self.input_names) for t in self.texts]
        # Fixed arity: one rule per input, compiled on first use (helpers may be defined later in
        # the file). Variadic ops and custom Functions: one rule returning every gradient.
        self.rules: tuple | None = None
        self.rule_for_all = rule_for_all
        if self.variadic and rule_for_all is None:
            self.rule_for_all = self._compile(self.texts[0])
        self.plans: dict[Any, SavePlan] = {}
        self.kernels: tuple[str | None, ...] = (None,) * len(self.texts)  # what runs instead
        self.kernel_reason = ""  # why a kernel runs (one line, shown by formula(detail=True))
        self._overridden: dict[int, tuple[Callable, dict]] = {}  # kernel: (function, module)

    # ---- rules -------------------------------------------------------------------------------
    def compile(self) -> tuple:
        """The rules as functions `rule(g, out, *inputs, **params)` (None: a zero gradient)."""
        if self.rules is None:
            self.rules = tuple(None if t is None else self._compile(t) for t in self.texts)
        return self.rules

    def _head(self) -> str:
        """A rule's parameters: `g, out, x, y, *, axis=None` (the forward's inputs and params)."""
        if self.variadic:
            inputs: tuple = ("*" + self.input_names[0],)
        else:  # (an input the forward has a default for may be left out: `b=None`)
            defaults = self.input_defaults
            inputs = tuple(f"{n}={defaults[n]!r}" if n in defaults else n for n in self.input_names)
        head = ", ".join(("g", "out") + inputs)
        if self.params:
            head += ("" if self.variadic else ", *") + "".join(
                f", {p}" if d is _REQUIRED else f", {p}={d!r}" for p, d in self.params.items()
            )
        return head

    def _compile(
        self, text: str | None, namespace: dict | None = None, what: str = "rule"
    ) -> Callable:
        source = f"lambda {self._head()}: {text}"
        where = self._namespace if namespace is None else namespace
        return eval(compile(source, f"<{what} of {self.name}>", "eval"), where)

    def _compile_needed(self, needed: list[int]) -> Callable:
        """The rules of the inputs in `needed` as one function `(g, out, inputs, params)` returning
        a tuple, one gradient per input (the engine's commonest call: one plain call per node, the
        inputs and parameters unpacked only when some rule reads them)."""
        parts, fused, names = [], {}, set()
        kernels = self._kernel_names(needed)  # (None: call each kernel's own function instead)
        for i, text in enumerate(self.texts):
            if i not in needed or text is None:
                parts.append("None")
            elif i in self._overridden and kernels is None:  # called with the rule's arguments
                fused[f"_rule{i}"] = self._overridden[i][0]
                keywords = [f"{p}={p}" for p in self.params]
                args = ", ".join(["g", "out", *self.input_names, *keywords])
                parts.append(f"_rule{i}({args})")
                names |= {*self.input_names, *self.params}
            else:  # a table rule, or a kernel's text with the names it takes from its module
                text = self.kernels[i] if i in self._overridden else text
                parts.append(f"({text})")
                names |= _names(text)
        fused.update(kernels or {})
        inputs = self.input_names
        body = []
        if names & set(inputs):  # (inputs the forward has defaults for may be left out)
            tail = [repr(self.input_defaults[n]) for n in inputs if n in self.input_defaults]
            given = f"(*inputs, {', '.join(tail)})[:{len(inputs)}]" if tail else "inputs"
            body.append(f"{', '.join(inputs)}, = {given}")
        for p, default in self.params.items():
            if p in names:
                got = (
                    f"params[{p!r}]" if default is _REQUIRED else f"params.get({p!r}, {default!r})"
                )
                body.append(f"{p} = {got}")
        body.append(f"return ({', '.join(parts)},)")
        source = (
            f"def make({', '.join(fused)}):\n"
            "    def combined(g, out, inputs, params):\n"
            + "".join(f"        {line}\n" for line in body)
            + "    return combined\n"
        )
        made: dict = {}  # (exec'd in the rules' module: they see its names, as _compile's do)
        exec(compile(source, f"<rules of {self.name}>", "exec"), self._namespace, made)
        return made["make"](*fused.values())

    def _kernel_names(self, needed: list[int]) -> dict | None:
        """The objects the needed kernels' texts name from their own module (fused.py), to bind in
        the combined function, so that a kernel runs inline like a table rule; None when one of
        them would shadow a different object a table rule of the same function reads."""
        bound: dict = {}
        table: set = set()
        local = {"g", "out", *self.input_names, *self.params}
        own = vars(builtins) | self._namespace
        for i in needed:
            if i in self._overridden:
                namespace = vars(builtins) | self._overridden[i][1]
                for n in _names(self.kernels[i]) - local:
                    found = namespace.get(n, _MISSING)
                    if found is not _MISSING and own.get(n, _MISSING) is not found:
                        bound[n] = found  # (a name the rules' module lacks, or means otherwise)
            elif self.texts[i] is not None:
                table |= _names(self.texts[i])
        return None if bound.keys() & table else bound

    def override(self, reason: str, **kernels: str) -> None:
        """Run kernel texts instead of the textbook rules of some inputs: same values wherever the
        textbook is defined (tested), with guards or speed forms the textbook does not need. A
        kernel text is compiled in the calling module (fused.py), so it may call its helpers; what
        it reads is what the tape saves.

        >>> pow.override("0 ** 0: d/dx is 0", x="g * y * pow(where(x == 0, 1, x), y - 1)")
        """
        namespace = sys._getframe(1).f_globals
        compiled = list(self.compile())
        kernel_texts = list(self.kernels)
        for input_name, text in kernels.items():
            i = self.input_names.index(input_name)
            compiled[i] = self._compile(text, namespace, "kernel")
            self._overridden[i] = (compiled[i], namespace)
            kernel_texts[i] = text
            self._reads[i] = _reads(text, self.input_names)
        self.rules, self.kernels, self.kernel_reason = tuple(compiled), tuple(kernel_texts), reason
        self.plans.clear()  # (their combined rules call the old ones)

    def plan(self, needs: int, n: int) -> SavePlan:
        """What to save when the inputs in bitmask `needs` (of `n` inputs) need gradients (cached:
        by `needs` for a fixed number of inputs, by `(needs, n)` for a list of inputs)."""
        key: Any = (needs, n) if self.rule_for_all is not None else needs
        found = self.plans.get(key)
        if found is None:
            needed = [i for i in range(n) if (needs >> i) & 1]
            saved: set[int] = set()
            shaped: set[int] = set(needed)  # the engine sums their gradients back to their shape
            out = False
            if self.rule_for_all is not None:  # one rule: what it reads of `xs`, it reads of all
                full, shape_only, out = self._reads[0]
                saved = set(range(n)) if full else set()
                # it gives every input a gradient, even one that needs none: the engine fits
                # each to its input's shape, so it must know them all
                shaped = set(range(n))
            else:
                for i in needed:
                    full, shape_only, reads_out = self._reads[i]
                    saved |= full
                    shaped |= shape_only
                    out = out or reads_out
            backward = None if self.rule_for_all is not None else self._compile_needed(needed)
            found = SavePlan(tuple(sorted(saved)), tuple(sorted(shaped)), out, backward)
            self.plans[key] = found
        return found

    # ---- use ---------------------------------------------------------------------------------
    def __call__(self, *args: Any, **params: Any) -> Any:
        for a in args:
            if isinstance(a, _tensor_type):
                return _apply(self, *args, **params)
        return self.forward(*args, **params) if params else self.forward(*args)

    def formula(self, detail: bool = False) -> str:
        """The forward and every rule as a textbook writes them; `detail=True` adds the kernels
        that run instead (guards, speed forms) and the geometry keywords passed through."""
        shown = (lambda t: t) if detail else plain
        lines = [f"{self.name}: out = {self.expr}    (backward node: {self.node_name})"]
        for input_name, text, kernel in zip(self.input_names, self.texts, self.kernels):
            lines.append(f"  dL/d{input_name} = {'0' if text is None else shown(text)}")
            if detail and kernel is not None:
                lines.append(f"      runs as: {kernel}")
        if detail and self.kernel_reason:
            lines.append(f"  (kernels, in fused.py: {self.kernel_reason})")
        lines.append("  (g = dL/dout, the gradient arriving at the output)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


_REQUIRED = inspect.Parameter.empty
_MISSING = object()


def _names(text: str | None) -> set[str]:
    """The names an expression reads (none for a zero rule's None)."""
    if text is None:
        return set()
    return {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}


# Keywords that only pass a convolution's or pooling's geometry on to the op its rule calls: the
# textbook leaves them implied (`conv2d_input_grad(g, w, input_shape=x.shape)`).
GEOMETRY = ("stride", "padding", "dilation", "groups", "kernel_size", "divisor")
_PASSED_ON = re.compile(r",\s*(" + "|".join(GEOMETRY) + r")=\1\b")


def plain(text: str) -> str:
    """A rule's text without the geometry keywords it passes on unchanged (`stride=stride`)."""
    return _PASSED_ON.sub("", text)


def _signature(forward: Callable) -> tuple[tuple[str, ...], dict[str, Any], bool, dict]:
    """Input names, parameters (keyword-only, with defaults), whether the inputs are *xs, and the
    inputs' defaults."""
    nin = getattr(forward, "nin", None)  # a NumPy ufunc: its inputs are x (and y)
    if nin is not None:
        return ("x", "y", "z")[:nin], {}, False, {}
    inputs, params, variadic, defaults = [], {}, False, {}
    for p in inspect.signature(forward).parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL):
            inputs.append(p.name)
            variadic = variadic or p.kind == p.VAR_POSITIONAL
            if p.default is not p.empty:
                defaults[p.name] = p.default
        elif p.kind == p.KEYWORD_ONLY:
            params[p.name] = p.default
    return tuple(inputs), params, variadic, defaults


def _reads(text: str | None, inputs: tuple[str, ...]) -> tuple[set[int], set[int], bool]:
    """Which inputs a rule reads in full, which only by shape/dtype, and whether it reads out."""
    if text is None:
        return set(), set(), False
    tree = ast.parse(text, mode="eval")
    shape_uses: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr in SHAPE_ATTRIBUTES
            and isinstance(node.value, ast.Name)
        ):
            shape_uses.add(id(node.value))
    full: set[int] = set()
    shape_only: set[int] = set()
    reads_out = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id == "out":
                reads_out = True
            elif node.id in inputs:
                (shape_only if id(node) in shape_uses else full).add(inputs.index(node.id))
    return full, shape_only - full, reads_out


def primitive(
    name: str,
    expr: str,
    *,
    view: bool = False,
    elementwise: bool = False,
    batch: Callable | None = None,
    **rules: str | None,
) -> Callable[[Callable], Primitive]:
    """Register a NumPy forward as primitive `name`, with one rule (an expression) per input and
    its batching rule for vmap (`batch`, see primitives/batching.py).

    >>> mul = primitive("mul", "x * y", batch=pointwise, x="g * y", y="g * x")(np.multiply)
    """
    namespace = sys._getframe(1).f_globals  # rules see the names of the module defining them

    def register(forward: Callable) -> Primitive:
        if name in REGISTRY:
            raise ValueError(f"primitive {name!r} is registered twice")
        prim = Primitive(
            name, forward, expr, rules, namespace, view=view, elementwise=elementwise, batch=batch
        )
        REGISTRY[name] = prim
        return prim

    return register


def lookup(name: str) -> Primitive:
    """The primitive called `name` ("sin", "SinBackward", "sin_backward" ...).

    >>> lookup("MulBackward").name
    'mul'
    """
    if not isinstance(name, str):
        raise TypeError(f'an op is named by a str (e.g. "sin" or "SinBackward"), got {name!r}')
    key = name.lower().strip()
    if key in REGISTRY:  # (before stripping "Backward": tanh_backward is an op of its own)
        return REGISTRY[key]
    if key.endswith("backward"):
        key = key[: -len("backward")]
    by_camel = {p.node_name.lower()[: -len("backward")]: p for p in REGISTRY.values()}
    if key in REGISTRY:
        return REGISTRY[key]
    if key in by_camel:
        return by_camel[key]
    close = difflib.get_close_matches(key, list(REGISTRY), n=5, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    raise KeyError(f"no primitive named {name!r}.{hint} tg.autograd.rules() lists them all.")
