"""``@hls.dataflow``: stream kernels chained through FIFOs into one ``wiring.Component``.

A dataflow function's body declares FIFOs and calls kernels, one statement each::

    @hls.dataflow
    def smooth_then_count(s: hls.Stream[signed(12)], o: hls.Stream[unsigned(8)], n: unsigned(10)):
        mid = hls.fifo(signed(14))
        moving_sum(s=s, o=mid, n=n)
        threshold_runs(s=mid, o=o, n=n, level=128)

Every stage starts with the chain's ``start`` and runs at once with the others; tokens
pass through an :class:`amaranth.lib.fifo.SyncFIFO` per ``hls.fifo``. What is allowed,
and why it cannot deadlock:

* each stage's stream parameter is bound to a stream parameter of the chain or to a FIFO;
  its scalar parameters to a scalar parameter of the chain or to an integer constant;
  arrays are not taken (a stage that needs one is an error);
* every FIFO is written by one stage and read by one later stage (in source order), and
  every stream parameter of the chain is used by one stage, which decides its direction;
* a stage reads at most one FIFO and writes at most one: the stages form paths, with no
  fork that joins again. On a path a stage waits only for its neighbours, and a FIFO
  cannot be empty (its reader waits) and full (its writer waits) at once, so any FIFO of
  at least one token is deadlock-free; forks and joins, whose FIFOs need depths from the
  production and consumption times of both branches, are refused;
* a FIFO's depth is 2 unless given (``hls.fifo(shape, depth=k)``, ``k >= 1``): with two
  entries, an II-1 writer and an II-1 reader move a token every cycle;
* a stage's result cannot be kept (``x = stage(...)``): a scalar does not cross stages,
  and the error names the variable; write it to a stream instead.

Calling the chain runs its golden model: the stages' golden models in order, each FIFO a
list the writer fills and the reader empties. A FIFO left with tokens its reader did not
take is a :class:`~hls.errors.KernelRuntimeError` (the hardware's writer would wait for
ever behind them).
"""

from __future__ import annotations

import ast
import builtins
import numbers
from dataclasses import dataclass, field

from amaranth.back import verilog as amaranth_verilog
from amaranth.hdl import Const, Module, Shape, Signal
from amaranth.lib import fifo as amaranth_fifo
from amaranth.lib import wiring

from .approx import approx_mapping
from .backend.component import KernelSignature
from .compiler import compile_kernel
from .errors import KernelRuntimeError, KernelSyntaxError
from .frontend.source import SourceFunction
from .frontend.typed import Param
from .kernel import Kernel
from .target import Target
from .types import StreamType, format_shape

__all__ = ["dataflow", "fifo", "Dataflow", "CompiledDataflow", "DataflowComponent", "Stage", "Fifo", "DEFAULT_FIFO_DEPTH"]

#: The depth of a FIFO not given one: an II-1 writer and reader then move a token every cycle.
DEFAULT_FIFO_DEPTH = 2


def fifo(shape, depth: int | None = None):
    """Declares a FIFO of tokens of ``shape`` in an ``@hls.dataflow`` body (``mid = hls.fifo(signed(16))``).

    Raises
    ------
    TypeError
        Always, when called: it is a declaration the dataflow front end reads, not a function.
    """
    raise TypeError("hls.fifo(...) declares a FIFO in an @hls.dataflow body; it is not called at run time")


@dataclass
class Fifo:
    """One FIFO of a chain.

    Attributes
    ----------
    name : str
    shape : Shape
    depth : int
    lineno : int
    writer, reader : int or None
        Index of the stage writing and of the stage reading it.
    """

    name: str
    shape: Shape
    depth: int
    lineno: int
    writer: int | None = None
    reader: int | None = None


@dataclass
class Stage:
    """One kernel call of a chain.

    Attributes
    ----------
    kernel : hls.Kernel
    lineno : int
    streams : dict of str to (str, str)
        Stream parameter of the kernel -> ``("param", name)`` or ``("fifo", name)``.
    scalars : dict of str to (str, object)
        Scalar parameter -> ``("param", name)`` or ``("const", int)``.
    """

    kernel: Kernel
    lineno: int
    streams: dict = field(default_factory=dict)
    scalars: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.kernel.name


