"""The rule table's machinery: `primitive` registers a NumPy forward with one rule per input.

Layer L1: standard library and numpy. A rule is a Python expression over `g` (dL/dout), `out`, the
inputs and the op's parameters (`x="g * y"`), compiled into the function that runs: the formula
that explain and tg.autograd.formula show IS the code. What a rule reads decides what the tape
saves: an input whose value no needed rule reads is never saved nor version-checked (`x * 3`
saves nothing of x). Rules call primitives and operators, so they record on Tensors (a backward
with create_graph=True) and are plain NumPy on arrays (every other backward).
"""

from __future__ import annotations

import ast
import difflib
import inspect
import linecache
import sys
from dataclasses import dataclass
from typing import Any, Callable

from .rule_text import check_names, free_names, reads, written_at

REGISTRY: dict[str, "Primitive"] = {}


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
    shape_only: tuple[int, ...]  # inputs of which some needed rule reads only shape or dtype
    out: bool  # some needed rule reads `out`
    # a node keeps something a backward without retain_graph releases: saved inputs, `out`, or
    # (a custom Function) its ctx
    keeps: bool
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
        "_overridden",
        "_namespace",
        "_reads",
        "origin",
        "_written",
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
        origin: str = "",
    ) -> None:
        self.name = name
        self.origin = origin  # `file:line` of the primitive(...) call, named by compiled rules
        self._written: dict | None = None  # where each rule's text is written (read on first use)
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
        self._reads = [reads(t, self.input_names) for t in self.texts]
        # Fixed arity: one rule per input, compiled on first use (helpers may be defined later in
        # the file). Variadic ops and custom Functions: one rule returning every gradient.
        self.rules: tuple | None = None
        self.rule_for_all = rule_for_all
        if self.variadic and rule_for_all is None:
            self.rule_for_all = self._compile(0)
        self.plans: dict[Any, SavePlan] = {}
        self._overridden: dict[int, Callable] = {}

    # ---- rules -------------------------------------------------------------------------------
    def compile(self) -> tuple:
        """The rules as functions `rule(g, out, *inputs, **params)` (None: a zero gradient)."""
        if self.rules is None:
            self.rules = tuple(
                None if t is None else self._compile(i) for i, t in enumerate(self.texts)
            )
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

    def _compile(self, i: int) -> Callable:
        """Input i's rule as a function `rule(g, out, *inputs, **params)`."""
        name = f"rule_of_{self.name}_for_{self.input_names[i]}"
        source = f"def {name}({self._head()}):\n    return (\n        {self.texts[i]}\n    )\n"
        made: dict = {}
        exec(self._code(source, "exec", name.replace("_", " "), {(3, 8): i}), self._namespace, made)
        return made[name]

    def _code(self, source: str, mode: str, label: str, texts_at: dict) -> Any:
        """`source` compiled so that a traceback from a rule shows the rule's line: where the
        rule is written (the `primitive(...)` call, `texts_at` saying where in `source` each
        input's rule text starts), else under a file name saying whose rules it holds and where
        they are written, its text registered with linecache."""
        tree: Any = ast.parse(source, mode=mode)
        file, line = self.origin.rpartition(":")[::2] if self.origin else ("", "0")
        if self._written is None:
            texts = dict(zip(self.input_names, self.texts))
            self._written = written_at(file, int(line), texts)  # type: ignore[arg-type]
        written = self._written
        moves = {}  # generated line -> (where its rule text starts, where that text is written)
        for (gen_line, gen_col), i in texts_at.items():
            if self.input_names[i] in written:
                moves[gen_line] = (gen_col, written[self.input_names[i]])
        if len(moves) == len(texts_at):
            for node in ast.walk(tree):
                if hasattr(node, "lineno"):
                    _move(node, moves.get(node.lineno), int(line))
            return compile(tree, file, mode)
        filename = f"<{label} ({self.origin})>" if self.origin else f"<{label}>"
        lines = source.splitlines(True)
        linecache.cache[filename] = (len(source), None, lines, filename)  # (no mtime: kept)
        return compile(tree, filename, mode)

    def _compile_needed(self, needed: list[int]) -> Callable:
        """The rules of the inputs in `needed` as one function `(g, out, inputs, params)` returning
        a tuple, one gradient per input (the engine's commonest call: one plain call per node, the
        inputs and parameters unpacked only when some rule reads them). One rule per line, so that
        a traceback shows the rule that failed."""
        parts, fused = [], {}
        for i, text in enumerate(self.texts):
            if i not in needed or text is None:
                parts.append("None")
            elif i in self._overridden:  # a fused.py function: called with the rule's arguments
                fused[f"_rule{i}"] = self._overridden[i]
                keywords = [f"{p}={p}" for p in self.params]
                parts.append(f"_rule{i}({', '.join(['g', 'out', *self.input_names, *keywords])})")
            else:
                parts.append(f"({text})")
        head = [
            f"def make({', '.join(fused)}):",
            f"    def rules_of_{self.name}(g, out, inputs, params):",
            *(f"        {line}" for line in self._unpacking(fused, needed)),
            "        return (",
        ]
        texts_at = {  # (line, column) where each rule's text starts in the source
            (len(head) + 1 + k, 13): k for k, part in enumerate(parts) if part.startswith("(")
        }
        source = "\n".join(
            [*head, *(f"            {part}," for part in parts), "        )"]
            + [f"    return rules_of_{self.name}", ""]
        )
        made: dict = {}  # (exec'd in the rules' module: they see its names, as _compile's do)
        label = f"rules of {self.name} for {', '.join(self.input_names[i] for i in needed)}"
        exec(self._code(source, "exec", label, texts_at), self._namespace, made)
        return made["make"](*fused.values())

    def _unpacking(self, fused: dict, needed: list[int]) -> list[str]:
        """The lines of a combined rule function that name the inputs and parameters its rules
        read (a fused function reads them all)."""
        names = {*self.input_names, *self.params} if fused else set()
        for i in needed:
            text = self.texts[i]
            names |= set(free_names(text)) if text is not None else set()
        lines = []
        inputs = self.input_names
        if names & set(inputs):  # (inputs the forward has defaults for may be left out)
            tail = [repr(self.input_defaults[n]) for n in inputs if n in self.input_defaults]
            given = f"(*inputs, {', '.join(tail)})[:{len(inputs)}]" if tail else "inputs"
            lines.append(f"{', '.join(inputs)}, = {given}")
        for p, default in self.params.items():
            if p in names:
                got = (
                    f"params[{p!r}]" if default is _REQUIRED else f"params.get({p!r}, {default!r})"
                )
                lines.append(f"{p} = {got}")
        return lines

    def override(self, **rules: Callable) -> None:
        """Replace rules by faster functions computing the same thing (fused.py; tested equal)."""
        compiled = list(self.compile())
        for input_name, fn in rules.items():
            i = self.input_names.index(input_name)
            compiled[i] = self._overridden[i] = fn
        self.rules = tuple(compiled)
        self.plans.clear()  # (their combined rules call the old ones)

    def plan(self, needs: int, n: int) -> SavePlan:
        """What to save when the inputs in bitmask `needs` (of `n` inputs) need gradients (cached:
        by `needs` for a fixed number of inputs, by `(needs, n)` for a list of inputs)."""
        key: Any = (needs, n) if self.rule_for_all is not None else needs
        found = self.plans.get(key)
        if found is None:
            found = self.plans[key] = self._make_plan(needs, n)
        return found

    def _make_plan(self, needs: int, n: int) -> SavePlan:
        needed = [i for i in range(n) if (needs >> i) & 1]
        if self.rule_for_all is not None:  # one rule: what it reads of `xs`, it reads of all
            full, _, out = self._reads[0]
            # it gives every input a gradient, even one that needs none: the engine fits each to
            # its input's shape, so it must know them all
            every = tuple(range(n))
            return SavePlan(every if full else (), every, every, out, True, None)
        saved: set[int] = set()
        shape_only: set[int] = set()
        out = False
        for i in needed:
            full, shape, reads_out = self._reads[i]
            saved |= full
            shape_only |= shape
            out = out or reads_out
        shape_only -= saved
        shaped = shape_only | set(needed)  # (the engine sums gradients back to their shapes)
        backward = self._compile_needed(needed)
        return SavePlan(
            tuple(sorted(saved)),
            tuple(sorted(shaped)),
            tuple(sorted(shape_only)),
            out,
            bool(saved) or out,
            backward,
        )

    # ---- use ---------------------------------------------------------------------------------
    def __call__(self, *args: Any, **params: Any) -> Any:
        for a in args:
            if isinstance(a, _tensor_type):
                return _apply(self, *args, **params)
        return self.forward(*args, **params) if params else self.forward(*args)

    def formula(self, latex: bool = False) -> str:
        """The forward and every rule as text (`latex=True`: as LaTeX)."""
        lines = [f"{self.name}: out = {self.expr}    (backward node: {self.node_name})"]
        for input_name, text in zip(self.input_names, self.texts):
            lines.append(f"  dL/d{input_name} = {'0' if text is None else text}")
        lines.append("  (g = dL/dout, the gradient arriving at the output)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<primitive {self.name}>"


_REQUIRED = inspect.Parameter.empty


def _move(node: Any, move: tuple[int, list] | None, line: int) -> None:
    """Give a node of generated rule code its place where the rule is written: `move` is (column
    where the rule's text starts, the pieces of that text as written_at gives them) for a line
    holding a rule; the rest of the generated code goes to `line`, the primitive(...) call's."""
    if move is None or node.col_offset < move[0]:
        node.lineno = node.end_lineno = line
        node.col_offset = node.end_col_offset = 0
        return
    start, pieces = move
    begin, end = node.col_offset - start, node.end_col_offset - start  # (offsets in the text)
    k, node.lineno, col = next(p for p in reversed(pieces) if p[0] <= begin)
    node.col_offset = col + begin - k
    k, node.end_lineno, col = next(p for p in reversed(pieces) if p[0] < end or p[0] == 0)
    node.end_col_offset = col + end - k


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
    caller = sys._getframe(1)
    namespace = caller.f_globals  # rules see the names of the module defining them
    origin = f"{caller.f_code.co_filename}:{caller.f_lineno}"

    def register(forward: Callable) -> Primitive:
        if name in REGISTRY:
            raise ValueError(f"primitive {name!r} is registered twice")
        inputs, params, _, _ = _signature(forward)
        check_names(name, inputs, params, tuple(rules.get(n) for n in inputs), expr, namespace)
        prim = Primitive(
            name,
            forward,
            expr,
            rules,
            namespace,
            view=view,
            elementwise=elementwise,
            batch=batch,
            origin=origin,
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
