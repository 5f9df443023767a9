"""``@hls.dataflow``: stream kernels chained through FIFOs into one ``wiring.Component``.

A dataflow function's body declares FIFOs and calls kernels, one statement each::

    @hls.dataflow
    def smooth_then_count(s: hls.Stream[signed(12)], o: hls.Stream[unsigned(8)], n: unsigned(10)):
        mid = hls.fifo(signed(14))
        moving_sum(s=s, o=mid, n=n)
        threshold_runs(s=mid, o=o, n=n, level=128)

Every stage starts with the chain's ``start`` and runs at once with the others; tokens
pass through a FIFO per ``hls.fifo`` (:func:`hls.backend.fifo.chain_fifo`: ``SyncFIFO``'s
interface and timing, in registers up to two tokens, else in LUT RAM). What is allowed,
and why it cannot deadlock:

* each stage's stream parameter is bound to a stream parameter of the chain or to a FIFO;
  its scalar parameters to a scalar parameter of the chain or to an integer constant;
  arrays are not taken (a stage that needs one is an error);
* every FIFO is written by one stage and read by one later stage (in source order), and
  every stream parameter of the chain is used by one stage, which decides its direction;
* a stage may read and write several FIFOs: the stages form a graph without cycles. On a
  path a stage waits only for its neighbours, and a FIFO cannot be empty (its reader waits)
  and full (its writer waits) at once, so any FIFO of at least one token is deadlock-free; a
  fork that joins again deadlocks when its short branch's FIFO cannot hold what the long
  branch takes in before it gives out, so every stage connected to a fork or a join must have
  token times its schedule gives (:class:`hls.dataflow_timing.StageModel`);
* a FIFO's depth comes from its writer's and reader's schedules (:class:`ChainPlan`,
  :mod:`hls.dataflow_timing`): the least depth at which the writer is never stalled by it
  (or, for a writer faster than its reader, at which the reader never waits longer than with
  an unbounded FIFO). A depth given by hand (``hls.fifo(shape, depth=k)``, ``k >= 1``) below
  that is an error naming the FIFO; where a stage's token count depends on the data, the
  depth is the one given, or :data:`DEFAULT_FIFO_DEPTH`;
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
from amaranth.lib import wiring

from .approx import approx_mapping
from .backend.component import KernelSignature
from .backend.fifo import area_estimate, chain_fifo, implementation
from .compiler import compile_kernel
from .dataflow_timing import StageModel, cycle_budget, horizon, iterations, needed_depth, simulate
from .errors import KernelRuntimeError, KernelSyntaxError
from .frontend.golden import GoldenModel
from .frontend.source import SourceFunction
from .frontend.typed import Param
from .kernel import Kernel
from .target import Target
from .types import StreamType, format_shape
from .syntax import compile_tree

__all__ = ["dataflow", "fifo", "Dataflow", "CompiledDataflow", "DataflowComponent", "ChainPlan", "Stage", "Fifo",
           "DEFAULT_FIFO_DEPTH", "DEFAULT_REPORT_TOKENS", "FIFO_LATENCY", "format_report"]

#: The depth of a FIFO not given one: an II-1 writer and reader then move a token every cycle.
DEFAULT_FIFO_DEPTH = 2

#: The iterations of the source stages that :meth:`Dataflow.report` runs its figures over.
DEFAULT_REPORT_TOKENS = 1000

#: Cycles from a token written into a chain's FIFO (``SyncFIFO``'s timing) to the cycle its reader can take it.
FIFO_LATENCY = 1

#: Runs of the token model under outside stalls (probability 0.3, seeds 0 ..) that a chain with
#: forks and joins must finish at its FIFOs' figures.
STALLED_RUNS = 8


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
        The depth it is built with: ``given``, else ``needed``, else :data:`DEFAULT_FIFO_DEPTH`
        (final once :meth:`Dataflow.plan` has run).
    lineno, col : int
        Where it is declared.
    writer, reader : int or None
        Index of the stage writing and of the stage reading it.
    given : int or None
        The depth of ``hls.fifo(shape, depth=k)``.
    needed : int or None
        The depth its writer's and reader's schedules need (:func:`hls.dataflow_timing.needed_depth`);
        ``None`` where they do not bound it, and ``rule`` says why.
    outpaced : bool
        Its writer makes tokens faster than its reader takes them (``needed`` then keeps the
        reader from waiting; the writer waits whatever the depth).
    deadlock_below : int or None
        On a fork that joins again: below this depth (the others at their figures), the chain
        deadlocks.
    rule : str
        How the depth was found, as a sentence of the report.
    """

    name: str
    shape: Shape
    depth: int
    lineno: int
    writer: int | None = None
    reader: int | None = None
    col: int = 1
    given: int | None = None
    needed: int | None = None
    outpaced: bool = False
    deadlock_below: int | None = None
    rule: str = ""


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
        self._plan = None
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

    def bind(self, args: tuple, kwargs: dict) -> dict:
        """Check call arguments against the chain's parameters; returns ``{name: value}``.

        Raises
        ------
        TypeError
            Missing, unexpected or repeated arguments, or values of the wrong type.
        ValueError
            Values that do not fit their shapes.
        """
        params = self.params
        if len(args) > len(params):
            raise TypeError(f"{self.name}() takes {len(params)} argument(s), {len(args)} given")
        bound = {param.name: value for param, value in zip(params, args)}
        for key, value in kwargs.items():
            if key in bound:
                raise TypeError(f"{self.name}() got argument {key!r} twice")
            if key not in {param.name for param in params}:
                raise TypeError(f"{self.name}() has no parameter {key!r} "
                                f"(parameters: {', '.join(param.name for param in params)})")
            bound[key] = value
        missing = [param.name for param in params if param.name not in bound]
        if missing:
            raise TypeError(f"{self.name}() is missing argument(s): {', '.join(missing)}")
        for param in params:
            if param.kind == "scalar" or isinstance(bound[param.name], list):
                GoldenModel.check_argument(param, bound[param.name])
        return bound

    def run_checked(self, bound: dict, *, max_loop_iterations: int | None = None) -> tuple[dict, list]:
        """Run every stage's golden model recording the values that did not fit where they were
        assigned (:meth:`hls.frontend.golden.GoldenModel.run_checked`, stage by stage).

        Returns
        -------
        (streams, overflows)
            Each output stream's tokens; every stage's overflows, in stage order.
        """
        overflows = []
        outputs = {param.name: [] for param in self.params if param.kind == "stream" and param.direction == "out"}
        bound = {**bound, **outputs}

        def checked(model, arguments):
            _, arrays, found = model.run_checked(model.bind((), arguments), max_loop_iterations=max_loop_iterations)
            overflows.extend(found)
            for name, param in ((p.name, p) for p in model.typed.params):
                if param.kind == "stream" and param.direction == "out":
                    arguments[name].extend(arrays[name])

        self._run_stages((), bound, max_loop_iterations, self, lambda kernel: kernel.golden_model(), checked)
        return outputs, overflows

    def _run_stages(self, args: tuple, kwargs: dict, max_loop_iterations, counts, model_of, runner=None):
        """The chain's run with ``model_of(stage kernel)`` for each stage (run by
        ``runner(model, arguments)``, or called); the input streams' counts go to
        ``counts.tokens_read``."""
        bound = self.bind(args, kwargs)
        params = self.params
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
                if runner is None:
                    model.call((), arguments, max_loop_iterations=max_loop_iterations)
                else:
                    runner(model, arguments)
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
        """A fresh component: every stage compiled for its own target, and the FIFOs.

        Raises
        ------
        hls.errors.KernelSyntaxError
            As :meth:`plan`.
        """
        self.plan()
        return DataflowComponent(self)

    def verilog(self, name: str | None = None) -> str:
        """The chain as Verilog text (module ``name``, default the chain's name)."""
        return amaranth_verilog.convert(self.to_amaranth(), name=name or self.name, emit_src=False)

    def plan(self, *, check: bool = True) -> "ChainPlan":
        """Compile every stage (once), derive each FIFO's depth from the schedules and set
        :attr:`Fifo.depth` (see :class:`ChainPlan`).

        Raises
        ------
        hls.errors.KernelSyntaxError
            With ``check``, for a FIFO whose hand-given depth is below what the schedules need,
            naming the FIFO's line, its depth and the depth needed.
        """
        if self._plan is None:
            self._plan = ChainPlan(self.analyze())
        if check:
            for item in self.fifos.values():
                if item.given is not None and item.needed is not None and item.given < item.needed:
                    raise KernelSyntaxError(
                        self.filename, item.lineno, item.col,
                        f"FIFO {item.name!r}: depth={item.given} is too small for the schedules of "
                        f"{self.stages[item.writer].name} -> {self.stages[item.reader].name}, which need depth "
                        f"{item.needed} ({self._shortfall(item)})",
                        f"leave depth out for {item.needed}, or give at least depth={item.needed}")
        return self._plan

    @staticmethod
    def _shortfall(item: Fifo) -> str:
        if item.deadlock_below is not None and item.given < item.deadlock_below:
            return f"below {item.deadlock_below} the chain deadlocks"
        return "else the reader waits" if item.outpaced else "else the writer stalls"

    def report(self, tokens: int = DEFAULT_REPORT_TOKENS) -> str:
        """The chain's report as text: :meth:`report_data` in lines."""
        return format_report(self.report_data(tokens))

    def report_data(self, tokens: int = DEFAULT_REPORT_TOKENS) -> dict:
        """The chain's report (the JSON of ``axhls report --json`` for a chain): each stage's II,
        depth and tokens per call, each FIFO's depth and how it was found, and the chain's
        throughput and latency over ``tokens`` iterations of the stages that read no FIFO
        (see ``docs/language.md`` "Dataflow" for the keys).

        Raises
        ------
        ValueError
            ``tokens`` below 1.
        hls.errors.KernelSyntaxError
            As :meth:`plan`.
        """
        if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 1:
            raise ValueError(f"tokens must be an integer of at least 1, not {tokens!r}")
        return self.plan().report_data(tokens)

    def __repr__(self) -> str:
        return f"<Dataflow {self.name} from {self.filename}>"


