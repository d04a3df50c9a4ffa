"""The rule table's machinery: `primitive` registers a NumPy forward with one rule per input.

Layer L1: standard library and numpy. A rule is a Python expression over `g` (dL/dout), `out`, the
inputs and the op's parameters (`x="g * y"`), written as a textbook writes it and compiled into the
function that runs: the formula that explain and tg.autograd.formula show IS the code. Where the
textbook form divides by zero at an edge (pow at 0 ** 0) or is slow (linear's batch), `override`
runs a kernel text instead, tested equal to the textbook wherever the textbook is defined; the
kernels show with `formula(detail=True)`. Rule and kernel texts are checked when registered (every
name they read must exist: primitives/rule_text.py). What the running rule reads decides what the
tape saves: an input whose value no needed rule reads is never saved nor version-checked (`x * 3`
saves nothing of x). Rules call primitives and operators, so they record on Tensors (a backward
with create_graph=True) and are plain NumPy on arrays (every other backward); for the latter each
plan's rules are bound a second time, every primitive they name bound to its NumPy forward (a raw
backward only ever sees arrays), while the text shown stays exactly the code.
"""

from __future__ import annotations

import ast
import builtins
import difflib
import inspect
import linecache
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable

from .rule_text import check_names, free_names, reads, written_at
from .save_plan import SavePlan

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
        if self.variadic and rule_for_all is None:  # (compiled on first use, as the others)
            self.rule_for_all = self._compile_when_called
        self.plans: dict[Any, SavePlan] = {}
        self.kernels: tuple[str | None, ...] = (None,) * len(self.texts)  # what runs instead
        self.kernel_reason = ""  # why a kernel runs (one line, shown by formula(detail=True))
        self._overridden: dict[int, tuple[Callable, dict]] = {}  # kernel: (function, module)

    # ---- rules -------------------------------------------------------------------------------
    def compile(self) -> tuple:
        """The rules as functions `rule(g, out, *inputs, **params)` (None: a zero gradient)."""
        if self.rules is None:
            rules: list[Callable | None] = []
            for i, t in enumerate(self.texts):
                if i in self._overridden:  # (a kernel, fused.py's, runs in place of the text)
                    rules.append(self._overridden[i][0])
                else:
                    rules.append(None if t is None else self._compile(i))
            self.rules = tuple(rules)
        return self.rules

    def _compile_when_called(self, *args: Any, **params: Any) -> Any:
        """A variadic op's rule: compiled on its first call, which it then hands on to (reading
        where a rule is written, to compile it, costs import time)."""
        self.rule_for_all = self._compile(0)
        return self.rule_for_all(*args, **params)

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

    def _compile(self, i: int, kernel: str | None = None, where: tuple = ()) -> Callable:
        """Input i's rule as a function `rule(g, out, *inputs, **params)`; or, given `kernel`, that
        text compiled as the kernel of input i where it is declared (`where`: the module's names
        and the `file:line` of its override call)."""
        what = "rule" if kernel is None else "kernel"
        name = f"{what}_of_{self.name}_for_{self.input_names[i]}"
        text = self.texts[i] if kernel is None else kernel
        source = f"def {name}({self._head()}):\n    return (\n        {text}\n    )\n"
        made: dict = {}
        namespace, origin = where or (self._namespace, self.origin)
        texts_at = None if kernel else {(3, 8): i}
        exec(self._code(source, "exec", name.replace("_", " "), texts_at, origin), namespace, made)
        return made[name]

    def _code(
        self, source: str, mode: str, label: str, texts_at: dict | None, origin: str = ""
    ) -> Any:
        """`source` compiled so that a traceback from a rule shows the rule's line: where the
        rule is written (the `primitive(...)` call, `texts_at` saying where in `source` each
        input's rule text starts), else (texts_at None: a kernel's text, written in fused.py)
        under a file name saying whose rules it holds and where they are written (`origin`, the
        primitive's by default), its text registered with linecache."""
        tree: Any = ast.parse(source, mode=mode)
        file, line = self.origin.rpartition(":")[::2] if self.origin else ("", "0")
        if self._written is None and texts_at is not None:  # (a kernel's text is not there)
            texts = dict(zip(self.input_names, self.texts))
            self._written = written_at(file, int(line), texts)  # type: ignore[arg-type]
        written = self._written or {}
        moves = {}  # generated line -> (where its rule text starts, where that text is written)
        for (gen_line, gen_col), i in (texts_at or {}).items():
            if self.input_names[i] in written:
                moves[gen_line] = (gen_col, written[self.input_names[i]])
        if texts_at is not None and len(moves) == len(texts_at):
            for node in ast.walk(tree):
                if hasattr(node, "lineno"):
                    _move(node, moves.get(node.lineno), int(line))
            return compile(tree, file, mode)
        origin = origin or self.origin
        filename = f"<{label} ({origin})>" if origin else f"<{label}>"
        lines = source.splitlines(True)
        linecache.cache[filename] = (len(source), None, lines, filename)  # (no mtime: kept)
        return compile(tree, filename, mode)

    def _compile_needed(self, needed: list[int]) -> tuple[Callable, Callable]:
        """The rules of the inputs in `needed` as one function `(g, out, inputs, params)` returning
        a tuple, one gradient per input (the engine's commonest call: one plain call per node, the
        inputs and parameters unpacked only when some rule reads them). One rule per line, so that
        a traceback shows the rule that failed. A kernel's text runs inline too (see _parts).
        Returned twice: as written, and for raw backwards with each primitive its texts call bound
        to its forward (the same code: the primitives are `make`'s arguments)."""
        parts, fused, running = self._parts(needed)
        called = self._primitives_called(fused, needed, running)
        head = [
            f"def make({', '.join([*fused, *called])}):",
            f"    def rules_of_{self.name}(g, out, inputs, params):",
            *(f"        {line}" for line in self._unpacking(fused, needed, running)),
            "        return (",
        ]
        texts_at: dict | None = {  # (line, column) where each rule's text starts in the source
            (len(head) + 1 + k, 13): k for k, part in enumerate(parts) if part.startswith("(")
        }
        if any(i in self._overridden for i in needed):  # (a kernel's text is written elsewhere)
            texts_at = None
        source = "\n".join(
            [*head, *(f"            {part}," for part in parts), "        )"]
            + [f"    return rules_of_{self.name}", ""]
        )
        made: dict = {}  # (exec'd in the rules' module: they see its names, as _compile's do)
        label = f"rules of {self.name} for {', '.join(self.input_names[i] for i in needed)}"
        exec(self._code(source, "exec", label, texts_at), self._namespace, made)
        make, forwards = made["make"], [prim.forward for prim in called.values()]
        return make(*fused.values(), *called.values()), make(*fused.values(), *forwards)

    def _primitives_called(self, fused: dict, needed: list[int], running: list) -> dict:
        """The primitives the running texts name (as their module, or `fused`, binds them), to
        bind as closure variables: the primitives themselves, or for raw backwards their
        forwards. Names `fused` binds to another object stay there."""
        local = {"g", "out", *self.input_names, *self.params}
        own = vars(builtins) | self._namespace
        called: dict = {}
        for i in needed:
            if running[i] is None or f"_rule{i}" in fused:  # (a kernel called, not inline)
                continue
            for n in free_names(running[i]):
                found = fused.get(n, own.get(n))
                if n not in local and isinstance(found, Primitive):
                    called[n] = found
        for n in called.keys() & fused.keys():  # (bound once, as a primitive, not twice)
            del fused[n]
        return called

    def _parts(self, needed: list[int]) -> tuple[list[str], dict, list]:
        """Per input, the expression a combined rule function returns ("None" when not needed),
        the objects it binds (`make`'s arguments) and the texts that run: a kernel's text inline,
        the names it reads from its module bound in, or, where one would shadow a name a table
        rule of the same function reads, a call of the kernel's own function."""
        parts, fused, running = [], {}, list(self.texts)
        kernels = self._kernel_names(needed)  # (None: call each kernel's own function instead)
        for i, text in enumerate(self.texts):
            if i not in needed or text is None:
                parts.append("None")
            elif i in self._overridden and kernels is None:  # called with the rule's arguments
                fused[f"_rule{i}"] = self._overridden[i][0]
                keywords = [f"{p}={p}" for p in self.params]
                parts.append(f"_rule{i}({', '.join(['g', 'out', *self.input_names, *keywords])})")
            else:  # a table rule, or a kernel's text
                running[i] = self.kernels[i] if i in self._overridden else text
                parts.append(f"({running[i]})")
        fused.update(kernels or {})
        return parts, fused, running

    def _unpacking(self, fused: dict, needed: list[int], running: list) -> list[str]:
        """The lines of a combined rule function that name the inputs and parameters its rules
        (the `running` texts) read (a kernel's own function reads them all)."""
        calls = any(k.startswith("_rule") for k in fused)
        names = {*self.input_names, *self.params} if calls else set()
        for i in needed:
            text = running[i]
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
                for n in set(free_names(self.kernels[i] or "")) - local:
                    found = namespace.get(n, _MISSING)
                    if found is not _MISSING and own.get(n, _MISSING) is not found:
                        bound[n] = found  # (a name the rules' module lacks, or means otherwise)
            elif self.texts[i] is not None:
                table |= set(free_names(self.texts[i] or ""))
        return None if bound.keys() & table else bound

    def override(self, reason: str, **kernels: str) -> None:
        """Run kernel texts instead of the textbook rules of some inputs: same values wherever the
        textbook is defined (tested), with guards or speed forms the textbook does not need. A
        kernel text is checked as a rule is (every name it reads must exist) and compiled in the
        calling module (fused.py), so it may call its helpers; what it reads is what the tape
        saves.

        >>> pow.override("0 ** 0: d/dx is 0", x="g * y * pow(where(x == 0, 1, x), y - 1)")
        """
        caller = sys._getframe(1)
        namespace, origin = caller.f_globals, f"{caller.f_code.co_filename}:{caller.f_lineno}"
        texts = tuple(kernels.get(n) for n in self.input_names)
        unknown = set(kernels) - set(self.input_names)
        if unknown:
            raise ValueError(
                f"primitive {self.name!r}: kernels for unknown inputs {sorted(unknown)}; "
                f"its inputs are {self.input_names}"
            )
        check_names(self.name, self.input_names, self.params, texts, None, namespace, "kernel")
        kernel_texts = list(self.kernels)
        for input_name, text in kernels.items():
            i = self.input_names.index(input_name)
            self._overridden[i] = (self._compile(i, text, (namespace, origin)), namespace)
            kernel_texts[i] = text
            self._reads[i] = reads(text, self.input_names)
        self.kernels, self.kernel_reason = tuple(kernel_texts), reason
        self.rules = None  # (the table's rules compile on first use, the kernels in their place)
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
        backward, raw_backward = self._compile_needed(needed)
        return SavePlan(
            tuple(sorted(saved)),
            tuple(sorted(shaped)),
            tuple(sorted(shape_only)),
            out,
            bool(saved) or out,
            backward,
            raw_backward,
            (backward, raw_backward),
        )

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

# Keywords that only pass a convolution's or pooling's geometry on to the op its rule calls: the
# textbook leaves them implied (`conv2d_input_grad(g, w, input_shape=x.shape)`).
GEOMETRY = ("stride", "padding", "dilation", "groups", "kernel_size", "divisor")
_PASSED_ON = re.compile(r",\s*(" + "|".join(GEOMETRY) + r")=\1\b")


def plain(text: str) -> str:
    """A rule's text without the geometry keywords it passes on unchanged (`stride=stride`)."""
    return _PASSED_ON.sub("", text)


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