class Dataflow(SourceFunction):
    """A chain of stream kernels: ``@hls.dataflow``. Calling it runs the golden model.

    Attributes
    ----------
    params : list of hls.frontend.typed.Param
        The chain's scalar and stream parameters (a stream's direction is that of the stage using it).
    stages : list of Stage
    fifos : dict of str to Fifo

    Raises
    ------
    hls.errors.KernelSyntaxError
        (from :meth:`analyze`) for a body outside these rules, naming the line.
    """

    def __init__(self, fn, *, stage_kernel=None):
        super().__init__(fn)
        # kernel -> kernel, applied to every stage the body calls (with_approx, with_clock).
        self._stage_kernel = stage_kernel
        self._analyzed = False
        self._compiled_model = None
        self.tokens_read: dict[str, int] = {}

    # -- the chain -------------------------------------------------------------------------

    def analyze(self) -> "Dataflow":
        """Check the body (once) and fill :attr:`params`, :attr:`stages` and :attr:`fifos`."""
        if not self._analyzed:
            _Analyzer(self).run()
            self._analyzed = True
        return self

    @property
    def params(self) -> list[Param]:
        return self.analyze()._params

    @property
    def stages(self) -> list[Stage]:
        return self.analyze()._stages

    @property
    def fifos(self) -> dict[str, Fifo]:
        return self.analyze()._fifos

    def with_approx(self, mapping: dict | None) -> "Dataflow":
        """The same chain with every stage's kernel ``kernel.with_approx(mapping)`` (``None`` or
        ``{}``: exact arithmetic), as an approximate configuration applies to a kernel.

        Raises
        ------
        ValueError
            As the ``approx=`` option of :class:`hls.Kernel`.
        """
        approx_mapping(mapping)
        return self._derived(lambda kernel: kernel.with_approx(mapping))

    def with_clock(self, clock_mhz: float) -> "Dataflow":
        """The same chain with every stage's kernel compiled for ``clock_mhz`` (its other target
        options and its ``approx=`` kept).

        Raises
        ------
        ValueError
            A clock out of :class:`hls.Target`'s range.
        """
        Target(clock_mhz=clock_mhz)
        return self._derived(lambda kernel: Kernel(kernel.fn, target=kernel.target.replace(clock_mhz=clock_mhz),
                                                   approx=kernel.approx))

    def _derived(self, change) -> "Dataflow":
        previous = self._stage_kernel
        return Dataflow(self.fn, stage_kernel=change if previous is None else (lambda kernel: change(previous(kernel))))

    # -- the golden model ------------------------------------------------------------------

    def golden_model(self) -> "Dataflow":
        """The chain itself: :meth:`call` runs it (so it stands where a kernel's model does)."""
        return self.analyze()

    def compiled_model(self) -> "CompiledDataflow":
        """The chain run on its stages' compiled models (:class:`CompiledDataflow`, built once)."""
        if self._compiled_model is None:
            self._compiled_model = CompiledDataflow(self)
        return self._compiled_model

    def __call__(self, *args, **kwargs):
        return self.call(args, kwargs)

    def call(self, args: tuple, kwargs: dict, *, max_loop_iterations: int | None = None):
        """Run every stage's golden model in order; output streams are appended to.

        Raises
        ------
        TypeError
            Missing or unexpected arguments.
        hls.errors.KernelRuntimeError
            A stage's own run-time error, or a FIFO left with tokens its reader did not take.
        """
        self.tokens_read = {}
        return self._run_stages(args, kwargs, max_loop_iterations, self, lambda kernel: kernel.golden_model())

    def _run_stages(self, args: tuple, kwargs: dict, max_loop_iterations, counts, model_of):
        """The chain's run with ``model_of(stage kernel)`` for each stage; the input streams'
        counts go to ``counts.tokens_read``."""
        params = self.params
        if len(args) > len(params):
            raise TypeError(f"{self.name}() takes {len(params)} argument(s), {len(args)} given")
        bound = {param.name: value for param, value in zip(params, args)}
        for key, value in kwargs.items():
            if key in bound or key not in {param.name for param in params}:
                raise TypeError(f"{self.name}() got an unexpected or repeated argument {key!r}")
            bound[key] = value
        missing = [param.name for param in params if param.name not in bound]
        if missing:
            raise TypeError(f"{self.name}() is missing argument(s): {', '.join(missing)}")
        inputs = {param.name: _Counted(bound[param.name]) for param in params
                  if param.kind == "stream" and param.direction == "in"}
        queues = {name: [] for name in self.fifos}
        try:
            for index, stage in enumerate(self.stages):
                arguments = {}
                for name, (kind, source) in stage.streams.items():
                    if kind == "fifo":
                        arguments[name] = queues[source]
                    else:
                        arguments[name] = inputs.get(source, bound[source])
                for name, (kind, source) in stage.scalars.items():
                    arguments[name] = source if kind == "const" else bound[source]
                model = model_of(stage.kernel)
                model.call((), arguments, max_loop_iterations=max_loop_iterations)
                for name, (kind, source) in stage.streams.items():
                    if kind == "fifo" and self.fifos[source].reader == index:
                        left = len(queues[source]) - model.tokens_read[name]
                        if left:
                            raise KernelRuntimeError(self.filename, stage.lineno,
                                                     f"FIFO {source!r}: {stage.name} read "
                                                     f"{model.tokens_read[name]} of the {len(queues[source])} "
                                                     f"tokens written to it; the {left} left would hold its "
                                                     f"writer for ever")
        finally:
            counts.tokens_read = {name: stream.count for name, stream in inputs.items()}
        return None

    # -- hardware --------------------------------------------------------------------------

    def signature(self) -> KernelSignature:
        """The chain's ports: ``ctrl``, one input per scalar parameter, one port per stream."""
        return KernelSignature(scalars={p.name: p.shape for p in self.params if p.kind == "scalar"},
                               streams={p.name: (p.shape, p.direction) for p in self.params if p.kind == "stream"})

    def to_amaranth(self) -> "DataflowComponent":
        """A fresh component: every stage compiled for its own target, and the FIFOs."""
        return DataflowComponent(self)

    def verilog(self, name: str | None = None) -> str:
        """The chain as Verilog text (module ``name``, default the chain's name)."""
        return amaranth_verilog.convert(self.to_amaranth(), name=name or self.name, emit_src=False)

    def report(self) -> str:
        """Each stage's pipelined loops (II, depth), and each FIFO's depth and ends."""
        lines = [f"dataflow {self.name}: {len(self.stages)} stages run at once, {len(self.fifos)} FIFO(s)"]
        for stage in self.stages:
            loops = [loop for loop in compile_kernel(stage.kernel).report.to_json()["loops"] if loop["pipelined"]]
            shown = ", ".join(f"line {loop['line']}: II {loop['ii']}, depth {loop['depth']}" for loop in loops)
            lines.append(f"  stage {stage.name} (line {stage.lineno}): {shown or 'no pipelined loop'}")
        for item in self.fifos.values():
            lines.append(f"  FIFO {item.name} (line {item.lineno}): {format_shape(item.shape)}, depth {item.depth}, "
                         f"{self.stages[item.writer].name} -> {self.stages[item.reader].name}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Dataflow {self.name} from {self.filename}>"


def dataflow(fn) -> Dataflow:
    """Decorator: a chain of ``@hls.kernel`` stream kernels (see the module's documentation)."""
    return Dataflow(fn)


class _Counted:
    """An input stream's iterable, counting the tokens taken from it."""

    def __init__(self, tokens):
        self.tokens = iter(tokens)
        self.count = 0

    def __iter__(self):
        return self

    def __next__(self):
        token = next(self.tokens)
        self.count += 1
        return token


class DataflowComponent(wiring.Component):
    """The hardware of a chain: its stages' components and a ``SyncFIFO`` per FIFO.

    ``ctrl.start`` starts every stage (each latches its scalars then); ``ctrl.done`` rises
    once every stage has raised its own ``done``. The signature is a
    :class:`~hls.backend.component.KernelSignature` without arrays or results.

    Parameters
    ----------
    chain : Dataflow
    """

    def __init__(self, chain: Dataflow):
        self._chain = chain
        super().__init__(chain.signature())

    def elaborate(self, platform):
        chain = self._chain
        m = Module()
        components = []
        for index, stage in enumerate(chain.stages):
            component = compile_kernel(stage.kernel).component()
            m.submodules[f"stage{index}_{stage.name}"] = component
            components.append(component)
        buffers = {}
        for item in chain.fifos.values():
            buffers[item.name] = m.submodules[f"fifo_{item.name}"] = amaranth_fifo.SyncFIFO(
                width=item.shape.width, depth=item.depth)
        busy = Signal()
        start = self.ctrl.start & ~busy
        finished = []
        for index, (stage, component) in enumerate(zip(chain.stages, components)):
            for name, (kind, source) in stage.streams.items():
                port = getattr(component, name)
                if kind == "param":
                    wiring.connect(m, wiring.flipped(getattr(self, source)), port)
                elif chain.fifos[source].reader == index:
                    wiring.connect(m, buffers[source].r_stream, port)
                else:
                    wiring.connect(m, port, buffers[source].w_stream)
            for name, (kind, source) in stage.scalars.items():
                value = Const(source, getattr(component, name).shape()) if kind == "const" else getattr(self, source)
                m.d.comb += getattr(component, name).eq(value)
            m.d.comb += component.ctrl.start.eq(start)
            ended = Signal(name=f"{stage.name}_ended")
            with m.If(start):
                m.d.sync += ended.eq(0)
            with m.Elif(component.ctrl.done):
                m.d.sync += ended.eq(1)
            finished.append(ended | component.ctrl.done)
        done = Signal()
        m.d.comb += done.eq(busy & _all(finished))
        with m.If(start):
            m.d.sync += busy.eq(1)
        with m.Elif(done):
            m.d.sync += busy.eq(0)
        m.d.comb += [self.ctrl.busy.eq(busy), self.ctrl.done.eq(done)]
        return m


def _all(values):
    result = values[0]
    for value in values[1:]:
        result = result & value
    return result


class _Analyzer:
    """Reads a dataflow body: FIFO declarations and kernel calls (see the module's documentation)."""

    def __init__(self, chain: Dataflow):
        self.chain = chain
        self.namespace = dict(vars(builtins))
        self.namespace.update(chain.fn.__globals__)

    def error(self, node, message: str, hint: str | None = None):
        raise KernelSyntaxError(self.chain.filename, getattr(node, "lineno", 0), getattr(node, "col_offset", -1) + 1,
                                message, hint)

    def run(self):
        chain, tree = self.chain, self.chain.tree
        annotations = dict(getattr(chain.fn, "__annotations__", {}))
        params = []
        for arg in tree.args.args:
            annotation = annotations.get(arg.arg)
            if isinstance(annotation, str) and arg.annotation is not None:
                # ``from __future__ import annotations``: the text, evaluated where the chain is defined.
                try:
                    annotation = eval(compile(ast.Expression(arg.annotation), chain.filename, "eval"),
                                      self.namespace)
                except Exception as error:
                    self.error(arg, f"cannot evaluate annotation {ast.unparse(arg.annotation)!r}: {error}")
            if isinstance(annotation, StreamType):
                params.append(Param(arg.arg, "stream", annotation.shape, None, arg.lineno, arg.col_offset))
            elif isinstance(annotation, Shape):
                params.append(Param(arg.arg, "scalar", annotation, None, arg.lineno, arg.col_offset))
            else:
                self.error(arg, f"dataflow parameter {arg.arg!r} must be a scalar shape or an hls.Stream[shape], "
                                f"not {annotation!r}", "arrays do not cross stages: pass streams")
        if tree.returns is not None:
            self.error(tree.returns, f"dataflow {chain.name} returns nothing: its results are its output streams")
        by_name = {param.name: param for param in params}
        fifos: dict[str, Fifo] = {}
        stages: list[Stage] = []
        used: dict[str, int] = {}       # chain stream -> the stage using it
        body = list(tree.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]
        for statement in body:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call) \
                    and self.resolve(statement.value.func) is fifo:
                declared = self.fifo(statement.targets[0].id, statement.value, statement)
                if declared.name in fifos or declared.name in by_name:
                    self.error(statement, f"{declared.name!r} is declared twice")
                fifos[declared.name] = declared
                continue
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(statement.value, ast.Call) \
                    and isinstance(self.resolve(statement.value.func), Kernel):
                target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
                self.error(statement, f"the result of stage {ast.unparse(statement.value.func)} cannot be kept in "
                                      f"{ast.unparse(target)!r}: a scalar does not cross the stages of a dataflow",
                           "write it to an output stream of the stage instead")
            if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
                self.error(statement, "a dataflow body holds only FIFO declarations (x = hls.fifo(shape)) and "
                                      "kernel calls, one per statement")
            stages.append(self.stage(statement.value, stages, by_name, fifos, used))
        if not stages:
            self.error(tree, f"dataflow {chain.name} calls no kernel", "call the kernels of the chain in its body")
        for item in fifos.values():
            if item.writer is None or item.reader is None:
                missing = "written" if item.writer is None else "read"
                self.error(ast.Name(id=item.name, lineno=item.lineno, col_offset=0),
                           f"FIFO {item.name!r} is never {missing} by a stage")
        for param in params:
            if param.kind == "stream" and param.name not in used:
                self.error(ast.Name(id=param.name, lineno=param.lineno, col_offset=param.col_offset),
                           f"stream parameter {param.name!r} is not given to any stage")
        chain._params, chain._stages, chain._fifos = params, stages, fifos

    def resolve(self, node):
        if isinstance(node, ast.Name):
            return self.namespace.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None

    def fifo(self, name: str, call: ast.Call, statement) -> Fifo:
        usage = f"write {name} = hls.fifo(signed(16)) or hls.fifo(signed(16), depth=4)"
        if len(call.args) != 1 or any(keyword.arg != "depth" for keyword in call.keywords):
            self.error(call, "hls.fifo takes a shape and, optionally, depth=", usage)
        try:
            shape = eval(compile(ast.Expression(call.args[0]), self.chain.filename, "eval"), self.namespace)
        except Exception as error:
            self.error(call.args[0], f"cannot evaluate the FIFO's shape {ast.unparse(call.args[0])!r}: {error}")
        if not isinstance(shape, Shape) or shape.width == 0:
            self.error(call.args[0], f"FIFO {name!r}: the token shape must be an Amaranth shape of at least one bit, "
                                     f"not {ast.unparse(call.args[0])}", usage)
        depth = DEFAULT_FIFO_DEPTH
        for keyword in call.keywords:
            value = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                self.error(keyword.value, f"FIFO {name!r}: depth={ast.unparse(keyword.value)} is too small or not an "
                                          f"integer; a FIFO holds at least 1 token",
                           f"leave depth out for {DEFAULT_FIFO_DEPTH}, which keeps II-1 stages at a token per cycle")
            depth = value
        return Fifo(name, shape, depth, statement.lineno)

    def stage(self, call: ast.Call, stages: list, by_name: dict, fifos: dict, used: dict) -> Stage:
        index = len(stages)
        kernel = self.resolve(call.func)
        if not isinstance(kernel, Kernel):
            self.error(call, f"{ast.unparse(call.func)} is not an @hls.kernel: a dataflow body calls kernels only")
        if self.chain._stage_kernel is not None:
            kernel = self.chain._stage_kernel(kernel)
        kernel_params = kernel.params
        names = [param.name for param in kernel_params]
        bound = {}
        if len(call.args) > len(names):
            self.error(call, f"{kernel.name} takes {len(names)} argument(s), {len(call.args)} given")
        for param_name, argument in zip(names, call.args):
            bound[param_name] = argument
        for keyword in call.keywords:
            if keyword.arg is None or keyword.arg not in names or keyword.arg in bound:
                self.error(keyword, f"{kernel.name} has no parameter {keyword.arg!r}, or it is given twice")
            bound[keyword.arg] = keyword.value
        stage = Stage(kernel, call.lineno)
        reads, writes = [], []
        for param in kernel_params:
            if param.name not in bound:
                self.error(call, f"stage {kernel.name} is missing argument {param.name!r}")
            argument = bound[param.name]
            if param.kind == "array":
                self.error(argument, f"stage {kernel.name} takes the array {param.name!r}: arrays do not cross the "
                                     f"stages of a dataflow", "pass the data as a stream")
            if param.kind == "scalar":
                constant = argument.value if isinstance(argument, ast.Constant) else self.constant(argument, by_name)
                if constant is not None:
                    stage.scalars[param.name] = ("const", constant)
                elif isinstance(argument, ast.Name) and by_name.get(argument.id) is not None \
                        and by_name[argument.id].kind == "scalar":
                    stage.scalars[param.name] = ("param", argument.id)
                else:
                    self.error(argument, f"argument {param.name!r} of {kernel.name} must be a scalar parameter of "
                                         f"the dataflow or an integer constant, not {ast.unparse(argument)}")
                continue
            if not isinstance(argument, ast.Name) or (argument.id not in fifos and argument.id not in by_name) \
                    or (argument.id in by_name and by_name[argument.id].kind != "stream"):
                self.error(argument, f"stream {param.name!r} of {kernel.name} must be given a stream parameter of "
                                     f"the dataflow or a FIFO, not {ast.unparse(argument)}")
            source = argument.id
            shape = fifos[source].shape if source in fifos else by_name[source].shape
            if shape != param.shape:
                self.error(argument, f"{source!r} carries {format_shape(shape)} tokens but stream {param.name!r} of "
                                     f"{kernel.name} takes {format_shape(param.shape)}")
            if source in fifos:
                item = fifos[source]
                if param.direction == "out":
                    if item.writer is not None:
                        self.error(argument, f"FIFO {source!r} is written by two stages "
                                             f"({stages[item.writer].name} and {kernel.name})")
                    item.writer = index
                    writes.append(source)
                else:
                    if item.writer is None:
                        self.error(argument, f"FIFO {source!r} is read by {kernel.name} before a stage writes it",
                                   "call the stage that writes it first")
                    if item.reader is not None:
                        self.error(argument, f"FIFO {source!r} is read by two stages")
                    item.reader = index
                    reads.append(source)
                stage.streams[param.name] = ("fifo", source)
            else:
                if source in used:
                    self.error(argument, f"stream parameter {source!r} is given to two stages")
                used[source] = index
                by_name[source].direction = param.direction
                stage.streams[param.name] = ("param", source)
        for what, names_used in (("reads", reads), ("writes", writes)):
            if len(names_used) > 1:
                self.error(call, f"stage {kernel.name} {what} {len(names_used)} FIFOs ({', '.join(names_used)}): a "
                                 f"stage reads at most one FIFO and writes at most one",
                           "forks and joins are not supported (their FIFO depths would depend on both branches)")
        return stage

    def constant(self, node, by_name: dict):
        if isinstance(node, ast.Name) and node.id not in by_name:
            value = self.namespace.get(node.id)
            if isinstance(value, numbers.Integral) and not isinstance(value, bool):
                return int(value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            return -node.operand.value
        return None


class CompiledDataflow:
    """A chain run on each stage's compiled golden model (:meth:`hls.Kernel.compiled_model`):
    :meth:`Dataflow.call` at the speed its stages compile to.

    Attributes
    ----------
    name : str
    fallback_reason : str or None
        Why a stage runs the Python run (the first such stage, by name, and its reason);
        ``None`` when every stage runs compiled code.
    tokens_read : dict of str to int
        After a call: how many tokens the chain read from each input stream.
    """

    def __init__(self, chain: Dataflow):
        self.chain = chain.analyze()
        self.name = chain.name
        self.tokens_read: dict[str, int] = {}
        self.fallback_reason = next((f"stage {stage.name}: {stage.kernel.compiled_model().fallback_reason}"
                                     for stage in chain.stages if not stage.kernel.compiled_model().compiled),
                                    None)

    @property
    def compiled(self) -> bool:
        """Whether every stage runs compiled code."""
        return self.fallback_reason is None

    def __call__(self, *args, **kwargs):
        return self.call(args, kwargs)

    def call(self, args: tuple, kwargs: dict, *, max_loop_iterations: int | None = None):
        """:meth:`Dataflow.call` with each stage's compiled model."""
        self.tokens_read = {}
        return self.chain._run_stages(args, kwargs, max_loop_iterations, self,
                                      lambda kernel: kernel.compiled_model())