class ChainPlan:
    """A chain's stages compiled, modelled (:class:`hls.dataflow_timing.StageModel`) and its
    FIFO depths derived: each FIFO whose writer and reader, and every stage connected to them
    through FIFOs, are modelled gets :attr:`Fifo.needed` from
    :func:`hls.dataflow_timing.needed_depth`; any other keeps its given depth or
    :data:`DEFAULT_FIFO_DEPTH`, and :attr:`Fifo.rule` says why.

    Attributes
    ----------
    compiled : list of hls.compiler.CompiledKernel
    models : list of hls.dataflow_timing.StageModel
    links : list of (str, (int, str), (int, str))
        Each FIFO with its writer's and reader's (stage index, stream parameter).
    """

    def __init__(self, chain: "Dataflow"):
        self.chain = chain
        self.compiled = [compile_kernel(stage.kernel) for stage in chain.stages]
        self.models = [StageModel.of(compiled, {name for name, (kind, _) in stage.streams.items() if kind == "fifo"})
                       for stage, compiled in zip(chain.stages, self.compiled)]
        self.links = []
        for item in chain.fifos.values():
            ends = [next(name for name, (kind, source) in chain.stages[index].streams.items()
                         if kind == "fifo" and source == item.name and
                         {param.name: param.direction for param in chain.stages[index].kernel.params}[name] == way)
                    for index, way in ((item.writer, "out"), (item.reader, "in"))]
            self.links.append((item.name, (item.writer, ends[0]), (item.reader, ends[1])))
        for group in self.groups():
            models, links = self.restricted(group)
            blocked = next((f"stage {model.name} is not modelled: {model.reason}" for model in models if model.reason),
                           None)
            if blocked is None:
                # The depth rule runs the sources for a horizon and twice it; token counts that
                # match only for some runs (a data-dependent writer, a fixed-count reader) leave
                # nothing to derive a depth from.
                base = horizon(models)
                blocked = next((f"its token counts do not match for every run: {found}"
                                for found in (iterations(models, links, base), iterations(models, links, 2 * base))
                                if isinstance(found, str)), None)
            branching = self.branching(group)
            if blocked is not None and branching is not None:
                stage = chain.stages[branching]
                raise KernelSyntaxError(chain.filename, stage.lineno, 1,
                                        f"stage {stage.name} forks or joins FIFOs, so their depths must come from the "
                                        f"schedules of every stage it is connected to, but {blocked}",
                                        "a fork that joins again deadlocks when a FIFO is too shallow: make every "
                                        "connected stage's token count independent of the data")
            for name, _, _ in links:
                item = chain.fifos[name]
                if blocked is None:
                    item.needed, item.outpaced = needed_depth(models, links, name)
                    item.rule = ("from the schedules: the least depth at which "
                                 + ("the reader never waits (the writer is faster)" if item.outpaced
                                    else "the writer never stalls"))
                    item.depth = item.needed if item.given is None else item.given
                else:
                    item.needed = None
                    item.rule = f"not derived ({blocked}); any depth of 1 or more cannot deadlock a path"
                    item.depth = DEFAULT_FIFO_DEPTH if item.given is None else item.given
            if blocked is None and branching is not None:
                self.settle(models, links)

    def branching(self, group: list[int]) -> int | None:
        """The first stage of ``group`` that reads or writes more than one FIFO (a fork or a join)."""
        for index in group:
            if sum(writer == index for _, (writer, _), _ in self.links) > 1 or \
                    sum(reader == index for _, _, (reader, _) in self.links) > 1:
                return index
        return None

    def settle(self, models: list, links: list) -> None:
        """With forks and joins, each FIFO's figure holds with the others unbounded; at all the
        figures at once a writer may still wait (a branch's tokens held up by another's). Raise
        the depth of each FIFO whose writer does, a token at a time, until none does."""
        fifos = self.chain.fifos
        trips = iterations(models, links, horizon(models))
        budget = cycle_budget(models, trips)
        for _ in range(4 * sum(fifos[name].needed for name, _, _ in links) + 64):
            trace = simulate(models, links, {name: fifos[name].needed for name, _, _ in links}, trips, budget)
            late = [name for name, _, _ in links if trace.blocked[name] and not fifos[name].outpaced]
            if trace.cycles is None or late:
                self.deepen(late or [max(links, key=lambda link: trace.blocked[link[0]])[0]])
                continue
            # Outside stalls change the timing but not what a deadlock needs (a full FIFO on one
            # branch, an empty one on the other): the figures are checked under some of them too.
            stalled = [simulate(models, links, {name: fifos[name].needed for name, _, _ in links}, trips, budget,
                                stall_probability=0.3, stall_seed=seed) for seed in range(STALLED_RUNS)]
            stuck = next((trace for trace in stalled if trace.cycles is None), None)
            if stuck is None:
                break
            self.deepen([max(links, key=lambda link: stuck.blocked[link[0]])[0]])
        else:
            raise AssertionError(f"{self.chain.name}: FIFO depths did not settle")
        for name, _, _ in links:
            depths = {other: fifos[other].needed for other, _, _ in links}
            low, high = 1, fifos[name].needed
            while low < high:
                depths[name] = (low + high) // 2
                if simulate(models, links, depths, trips, budget).cycles is None:
                    low = depths[name] + 1
                else:
                    high = depths[name]
            fifos[name].deadlock_below = low if low > 1 else None

    def deepen(self, names: list[str]) -> None:
        for name in names:
            item = self.chain.fifos[name]
            item.needed += 1
            if item.given is None:
                item.depth = item.needed

    def groups(self) -> list[list[int]]:
        """The stages joined by FIFOs, each group in source order."""
        owner = list(range(len(self.models)))

        def root(index):
            while owner[index] != index:
                index = owner[index]
            return index
        for _, (writer, _), (reader, _) in self.links:
            owner[root(reader)] = root(writer)
        groups: dict[int, list[int]] = {}
        for index in range(len(self.models)):
            groups.setdefault(root(index), []).append(index)
        return list(groups.values())

    def restricted(self, group: list[int]):
        """``(models, links)`` of one group, its stages renumbered from 0."""
        number = {index: position for position, index in enumerate(group)}
        links = [(name, (number[w], ws), (number[r], rs)) for name, (w, ws), (r, rs) in self.links if w in number]
        return [self.models[index] for index in group], links

    def report_data(self, tokens: int) -> dict:
        chain = self.chain
        trips, figures = {}, None
        unmodelled = next((f"stage {model.name} is not modelled: {model.reason}" for model in self.models
                           if model.reason), None)
        if unmodelled is None:
            found = iterations(self.models, self.links, tokens)
            if isinstance(found, str):
                unmodelled = found
            else:
                trips = found
        stages = []
        for index, (stage, compiled, model) in enumerate(zip(chain.stages, self.compiled, self.models)):
            loops = [loop for loop in compiled.report.to_json()["loops"] if loop["pipelined"]]
            per_call = {}
            if model.reason is None and (trips or model.stream_loop is None):
                for stream in model.streams:
                    if stream in model.conditional:
                        per_call[stream] = None
                    else:
                        per_call[stream] = model.fixed_tokens(stream) + trips.get(index, 0) * \
                            model.per_iteration.get(stream, 0)
            stages.append({"name": stage.name, "line": stage.lineno, "ii": model.ii, "depth": model.depth,
                           "loops": [{"line": loop["line"], "ii": loop["ii"], "depth": loop["depth"]}
                                     for loop in loops],
                           "tokens_per_call": per_call, "modelled": model.reason is None, "reason": model.reason})
        fifos = [{"name": item.name, "line": item.lineno, "shape": format_shape(item.shape), "depth": item.depth,
                  "given": item.given, "needed": item.needed, "outpaced": item.outpaced,
                  "deadlock_below": item.deadlock_below, "rule": item.rule,
                  "writer": chain.stages[item.writer].name, "reader": chain.stages[item.reader].name,
                  "bits": item.shape.width * item.depth, "latency": FIFO_LATENCY,
                  "implementation": implementation(item.depth),
                  "area_estimate": area_estimate(item.shape.width, item.depth)}
                 for item in chain.fifos.values()]
        if unmodelled is None:
            figures = self.figures(trips, tokens)
        data = {"chain": chain.name, "file": chain.filename, "stages": stages, "fifos": fifos, "tokens": tokens,
                "figures": figures, "figures_reason": unmodelled}
        return data

    def bound(self, tokens: int) -> float:
        """Issue 22's throughput bound over ``tokens`` tokens: 1.05 x (``tokens`` + the sum of the
        stages' depths + :data:`FIFO_LATENCY` per FIFO).  It needs only the schedules, so a chain
        whose stages are not all modelled (no :meth:`figures`) has it too: such a stage's depth is
        that of its deepest pipelined loop."""
        return 1.05 * (tokens + sum(self.stage_depth(index) for index in range(len(self.models)))
                       + FIFO_LATENCY * len(self.chain.fifos))

    def stage_depth(self, index: int) -> int:
        """Stage ``index``'s depth in the bound: its stream loop's (0 for a modelled stage without
        one), or for a stage not modelled its deepest pipelined loop's."""
        model = self.models[index]
        if model.reason is None:
            return model.depth or 0
        return max((loop["depth"] for loop in self.compiled[index].report.to_json()["loops"] if loop["pipelined"]),
                   default=0)

    def figures(self, trips: dict, tokens: int) -> dict:
        """The chain's throughput and latency from :func:`simulate` at the FIFOs' depths."""
        chain = self.chain
        depths = {item.name: item.depth for item in chain.fifos.values()}
        budget = cycle_budget(self.models, trips)
        trace = simulate(self.models, self.links, depths, trips, budget)
        ports = {}
        for index, stage in enumerate(chain.stages):
            for name, (kind, source) in stage.streams.items():
                if kind == "param":
                    ports[source] = trace.transfers[(index, name)]
        directions = {param.name: param.direction for param in chain.params if param.kind == "stream"}
        first_in = min((times[0] for name, times in ports.items() if directions[name] == "in" and times), default=None)
        first_out = min((times[0] for name, times in ports.items() if directions[name] == "out" and times),
                        default=None)
        cycles = trace.cycles
        varying = any(model.conditional for model in self.models)
        depth_sum = sum(self.stage_depth(index) for index in range(len(self.models)))
        bound = self.bound(tokens)
        return {"cycles": cycles, "cycles_per_token": None if cycles is None else cycles / tokens,
                "first_token_in": first_in, "first_token_out": first_out,
                "latency": None if first_in is None or first_out is None else first_out - first_in,
                "ports": {name: {"direction": directions[name], "tokens": len(times),
                                 "data_dependent": any(name == source and stage_stream in model.conditional
                                                       for stage, model in zip(chain.stages, self.models)
                                                       for stage_stream, (kind, source) in stage.streams.items()),
                                 "interval": None if len(times) < 2 else (times[-1] - times[0]) / (len(times) - 1)}
                          for name, times in sorted(ports.items())},
                "stage_depths": depth_sum, "fifo_latencies": FIFO_LATENCY * len(chain.fifos),
                "bound": bound, "all_ii_1": all(model.ii == 1 for model in self.models),
                "data_dependent": varying,
                "within_bound": cycles is not None and cycles <= bound}


def format_report(data: dict) -> str:
    """:meth:`Dataflow.report_data` as lines of text."""
    lines = [f"dataflow {data['chain']}: {len(data['stages'])} stages run at once, {len(data['fifos'])} FIFO(s)"]
    for stage in data["stages"]:
        shown = ", ".join(f"line {loop['line']}: II {loop['ii']}, depth {loop['depth']}" for loop in stage["loops"])
        counts = ", ".join(f"{name} {'data-dependent' if count is None else count}"
                           for name, count in stage["tokens_per_call"].items())
        extra = f"; tokens per call: {counts}" if counts else ""
        if not stage["modelled"]:
            extra += f"; not modelled: {stage['reason']}"
        lines.append(f"  stage {stage['name']} (line {stage['line']}): {shown or 'no pipelined loop'}{extra}")
    for item in data["fifos"]:
        checked = "not checked" if item["needed"] is None else f"needs {item['needed']}"
        given = "" if item["given"] is None else f" (given; {checked})"
        deadlock = "" if item["deadlock_below"] is None else \
            f"; the chain deadlocks below depth {item['deadlock_below']}"
        lines.append(f"  FIFO {item['name']} (line {item['line']}): {item['shape']}, depth {item['depth']}{given}, "
                     f"{item['writer']} -> {item['reader']}, {item['bits']} stored bits in "
                     f"{item['implementation']} (estimated {_area_text(item['area_estimate'], item['bits'])}); "
                     f"depth {item['rule']}{deadlock}")
    figures = data["figures"]
    if figures is None:
        lines.append(f"  figures over {data['tokens']} tokens: none ({data['figures_reason']})")
        return "\n".join(lines)
    hedge = " (at most: conditional stream operations taken as done)" if figures["data_dependent"] else ""
    lines.append(f"  over {data['tokens']} iterations of the source stages{hedge}: {figures['cycles']} cycles, "
                 f"{figures['cycles_per_token']:.3f} cycles per token; first token in at cycle "
                 f"{figures['first_token_in']}, first out at {figures['first_token_out']} (latency "
                 f"{figures['latency']} cycles)")
    for name, port in figures["ports"].items():
        interval = "" if port["interval"] is None else f", one every {port['interval']:.3f} cycles"
        count = f"at most {port['tokens']}" if port["data_dependent"] else str(port["tokens"])
        lines.append(f"    stream {name} ({port['direction']}): {count} tokens{interval}")
    lines.append(f"  bound 1.05 x (N {data['tokens']} + stage depths {figures['stage_depths']} + FIFO latencies "
                 f"{figures['fifo_latencies']}) = {figures['bound']:.1f} cycles: "
                 f"{'within' if figures['within_bound'] else 'above'}"
                 f"{'' if figures['all_ii_1'] else ' (the bound is for chains of II-1 stages)'}")
    return "\n".join(lines)


def _area_text(estimate: dict, bits: int) -> str:
    return (f"{estimate['lut_equivalents']} LUT-eq and {estimate['ffs']} FF on {estimate['target']}, "
            f"{estimate['lut_equivalents'] / bits:.2f} LUT-eq per bit")


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
    """The hardware of a chain: its stages' components and a FIFO per FIFO
    (:func:`hls.backend.fifo.chain_fifo`).

    ``ctrl.start`` starts every stage (each latches its scalars then); ``ctrl.done`` rises
    once every stage has raised its own ``done``. The signature is a
    :class:`~hls.backend.component.KernelSignature` without arrays or results.

    Parameters
    ----------
    chain : Dataflow
    depths : dict of str to int, optional
        For tests only: FIFO name -> a depth to build it with, unchecked (to show in simulation
        what :meth:`Dataflow.plan`'s check refuses).

    Raises
    ------
    hls.errors.KernelSyntaxError
        As :meth:`Dataflow.plan` (without ``depths``).
    """

    def __init__(self, chain: Dataflow, *, depths: dict | None = None):
        self._chain = chain
        self._plan = chain.plan(check=depths is None)
        self._depths = {item.name: item.depth for item in chain.fifos.values()}
        for name, depth in (depths or {}).items():
            if name not in self._depths or isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
                self._MustUse__silence = True      # refused: never to be elaborated
                raise ValueError(f"depths: {name!r}: {depth!r} is not a FIFO of {chain.name} with a depth of 1 or more")
            self._depths[name] = depth
        super().__init__(chain.signature())

    def elaborate(self, platform):
        chain = self._chain
        m = Module()
        components = []
        for index, stage in enumerate(chain.stages):
            component = self._plan.compiled[index].component()
            m.submodules[f"stage{index}_{stage.name}"] = component
            components.append(component)
        buffers = {}
        for item in chain.fifos.values():
            buffers[item.name] = m.submodules[f"fifo_{item.name}"] = chain_fifo(item.shape.width,
                                                                                self._depths[item.name])
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
        raise KernelSyntaxError.at(self.chain.filename, node, message, hint)

    def run(self):
        chain, tree = self.chain, self.chain.tree
        annotations = dict(getattr(chain.fn, "__annotations__", {}))
        params = []
        for arg in tree.args.args:
            annotation = annotations.get(arg.arg)
            if isinstance(annotation, str) and arg.annotation is not None:
                # ``from __future__ import annotations``: the text, evaluated where the chain is defined.
                try:
                    annotation = eval(compile_tree(ast.Expression(arg.annotation), chain.filename, "eval"),
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
            shape = eval(compile_tree(ast.Expression(call.args[0]), self.chain.filename, "eval"), self.namespace)
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
                           "leave depth out for the depth the stages' schedules need")
            depth = value
        return Fifo(name, shape, depth, statement.lineno, col=statement.col_offset + 1,
                    given=depth if call.keywords else None)

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
