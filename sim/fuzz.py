"""Differential fuzzing of the compiler: random kernels, hardware against Python, shrinking.

Three parts, each usable alone:

* :func:`generate` writes a random kernel in the kernel language
  (``docs/language.md``) from a seed: arithmetic of mixed widths and signs,
  ``if``/``elif``/``else``, nested ``for`` loops with constant and run-time
  bounds, ``while`` loops with ``break``, ``continue``, and array reads and
  writes with affine and data-dependent indices, plus random arguments. Some
  kernels that multiply or divide limit those operators with
  ``@hls.kernel(resources={"mul": 1})`` and the like, so that shared
  instances are tested too, and some use approximate units, per call
  (``hls.approx.mul/add/sub/div/mod`` on two leaves) or per kernel (``approx=``, an
  adder for ``-`` and a divider for ``%`` too), from :data:`APPROX_UNITS`. For issue 11 it writes loop nests (imperfect,
  triangular, run-time and CSR-like bounds, an inner ``break``), ``hls.unroll``
  loops (full, and partial with a remainder), ``hls.pipeline`` over constant
  inner loops (which the front end unrolls), partitioned array parameters
  (cyclic, block, complete) and ``hls.local`` arrays (plain and partitioned)
  used as window registers and line buffers. For issue 20 some kernels hold a
  *grid nest* whose array ``g`` is indexed by several counters (``g[i * W + j]``):
  read before an inner loop and written after it or the reverse, or updated in
  place, with rows that are distinct or overlap, indices masked into a smaller
  array, a run-time outer bound of 128
  values and an inner ``break`` on data, so that the memory dependences the
  compiler drops from the nest's structure are checked in hardware. For issue 22 some kernels take an input stream
  ``sin`` and an output stream ``sout`` (``hls.Stream``), read (``v = sin.read()``) and
  written (``sout.write(e)``) anywhere a statement may stand: under conditions, in
  pipelined, unrolled and flattened loops; :func:`check` runs them under random
  ``valid``/``ready`` stalls (:data:`STALL_PROBABILITY`). The same ``(seed, index)`` always gives the same program. Every index is kept in
  range by construction (masked with ``& (depth - 1)``, or a loop variable
  whose bound is at most the depth), every loop terminates, and the total trip
  count is bounded so that a program simulates in hundreds of cycles.
* :func:`check` writes the program to a file, loads it as a kernel, simulates
  its hardware (``sim.kernel.run``, Amaranth's simulator by default) and
  compares with the Python run. The :class:`Verdict` separates a mismatch from
  a crash of the compiler and from a program the front end rejected (a bug
  of this generator). A second oracle watches the Python run (which the
  hardware must equal): every approximate operation's result must lie within
  its unit's error bound of the exact result (:func:`approx_bound_check`,
  ``hls.unit_operators.approx_error_bound``), or the verdict is ``"out_of_bound"``.
  A third holds the compiled golden model (:mod:`hls.golden`), which the
  simulation compares the hardware with, to the Python run, bit for bit
  (:func:`compiled_difference`: return value, arrays, and each stream's tokens in order
  and count), or the verdict is ``"compiled_mismatch"``.
* :func:`shrink` deletes statements, unwraps branches and loops, takes out
  unroll and pipeline pragmas and partitions, replaces
  expressions by their operands or by constants and zeroes arguments, for as
  long as the failure stays the same, and :func:`write_regression` saves the
  result as a pytest file under ``tests/sim/regressions/``.

``python benchmarks/fuzz.py --count N --seed S`` drives all three.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import importlib.util
import itertools
import os
import random
import re
import signal
import tempfile
import textwrap
import threading
import traceback
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import artefacts
import hls
from hls.errors import KernelSyntaxError, KernelWarning
from hls.approx import KINDS as APPROX_OPERATORS
from hls.types import format_shape

from .kernel import differences
from .kernel import run as simulate

__all__ = ["FuzzConfig", "Program", "Verdict", "BoundCheck", "generate", "golden_run", "check",
           "approx_bound_check", "compiled_difference", "shrink", "write_regression", "FEATURES"]

#: Everything the generator can produce; :class:`FuzzConfig` can leave features out.
FEATURES = frozenset({
    "if", "elif", "for", "runtime_bound", "nested_loops", "while", "break", "continue",
    "arrays", "dynamic_index", "mul", "divmod", "shift", "compare", "boolean", "ternary",
    "minmax", "abs", "unary", "tuple_return", "augassign", "pragmas", "chained_compare",
    "resources", "approx", "nests", "unroll", "partition", "local", "streams", "chains", "grids",
})

#: Approximate units the generator draws, per kind: (unit, parameters) that every operand
#: width allows (the units are built at least 4 bits wide).
APPROX_UNITS = {
    "mul": [("drum", {"k": 3}), ("drum", {}), ("mitchell", {}), ("mitchell_refined", {}), ("trunc_mul", {"c": 2}),
            ("iterlog", {}), ("exact_mul", {})],
    "add": [("loa", {"l": 2}), ("trunc_add", {"l": 1}), ("eta1", {"l": 2}), ("gear", {}), ("hoaaned", {"l": 2})],
    "div": [("mitchell_div", {}), ("mitchell_div_refined", {"index_bits": 2}), ("aaxd", {"k": 3}), ("aaxd", {}),
            ("exact_div", {})],
}
# `-` is built on an adder and `%` on a divider (hls.approx.UNIT_KIND): the same units.
APPROX_UNITS["sub"] = APPROX_UNITS["add"]
APPROX_UNITS["mod"] = APPROX_UNITS["div"]
#: How often a kernel replaces its operators with units (``@hls.kernel(approx=...)``).
APPROX_KERNEL_CHANCE = 0.25

#: Weight of a loop nest (:meth:`_Generator.statement_nest`) among the statements at the top
#: level (``assign`` weighs 6, ``if`` and ``for`` 3): about half of the programs hold one.
NEST_WEIGHT = 3.0

#: Weight of an ``hls.unroll`` loop (:meth:`_Generator.statement_unroll`) among the statements
#: (divided by one plus the nesting depth, as ``if`` and ``for`` are), and how often a nest's
#: outer loop is ``hls.pipeline`` over a constant inner loop, which the front end unrolls.
UNROLL_WEIGHT = 1.5
PIPELINE_NEST_CHANCE = 0.3
#: How often a nest's accumulator starts from an element read before the inner loop and is
#: written back to it after (``C[i][j] += ...``, issue 20).
READ_BACK_CHANCE = 0.3
#: How often a kernel holds a *grid nest* (:meth:`_Generator.statement_grid`): a nest over ``i``
#: and ``j`` whose array ``g`` is indexed by both counters (``g[i * W + j]``), read before an
#: inner loop and written after it, or the reverse, or updated in place (issue 20). Drawn apart
#: from the program's own draws, as streams are.
GRID_CHANCE = 0.3
#: How often a grid's row stride ``W`` is below its row length, so that ``i * W + j`` is not
#: distinct for distinct ``(i, j)`` and the dependence must stay.
GRID_NEAR_MISS_CHANCE = 0.35
#: How often a grid's outer bound is the run-time ``m: unsigned(7)`` (128 values, more than the
#: exact dependence test follows), and how often its inner loop has a data-dependent ``break``
#: (control that depends on data: no exact test either).
GRID_WIDE_BOUND_CHANCE = 0.4
GRID_BREAK_CHANCE = 0.4
#: How often a grid's body holds one more random statement. Grids stay lean otherwise (their
#: updates are one operator deep), so that their II stays low enough for rows that meet to
#: meet within the pipeline.
GRID_STATEMENT_CHANCE = 0.3
#: How often a grid's read and write are a constant apart (``g[i * W + j + 1]`` against
#: ``g[i * W + j]``, or ``g[(i + 1) * W + j]``): the nest test's distances between forms that
#: differ by a constant (issue 20).
GRID_SHIFT_CHANCE = 0.4
#: How often a grid's array is smaller than its indices reach, both indices masked into it
#: (``g[(i * W + j) & 15]``): the nest test solves for where they meet modulo the depth. Drawn
#: apart from the grid's own draws, so a grid not drawn for it is the one it was before.
GRID_WRAP_CHANCE = 0.3
#: How often an array parameter is partitioned (``hls.Array[shape, depth, hls.partition(...)]``).
PARTITION_CHANCE = 0.35
#: How often a kernel declares local arrays (``hls.local``), and how often each is partitioned.
LOCAL_CHANCE = 0.4
LOCAL_PARTITION_CHANCE = 0.5
#: Weights of the local-array idioms: a window shifted by one (``w[0] = w[1]; ...; w[3] = e``)
#: and a line buffer read and rewritten at one index (``v = lb[i]; lb[i] = e``).
WINDOW_WEIGHT = 1.5
LINE_BUFFER_WEIGHT = 1.5

#: How often a kernel has streams (drawn apart from the program's own draws, so that a kernel
#: not drawn for streams is the program it was before streams existed), the weight of a stream
#: read and of a write among the statements, and the stall probability :func:`check` runs
#: them under, on every input and output.
STREAM_CHANCE = 0.3
STREAM_WEIGHT = 1.0
STALL_PROBABILITY = 0.3
#: How often a program is a dataflow chain (:func:`_chain_program`) instead of one kernel,
#: drawn apart from the program's own draws as streams are; and how many stages a chain has.
CHAIN_CHANCE = 0.1
CHAIN_STAGES = (2, 4)
#: The largest token count of a FIFO or chain stream: small, so that a chain simulates in
#: tens of cycles.
CHAIN_TOKENS = 12
#: The share of chains among the programs of :meth:`FuzzConfig.streams_only`.
STREAMS_ONLY_CHAIN_CHANCE = 0.4

#: How often a kernel that uses a limitable operator limits it, and to how many instances.
RESOURCE_CHANCE = 0.5
RESOURCE_LIMITS = (1, 1, 2)


@dataclass(frozen=True)
class FuzzConfig:
    """Size and content limits of generated programs.

    Attributes
    ----------
    statements : tuple[int, int]
        Range of top-level statements (before the return).
    block_statements : tuple[int, int]
        Range of statements in a nested block.
    max_nesting : int
        Deepest nesting of ``if``/loops.
    max_loop_nesting : int
    max_trip : int
        Largest constant loop bound; run-time bounds are ``unsigned(3)`` parameters.
    max_total_trips : int
        Product of the bounds of nested loops does not exceed this.
    max_width : int
        Widest declared scalar.
    features : frozenset[str]
        Subset of :data:`FEATURES`.
    stream_chance : float
        How often a kernel has streams (:data:`STREAM_CHANCE`); 1 (:meth:`streams_only`):
        every kernel has both streams and reads and writes them at least once.
    chain_chance : float
        How often a program is a dataflow chain (:data:`CHAIN_CHANCE`).
    """

    statements: tuple[int, int] = (2, 5)
    block_statements: tuple[int, int] = (1, 3)
    max_nesting: int = 3
    max_loop_nesting: int = 2
    max_trip: int = 6
    max_total_trips: int = 36
    max_width: int = 16
    features: frozenset = FEATURES
    stream_chance: float = STREAM_CHANCE
    chain_chance: float = CHAIN_CHANCE

    def __post_init__(self):
        unknown = set(self.features) - FEATURES
        if unknown:
            raise ValueError(f"unknown fuzz feature(s) {sorted(unknown)}; known: {sorted(FEATURES)}")
        for name in ("stream_chance", "chain_chance"):
            value = getattr(self, name)
            if not 0 <= value <= 1:
                raise ValueError(f"{name} must be in [0, 1], not {value!r}")

    @classmethod
    def streams_only(cls, **options) -> "FuzzConfig":
        """Every program has streams: a stream kernel that reads and writes at least once, or
        (:data:`STREAMS_ONLY_CHAIN_CHANCE` of them) a dataflow chain."""
        return cls(stream_chance=1.0, chain_chance=STREAMS_ONLY_CHAIN_CHANCE, **options)

    @property
    def streams_forced(self) -> bool:
        return self.stream_chance >= 1


@dataclass
class Program:
    """A generated kernel and the arguments to run it on.

    Attributes
    ----------
    name : str
        The kernel's function name.
    source : str
        A whole Python module defining it with ``@hls.kernel``.
    args : dict
        Parameter name -> int or list of ints (arrays have exactly their depth).
    seed, index : int
        Where it came from: ``generate(seed, index)``.
    streams_only : bool
        Generated with :meth:`FuzzConfig.streams_only` (``benchmarks/fuzz.py --streams-only``).
    """

    name: str
    source: str
    args: dict
    seed: int
    index: int
    streams_only: bool = False

    @property
    def statement_count(self) -> int:
        """Statements of the kernel, or of every kernel of a chain and the chain itself."""
        functions = [node for node in ast.parse(self.source).body if isinstance(node, ast.FunctionDef)]
        return sum(sum(isinstance(node, ast.stmt) for node in ast.walk(function)) - 1 for function in functions)

    @property
    def is_chain(self) -> bool:
        """Whether the program is an ``@hls.dataflow`` chain of kernels."""
        return _is_chain(_kernel_def(ast.parse(self.source), self.name))

    @property
    def constructs(self) -> frozenset[str]:
        """The issue-11 constructs the program holds, read from its source (so a shrunk
        program says what is left): ``"nest"`` (a ``for`` directly in a ``for``), ``"inner
        break"`` (a ``break`` in such an inner loop), ``"unroll"``, ``"partial unroll"``
        (``factor=``), ``"pipelined nest"`` (``hls.pipeline`` on a loop holding a ``for``),
        ``"partition"`` (a partitioned parameter), ``"local"`` and ``"partitioned local"``,
        ``"multi-counter index"`` (an index in two or more loop counters, not masked, or a grid's
        masked into its array: issue 20); and
        for issue 22 ``"stream"`` (a kernel with stream ports), ``"stream read under if"``,
        ``"stream write under if"``, ``"stream in pipelined loop"``, ``"stream in nest"`` and,
        for a dataflow chain, ``"chain"`` and ``"K-stage chain"``, over every kernel of it."""
        module = ast.parse(self.source)
        function = _kernel_def(module, self.name)
        if not _is_chain(function):
            return _constructs(function)
        kernels = [node for node in module.body if isinstance(node, ast.FunctionDef) and node is not function]
        found = {"chain", f"{len(kernels)}-stage chain"}
        for kernel in kernels:
            found |= _constructs(kernel)
        return frozenset(found)


def _is_chain(function: ast.FunctionDef) -> bool:
    return any(isinstance(decorator, ast.Attribute) and decorator.attr == "dataflow"
               for decorator in function.decorator_list)


def _stream_operation(node: ast.AST) -> bool:
    """``s.read()`` or ``o.write(v)`` on a name."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("read", "write") and isinstance(node.func.value, ast.Name))


def _stream_constructs(function: ast.FunctionDef) -> set[str]:
    found = set()

    def visit(node: ast.AST, conditional: bool, pipelined: bool, loops: int) -> None:
        if _stream_operation(node):
            kind = "read" if node.func.attr == "read" else "write"
            if conditional:
                found.add(f"stream {kind} under if")
            if pipelined:
                found.add("stream in pipelined loop")
            if loops >= 2:
                found.add("stream in nest")
        for child in ast.iter_child_nodes(node):
            if isinstance(node, ast.If) and child is not node.test:
                visit(child, True, pipelined, loops)
            elif isinstance(node, (ast.For, ast.While)) and child in node.body:
                visit(child, conditional, pipelined or (isinstance(node, ast.For) and _pragma(node) == "pipeline"),
                      loops + 1)
            else:
                visit(child, conditional, pipelined, loops)

    for statement in function.body:
        visit(statement, False, False, 0)
    return found


def _pragma(loop: ast.For) -> str | None:
    """``"unroll"``, ``"pipeline"`` or ``"sequential"`` for ``for ... in hls.X(...)``."""
    call = loop.iter
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "hls":
        return call.func.attr
    return None


def _is_hls_call(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == name
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "hls")


def _constructs(function: ast.FunctionDef) -> frozenset[str]:
    found = set()
    counters = {node.target.id for node in ast.walk(function) if isinstance(node, ast.For)
                and isinstance(node.target, ast.Name)}
    for node in ast.walk(function):
        if isinstance(node, ast.Subscript):
            index = node.slice
            if isinstance(node.value, ast.Name) and node.value.id == "g" and isinstance(index, ast.BinOp) \
                    and isinstance(index.op, ast.BitAnd) and isinstance(index.right, ast.Constant):
                index = index.left      # a grid's index masked into its smaller array: `g[(i * 4 + j) & 7]`
            if not any(isinstance(part, ast.BitAnd) for part in ast.walk(index)) and \
                    len({part.id for part in ast.walk(index) if isinstance(part, ast.Name)} & counters) >= 2:
                # An index affine in several loop counters (not masked into range): `g[i * 4 + j]`.
                found.add("multi-counter index")
        if isinstance(node, ast.For):
            pragma = _pragma(node)
            if pragma == "unroll":
                found.add("unroll")
                if node.iter.keywords:
                    found.add("partial unroll")
            inner_loops = [inner for inner in ast.walk(node) if isinstance(inner, ast.For) and inner is not node]
            if pragma == "pipeline" and inner_loops:
                found.add("pipelined nest")
            for inner in node.body:
                if isinstance(inner, ast.For) and _pragma(inner) != "unroll":
                    found.add("nest")
                    if any(isinstance(n, ast.Break) for s in inner.body for n in ast.walk(s)):
                        found.add("inner break")
        elif _is_hls_call(node, "local"):
            found.add("partitioned local" if node.keywords else "local")
    for argument in function.args.args:
        if argument.annotation is not None and any(isinstance(n, ast.Attribute) and n.attr == "Stream"
                                                   for n in ast.walk(argument.annotation)):
            found.add("stream")
        if argument.annotation is not None and any(_is_hls_call(n, "partition")
                                                   for n in ast.walk(argument.annotation)):
            found.add("partition")
    if "stream" in found:
        found |= _stream_constructs(function)
    return frozenset(found)


# --------------------------------------------------------------------------- generator

@dataclass(frozen=True)
class _Shape:
    signed: bool
    width: int

    def __str__(self) -> str:
        return f"{'signed' if self.signed else 'unsigned'}({self.width})"

    @property
    def low(self) -> int:
        return -(1 << (self.width - 1)) if self.signed else 0

    @property
    def high(self) -> int:
        return (1 << (self.width - 1)) - 1 if self.signed else (1 << self.width) - 1


@dataclass
class _Array:
    name: str
    shape: _Shape
    depth: int
    #: ``hls.partition(...)`` as source text, or None.
    partition: str | None = None
    #: Declared with ``hls.local`` in the body (zero at the start), not a parameter.
    local: bool = False


@dataclass
class _Scope:
    loop_vars: list[tuple[str, int]] = field(default_factory=list)  # (name, largest value + 1)
    loop_nesting: int = 0
    trips: int = 1
    in_loop: bool = False
    #: Inside an ``hls.unroll`` body: no loops (they would have to be unrolled too), and no
    #: ``break``/``continue`` (they would bind to the unrolled loop).
    unrolled: bool = False


class _Generator:
    def __init__(self, rng: random.Random, config: FuzzConfig, name: str):
        self.rng = rng
        self.config = config
        self.name = name
        self.features = config.features
        self.scalars: dict[str, _Shape] = {}
        self.arrays: list[_Array] = []
        self.locals: dict[str, _Shape] = {}
        self.while_counters: list[str] = []
        self.loop_names = iter(f"i{k}" for k in range(1000))
        #: Loop variables whose shape may be signed (bounds read from arrays, triangular bounds).
        self.signed_loop_vars: set[str] = set()
        #: Loop variables of partially unrolled loops: ``i0 + k``, a bit wider than the bound needs.
        self.wide_loop_vars: set[str] = set()
        self.args: dict = {}
        #: The token shapes of the streams ``sin`` and ``sout``, when the kernel has streams.
        self.streams: dict[str, _Shape] = {}
        #: Which streams the body uses, and at most how many tokens it reads.
        self.streams_used: set[str] = set()
        self.most_reads = 0
        #: The kernel holds a grid nest (statement_grid).
        self.grid = False

    # -- helpers
    def has(self, feature: str) -> bool:
        return feature in self.features

    @contextlib.contextmanager
    def drawing_from(self, rng: random.Random):
        """Every draw made inside comes from ``rng`` instead of the program's generator."""
        saved, self.rng = self.rng, rng
        try:
            yield
        finally:
            self.rng = saved

    def shape(self, max_width: int | None = None) -> _Shape:
        max_width = max_width or self.config.max_width
        return _Shape(self.rng.random() < 0.5, self.rng.randint(2, max_width))

    def value_of(self, shape: _Shape) -> int:
        if self.rng.random() < 0.25:  # edges find wrap-around bugs
            return self.rng.choice([shape.low, shape.high, 0, 1 if shape.high >= 1 else 0])
        return self.rng.randint(shape.low, shape.high)

    def fitting(self, value: str, shape: _Shape) -> str:
        """``value``, or the value it wraps to when it is a bare constant that ``shape`` cannot
        hold: the front end rejects such a constant (only computed values wrap), and the
        program means the same either way."""
        constant = _signed_literal(value)
        if constant is None:
            return value
        span = shape.high - shape.low + 1
        return str((constant - shape.low) % span + shape.low)

    # -- program
    def program(self) -> tuple[str, dict]:
        rng = self.rng
        for k in range(rng.randint(1, 3)):
            name = "xyz"[k]
            self.scalars[name] = self.shape(12)
            self.args[name] = self.value_of(self.scalars[name])
        if self.has("runtime_bound"):
            self.scalars["n"] = _Shape(False, 3)
            self.args["n"] = rng.randint(0, 7)
        if self.has("arrays"):
            for name in ["a", "b"][:rng.randint(1, 2)]:
                array = _Array(name, self.shape(12), rng.choice([4, 8]))
                if self.has("partition") and rng.random() < PARTITION_CHANCE:
                    array.partition = self.partition(array.depth)
                self.arrays.append(array)
                self.args[name] = [self.value_of(array.shape) for _ in range(array.depth)]
        if self.has("local") and rng.random() < LOCAL_CHANCE:
            for k in range(rng.choice([1, 1, 2])):
                array = _Array(f"buf{k}", self.shape(12), rng.choice([4, 8]), local=True)
                if self.has("partition") and rng.random() < LOCAL_PARTITION_CHANCE:
                    array.partition = self.partition(array.depth)
                self.arrays.append(array)
        for k in range(rng.randint(2, 4)):
            self.locals[f"v{k}"] = self.shape()
        streams = random.Random(f"axhls-fuzz-streams:{self.name}") if self.has("streams") else None
        if streams is not None and streams.random() < self.config.stream_chance:
            # Their own generator: the draws of the program stay those of a program without streams.
            self.streams = {name: _Shape(streams.random() < 0.5, streams.randint(2, 12)) for name in ("sin", "sout")}

        body = [self.statement(_Scope(), 0) for _ in range(rng.randint(*self.config.statements))]
        grids = random.Random(f"axhls-fuzz-grids:{self.name}") if self.has("grids") and self.has("nests") else None
        if grids is not None and grids.random() < GRID_CHANCE:
            # Its own generator, as for streams: a program not drawn for a grid is the one it was
            # before grids existed.
            with self.drawing_from(grids):
                body.insert(grids.randint(0, len(body)), self.statement_grid())
        if self.streams and self.config.streams_forced:
            # Every program of a streams-only run reads and writes: where the body did not,
            # a top-level read or write goes in at a place the streams' generator draws.
            if "sin" not in self.streams_used:
                body.insert(streams.randint(0, len(body)), self.statement_stream_read(_Scope(), 0))
            if "sout" not in self.streams_used:
                body.insert(streams.randint(0, len(body)), self.statement_stream_write(_Scope(), 0))
        results = rng.sample(sorted(self.locals), 2 if self.has("tuple_return") and rng.random() < 0.4 else 1)
        if len(results) == 1:
            returns, return_annotation = results[0], str(self.locals[results[0]])
        else:
            returns = ", ".join(results)
            return_annotation = f"tuple[{', '.join(str(self.locals[r]) for r in results)}]"

        params = [f"{array.name}: hls.Array[{array.shape}, {array.depth}"
                  + (f", {array.partition}]" if array.partition else "]")
                  for array in self.arrays if not array.local]
        params += [f"{name}: {shape}" for name, shape in self.scalars.items()]
        for name, shape in self.streams.items():
            if name in self.streams_used:
                params.append(f"{name}: hls.Stream[{shape}]")
                # Enough tokens for every read the program could make (reading fewer is fine).
                self.args[name] = ([self.value_of(shape) for _ in range(self.most_reads)] if name == "sin"
                                   else [])
        lines = [f"{array.name} = hls.local({array.shape}, {array.depth}"
                 + (f", partition={array.partition})" if array.partition else ")")
                 for array in self.arrays if array.local]
        lines += [f"{name}: {shape} = {self.value_of(shape)}" for name, shape in self.locals.items()]
        lines += [f"{name}: unsigned(4) = 0" for name in self.while_counters]
        lines += [ast.unparse(statement) for statement in body]
        lines.append(f"return {returns}")
        # Drawn after everything else, so the body stays what it was before limits existed.
        resources = self.resources(body)
        options = [f"resources={resources!r}"] if resources else []
        approx = self.kernel_approx()
        if approx:
            options.append(f"approx={approx!r}")
        decorator = f"@hls.kernel({', '.join(options)})" if options else "@hls.kernel"
        source = (
            '"""Generated by sim.fuzz."""\n'
            "import hls\n"
            "from amaranth import signed, unsigned\n\n\n"
            f"{decorator}\n"
            f"def {self.name}({', '.join(params)}) -> {return_annotation}:\n"
            + textwrap.indent("\n".join(lines), "    ") + "\n"
        )
        return source, self.args

    def partition(self, depth: int) -> str:
        """An ``hls.partition(...)`` that the rules allow for ``depth`` (4 or 8): cyclic or block
        by 2 or 4 (a block of one element included), or complete."""
        kind = self.rng.choice(["cyclic", "cyclic", "block", "block", "complete"])
        if kind == "complete":
            return 'hls.partition("complete")'
        return f'hls.partition("{kind}", {self.rng.choice([2, 4])})'

    def resources(self, body: list[ast.stmt]) -> dict[str, int]:
        """A ``resources=`` limit for some of the limitable operators ``body`` uses."""
        if not self.has("resources"):
            return {}
        operators = {type(node.op) for statement in body for node in ast.walk(statement)
                     if isinstance(node, (ast.BinOp, ast.AugAssign))}
        used = []
        if ast.Mult in operators:
            used.append("mul")
        divides = [name for name, operator in (("floordiv", ast.FloorDiv), ("mod", ast.Mod))
                   if operator in operators]
        if divides:
            # "div" limits both together, as a kernel may.
            used.append(self.rng.choice(["div", *divides]) if len(divides) == 2 else divides[0])
        return {name: self.rng.choice(RESOURCE_LIMITS) for name in used if self.rng.random() < RESOURCE_CHANCE}

    def kernel_approx(self) -> dict:
        """Some kernels replace their ``*``, ``+``, ``-``, ``//`` and ``%`` with approximate units (``approx=``)."""
        if not self.has("approx") or self.rng.random() >= APPROX_KERNEL_CHANCE:
            return {}
        kinds = self.rng.sample(sorted(APPROX_UNITS), self.rng.randint(1, 3))
        if self.grid:
            # A grid's index `i * W + j` is not masked into range: it must stay exact.
            kinds = [kind for kind in kinds if kind not in ("add", "sub", "mul")]
        return {kind: self.rng.choice(APPROX_UNITS[kind]) for kind in sorted(kinds)}

    def approx_call(self, scope: _Scope) -> str:
        """``hls.approx.KIND(a, b, unit=..., ...)`` on two leaves (units are as costly as dividers)."""
        kind = self.rng.choice(sorted(APPROX_UNITS))
        unit, params = self.rng.choice(APPROX_UNITS[kind])
        keywords = "".join(f", {name}={value}" for name, value in params.items())
        return f"hls.approx.{kind}({self.leaf(scope)}, {self.leaf(scope)}, unit={unit!r}{keywords})"

    # -- statements
    def block(self, scope: _Scope, depth: int) -> list[ast.stmt]:
        return [self.statement(scope, depth) for _ in range(self.rng.randint(*self.config.block_statements))]

    def statement(self, scope: _Scope, depth: int) -> ast.stmt:
        rng = self.rng
        choices = [("assign", 6)]
        if self.arrays:
            choices.append(("store", 3))
        if any(array.local for array in self.arrays):
            choices.append(("window", WINDOW_WEIGHT))
            if scope.loop_vars:
                choices.append(("line_buffer", LINE_BUFFER_WEIGHT))
        if depth < self.config.max_nesting:
            # Compound statements get rarer with depth, which keeps programs small.
            weight = 3 / (1 + depth)
            if self.has("if"):
                choices.append(("if", weight))
            loops_left = (not scope.unrolled and scope.loop_nesting < self.config.max_loop_nesting
                          and (scope.loop_nesting == 0 or self.has("nested_loops"))
                          and scope.trips * 2 <= self.config.max_total_trips)
            if loops_left and self.has("for"):
                choices.append(("for", weight))
            if loops_left and self.has("while"):
                choices.append(("while", weight / 3))
            if self.nest_fits(scope):
                choices.append(("nest", NEST_WEIGHT / (1 + depth)))
            if self.has("unroll") and not scope.unrolled and scope.loop_nesting <= self.config.max_loop_nesting:
                choices.append(("unroll", UNROLL_WEIGHT / (1 + depth)))
        if self.streams:
            choices += [("stream_read", STREAM_WEIGHT), ("stream_write", STREAM_WEIGHT)]
        if scope.in_loop and self.has("break"):
            choices.append(("break", 1))
        if scope.in_loop and self.has("continue"):
            choices.append(("continue", 1))
        kind = rng.choices([name for name, _ in choices], [weight for _, weight in choices])[0]
        return getattr(self, f"statement_{kind}")(scope, depth)

    def statement_assign(self, scope: _Scope, depth: int) -> ast.stmt:
        target = self.rng.choice(sorted(self.locals))
        if self.has("augassign") and self.rng.random() < 0.2:
            operator = self.rng.choice(["+", "-", "^", "|", "&"])
            return _parse_statement(f"{target} {operator}= {self.expr(scope, 1)}")
        return _parse_statement(f"{target} = {self.fitting(self.expr(scope, 0), self.locals[target])}")

    def statement_stream_read(self, scope: _Scope, depth: int) -> ast.stmt:
        """``v = sin.read()``: one token, wrapped to the local's shape."""
        self.streams_used.add("sin")
        # An unrolled body is copied up to 4 times.
        self.most_reads += scope.trips * (4 if scope.unrolled else 1)
        return _parse_statement(f"{self.rng.choice(sorted(self.locals))} = sin.read()")

    def statement_stream_write(self, scope: _Scope, depth: int) -> ast.stmt:
        """``sout.write(e)``: one token, ``e`` wrapped to the stream's shape."""
        self.streams_used.add("sout")
        return _parse_statement(f"sout.write({self.fitting(self.expr(scope, 0), self.streams['sout'])})")

    def statement_store(self, scope: _Scope, depth: int) -> ast.stmt:
        array = self.rng.choice(self.arrays)
        index = self.index(array, scope)
        if self.has("augassign") and self.rng.random() < 0.2 and (index.isidentifier() or index.isdigit()):
            # `a[i] += e` reads and writes one element; the language allows it for a name or constant index.
            return _parse_statement(f"{array.name}[{index}] += {self.expr(scope, 1)}")
        return _parse_statement(f"{array.name}[{index}] = {self.fitting(self.expr(scope, 0), array.shape)}")

    def statement_if(self, scope: _Scope, depth: int) -> ast.stmt:
        lines = [f"if {self.condition(scope)}:", self.block_text(scope, depth)]
        if self.has("elif"):
            for _ in range(self.rng.choice([0, 0, 1, 2])):
                lines += [f"elif {self.condition(scope)}:", self.block_text(scope, depth)]
        if self.rng.random() < 0.5:
            lines += ["else:", self.block_text(scope, depth)]
        return _parse_statement("\n".join(lines))

    def block_text(self, scope: _Scope, depth: int) -> str:
        return textwrap.indent("\n".join(ast.unparse(s) for s in self.block(scope, depth + 1)), "    ")

    def statement_for(self, scope: _Scope, depth: int) -> ast.stmt:
        rng = self.rng
        variable = next(self.loop_names)
        budget = self.config.max_total_trips // scope.trips
        if "n" in self.scalars and rng.random() < 0.4 and budget >= 8:
            bound_text, bound = ("n", 8) if rng.random() < 0.7 else ("1, n", 8)
        else:
            bound = rng.randint(0, min(self.config.max_trip, budget))
            if rng.random() < 0.3 and bound >= 2:
                bound_text = f"{rng.randint(0, bound - 1)}, {bound}"
            else:
                bound_text = str(bound)
        inner = _Scope(scope.loop_vars + [(variable, bound)], scope.loop_nesting + 1,
                       scope.trips * max(bound, 1), True)
        body = textwrap.indent("\n".join(ast.unparse(s) for s in self.block(inner, depth + 1)), "    ")
        iterable = f"range({bound_text})"
        if self.has("pragmas") and rng.random() < 0.25:
            iterable = rng.choice([f"hls.pipeline({iterable})", f"hls.sequential({iterable})",
                                   f"hls.pipeline({iterable}, ii={rng.randint(1, 3)})"])
        return _parse_statement(f"for {variable} in {iterable}:\n{body}")

    def statement_while(self, scope: _Scope, depth: int) -> ast.stmt:
        rng = self.rng
        counter = f"w{len(self.while_counters)}"
        self.while_counters.append(counter)
        bound = rng.randint(1, min(self.config.max_trip, self.config.max_total_trips // scope.trips))
        inner = _Scope(scope.loop_vars, scope.loop_nesting + 1, scope.trips * bound, True)
        condition = f"{counter} < {bound}"
        if self.has("boolean") and rng.random() < 0.3:
            condition += f" and ({self.condition(scope)})"
        # The counter is bumped first, so a `continue` in the body cannot make the loop spin.
        statements = [f"{counter} = {counter} + 1"]
        statements += [ast.unparse(s) for s in self.block(inner, depth + 1)]
        if self.has("break"):
            statements.append(f"if {self.condition(inner)}:\n    break")
        body = textwrap.indent("\n".join(statements), "    ")
        return _parse_statement(f"{counter} = 0\nwhile {condition}:\n{body}")

    def statement_unroll(self, scope: _Scope, depth: int) -> ast.stmt:
        """An ``hls.unroll`` loop: full (``range(C)``, ``range(c, C)``, up to 4 copies) or partial
        (``factor=`` 2 to 4 over a constant or run-time bound, sometimes with step 2, with a
        remainder).

        Its body is straight-line (``if`` allowed): a loop inside would have to be unrolled too,
        and a ``break`` or ``continue`` would bind to the unrolled loop; both are errors.
        """
        rng = self.rng
        variable = next(self.loop_names)
        budget = self.config.max_total_trips // scope.trips
        if rng.random() < 0.5:
            bound = rng.randint(1, 4)
            bounds = f"{rng.randint(0, bound - 1)}, {bound}" if rng.random() < 0.25 else str(bound)
            iterable, trips = f"hls.unroll(range({bounds}))", 1
        else:
            factor = rng.choice([2, 2, 3, 4])
            if "n" in self.scalars and budget >= 8 and rng.random() < 0.5:
                bound, bounds = 8, rng.choice(["n", "n", "1, n", "0, n, 2"])
            else:
                bound = rng.randint(0, min(self.config.max_trip, budget))
                # A step: the copies are i0, i0 + 2, ... (the remainder starts where they stop).
                bounds = f"{rng.randint(0, 1)}, {bound}, 2" if bound >= 2 and rng.random() < 0.25 else str(bound)
            iterable, trips = f"hls.unroll(range({bounds}), factor={factor})", max(bound, 1)
            self.wide_loop_vars.add(variable)
        inner = _Scope(scope.loop_vars + [(variable, max(bound, 1))], scope.loop_nesting + 1,
                       scope.trips * trips, in_loop=False, unrolled=True)
        # One or two statements, one nesting level deeper than a loop body's: every statement
        # is copied up to 4 (full) or 2 x 4 (partial, with its remainder) times, and a long
        # body on shared ports makes a scheduling problem that costs seconds.
        statements = [self.statement(inner, depth + 2) for _ in range(rng.randint(1, 2))]
        body = textwrap.indent("\n".join(ast.unparse(s) for s in statements), "    ")
        return _parse_statement(f"for {variable} in {iterable}:\n{body}")

    # -- local arrays (issue 11): the idioms of stencils
    def local_array(self) -> _Array:
        return self.rng.choice([array for array in self.arrays if array.local])

    def statement_window(self, scope: _Scope, depth: int) -> ast.stmt:
        """Window registers moved by one: ``w[s] = w[s + 1]; ...; w[s + L - 1] = e`` (sometimes
        the moves as an ``hls.unroll`` loop). Before the first writes the window reads zeros."""
        rng = self.rng
        array = self.local_array()
        length = rng.randint(2, min(4, array.depth))
        start = rng.randint(0, array.depth - length)
        name = array.name
        if self.has("unroll") and not scope.unrolled and depth < self.config.max_nesting and rng.random() < 0.3:
            t = next(self.loop_names)
            lines = [f"for {t} in hls.unroll(range({length - 1})):",
                     f"    {name}[{start} + {t}] = {name}[{start} + {t} + 1]"]
        else:
            lines = [f"{name}[{start + k}] = {name}[{start + k + 1}]" for k in range(length - 1)]
        lines.append(f"{name}[{start + length - 1}] = {self.fitting(self.expr(scope, 1), array.shape)}")
        return _parse_statement("\n".join(lines))

    def statement_line_buffer(self, scope: _Scope, depth: int) -> ast.stmt:
        """A line buffer: the element at an index read (last row's value), then replaced."""
        array = self.local_array()
        index = self.index(array, scope, loop_only=True)
        target = self.rng.choice(sorted(self.locals))
        return _parse_statement(f"{target} = {array.name}[{index}]\n"
                                f"{array.name}[{index}] = {self.fitting(self.expr(scope, 1), array.shape)}")

    # -- loop nests (issue 11): the shapes flattening must handle
    def nest_fits(self, scope: _Scope) -> bool:
        """Whether a two-level nest may start here: outside every loop, within the trip budget."""
        return (self.has("nests") and scope.loop_nesting == 0 and self.config.max_loop_nesting >= 2
                and self.config.max_total_trips // scope.trips >= 4)

    def statement_nest(self, scope: _Scope, depth: int) -> ast.stmt:
        """A two-level ``for`` nest, in the shapes real kernels have.

        * imperfect: statements before the inner loop (often an accumulator reset, or read
          from an element that is written back after it) and after it (often the accumulator
          stored or folded into another value);
        * inner bounds: constant, the run-time ``n``, *triangular* (``range(i)``,
          ``range(i + 1)``, ``range(i, N)``), or read from an array inside the nest as CSR
          row bounds are (``range(a[i & m] & 3, a[(i + 1) & m] & 3)``, or through variables
          assigned before the inner loop), which may be empty;
          sometimes an inner ``while`` (a nest that cannot be flattened);
        * a ``break`` (and ``continue``) inside the inner loop, which ends that inner run only,
          often after recording what it found (first match per row).

        The outer trip count times the inner one's largest stays within ``max_total_trips``.
        """
        rng = self.rng
        budget = self.config.max_total_trips // scope.trips
        outer_var = next(self.loop_names)
        if "n" in self.scalars and budget >= 16 and rng.random() < 0.35:
            outer_text, outer_bound = rng.choice([("n", 8), ("1, n", 8)])
        else:
            outer_bound = rng.randint(1, min(self.config.max_trip, budget // 2))
            outer_text = str(outer_bound)
        inner_budget = budget // max(outer_bound, 1)
        kinds = ["const", "triangular", "triangular"]
        if "n" in self.scalars and inner_budget >= 8:
            kinds.append("runtime")
        if self.arrays and inner_budget >= 3:
            kinds += ["rows", "rows"]
        if self.has("while") and inner_budget >= 1:
            kinds.append("while")
        kind = rng.choice(kinds)
        if kind == "triangular" and outer_bound > inner_budget:
            kind = "const"
        # `hls.pipeline` on the outer loop unrolls a constant inner loop (as Vitis does).
        pipelined = self.has("unroll") and rng.random() < PIPELINE_NEST_CHANCE
        if pipelined:
            kind = "const"
        outer = _Scope(scope.loop_vars + [(outer_var, outer_bound)], scope.loop_nesting + 1,
                       scope.trips * max(outer_bound, 1), True)

        before = [ast.unparse(s) for s in self.nest_edge(outer, depth + 1)]
        accumulator = rng.choice(sorted(self.locals)) if rng.random() < 0.6 else None
        read_back = None
        if accumulator is not None and self.arrays and rng.random() < READ_BACK_CHANCE:
            array = rng.choice(self.arrays)
            read_back = f"{array.name}[{self.index(array, outer)}]"
            before.append(f"{accumulator} = {read_back}")
        elif accumulator is not None:
            value = self.leaf(outer) if rng.random() < 0.5 else "0"
            before.append(f"{accumulator} = {self.fitting(value, self.locals[accumulator])}")
        if kind == "while":
            inner_text = ast.unparse(self.statement_while(outer, depth + 1))
        else:
            inner_var = next(self.loop_names)
            if kind == "const":
                inner_bound = rng.randint(0, min(4 if pipelined else self.config.max_trip, inner_budget))
                bounds = str(inner_bound)
            elif kind == "runtime":
                inner_bound, bounds = 8, "n"
            elif kind == "triangular":
                inner_bound = outer_bound
                # The inner variable stays below the outer bound in each form.
                bounds = rng.choice([outer_var, f"{outer_var} + 1", f"{outer_var}, {outer_bound}"])
            else:
                inner_bound, bounds = 3, self.row_bounds(outer_var)
                if rng.random() < 0.5:
                    # Read into variables before the inner loop, as CSR code often is (issue 20).
                    start, stop = bounds
                    before += [f"{inner_var}_lo = {start}", f"{inner_var}_hi = {stop}"]
                    bounds = (f"{inner_var}_lo", f"{inner_var}_hi")
                bounds = ", ".join(bounds)
            if kind in ("triangular", "rows"):
                self.signed_loop_vars.add(inner_var)
            inner = _Scope(outer.loop_vars + [(inner_var, max(inner_bound, 1))], outer.loop_nesting + 1,
                           outer.trips * max(inner_bound, 1), True)
            body = [ast.unparse(s) for s in self.block(inner, depth + 2)]
            if accumulator is not None:
                body.append(f"{accumulator} = {accumulator} + {self.expr(inner, 1)}")
            if self.has("break") and rng.random() < (0.1 if pipelined else 0.4):
                stop = "break"
                if rng.random() < 0.5:
                    # First match per row (issue 20): record what was found, then end the row.
                    kinds = ["assign", "store"] if self.arrays else ["assign"]
                    found = getattr(self, f"statement_{rng.choice(kinds)}")(inner, depth + 3)
                    stop = f"{ast.unparse(found)}\n    break"
                body.insert(rng.randint(0, len(body)), f"if {self.condition(inner)}:\n    {stop}")
            inner_text = f"for {inner_var} in range({bounds}):\n" + textwrap.indent("\n".join(body), "    ")
        after = [ast.unparse(s) for s in self.nest_edge(outer, depth + 1)]
        if read_back is not None:
            after.append(f"{read_back} = {accumulator}")
        elif accumulator is not None and rng.random() < 0.7:
            after.append(self.nest_result(outer, accumulator))
        iterable = f"range({outer_text})"
        if pipelined:
            iterable = f"hls.pipeline({iterable})"
        elif self.has("pragmas") and rng.random() < 0.15:
            iterable = f"hls.sequential({iterable})"
        body_text = textwrap.indent("\n".join(before + [inner_text] + after), "    ")
        return _parse_statement(f"for {outer_var} in {iterable}:\n{body_text}")

    def statement_grid(self) -> ast.stmt:
        """A nest over ``i`` and ``j`` whose own array ``g`` (a new parameter) is indexed by both
        counters, ``g[i * W + j]`` (or ``j + W * i``, ``i * W + j + c``), in the shapes whose
        memory dependences issue 20 proves from the nest's structure:

        * ``around``: ``acc = g[...]`` before an inner ``k`` loop, ``g[...] = acc`` after it
          (``C[i][j] += sum_k ...``); ``reversed``: written before, read back after;
        * ``in place``: ``g[...] = g[...] + e`` in the body of a two-level nest, and ``cube``:
          ``g[(i * J + j) * K + k]`` updated in the innermost body of three levels.

        ``W`` is at least the row length ``J`` (distinct for distinct ``(i, j)``), or, for
        :data:`GRID_NEAR_MISS_CHANCE` of them, below it (rows overlap: the dependence is real).
        The outer bound is a constant, ``n``, or ``m: unsigned(7)`` (a new parameter, small at
        run time), and the inner loop may ``break`` on data, so that the exact test often does
        not apply. For :data:`GRID_SHIFT_CHANCE` of them the read or the write is a constant on
        (``+ 1``, ``+ W``, written ``(i + 1) * W + j`` too): the two meet only in different
        iterations. For :data:`GRID_WRAP_CHANCE` of them ``g`` holds half or a quarter of the
        elements the indices reach, and both are masked into it (``g[(i * W + j) & 15]``). Every
        index stays in ``g``'s range for the run's arguments."""
        rng = self.rng
        self.grid = True
        rows, columns, inner = (next(self.loop_names) for _ in range(3))
        shape = rng.choice(["around", "around", "reversed", "in place", "cube"])
        wide = rng.random() < GRID_WIDE_BOUND_CHANCE
        if wide:
            self.scalars["m"] = _Shape(False, 7)
            most_rows = rng.randint(2, 4)
            # Mostly every row, so that the rows meet where they may; sometimes none or a few.
            self.args["m"] = rng.choice([most_rows, most_rows, 0, rng.randint(1, most_rows)])
            rows_text = "m"
            # Seven bits wide whatever its bound: no shift amount (`x << i` widens by 2 ** 7 - 1 bits).
            self.wide_loop_vars.add(rows)
        elif "n" in self.scalars and rng.random() < 0.3:
            most_rows, rows_text = 8, "n"
        else:
            most_rows = rng.randint(1, 4)
            rows_text = str(most_rows)
        length = rng.randint(1, 4)
        trips = 1 if shape == "in place" else rng.randint(0, 3)
        if shape == "cube":
            # One element per (i, j, k): strides of the flattened three-level array.
            trips = max(trips, 1)
            stride = length * trips
            index = f"{rows} * {stride} + {columns} * {trips} + {inner}"
            largest = (most_rows - 1) * stride + (length - 1) * trips + trips - 1
            shifted = index
        else:
            stride = length + rng.choice([0, 0, 1, 2])
            if length >= 2 and rng.random() < GRID_NEAR_MISS_CHANCE:
                # Mostly touching rows (row i's last element is row i + 1's first): the element is
                # read again one iteration after it is written, whatever the inner trip count.
                stride = length - 1 if rng.random() < 0.6 else rng.randint(1, length - 1)
            offset = rng.choice([0, 0, 0, 1, 3])
            index = rng.choice([f"{rows} * {stride} + {columns}", f"{columns} + {stride} * {rows}"])
            # The next row, written as a reader does: the same form up to its constant.
            shifted = f"({rows} + 1) * {stride} + {columns}"
            index += f" + {offset}" if offset else ""
            shifted += f" + {offset}" if offset else ""
            largest = (most_rows - 1) * stride + length - 1 + offset
        read = write = index
        if rng.random() < GRID_SHIFT_CHANCE:
            # One access a constant away from the other (the element on, the row on): they meet
            # in other iterations only, one of them always later, or the write is read back later.
            shift = rng.choice([1, 1, 2, max(stride - 1, 1), stride, stride + 1])
            moved = shifted if shift == stride and shape != "cube" and rng.random() < 0.5 else f"{index} + {shift}"
            read, write = (moved, index) if rng.random() < 0.5 else (index, moved)
            largest += shift
        depth = 4
        while depth <= largest:
            depth *= 2
        wrap = random.Random(f"axhls-fuzz-grid-wrap:{self.name}")
        if depth >= 8 and wrap.random() < GRID_WRAP_CHANCE:
            # Half or a quarter of the depth the indices need: rows meet again every few rows.
            depth = max(4, depth // wrap.choice([2, 2, 4]))
            read, write = (f"({index}) & {depth - 1}" for index in (read, write))
        array = _Array("g", self.shape(12), depth)
        self.arrays.append(array)
        self.args["g"] = [self.value_of(array.shape) for _ in range(depth)]
        accumulator = rng.choice(sorted(self.locals))
        outer = _Scope([(rows, most_rows)], 1, most_rows, True)
        middle = _Scope(outer.loop_vars + [(columns, length)], 2, most_rows * length, True)
        element, source = f"g[{write}]", f"g[{read}]"
        if shape == "in place":
            body = [f"{element} = {source} + {self.expr(middle, 2)}"]
            if rng.random() < GRID_STATEMENT_CHANCE:
                body.insert(rng.randint(0, 1), ast.unparse(self.statement(middle, 3)))
            text = "\n".join(body)
        else:
            if shape != "cube" and rows_text != "n" and "n" in self.scalars and rng.random() < 0.2:
                trips, trips_text = 8, "n"
            else:
                trips_text = str(trips)
            innermost = _Scope(middle.loop_vars + [(inner, max(trips, 1))], 3, middle.trips * max(trips, 1), True)
            steps = [f"{accumulator} = {accumulator} + {self.expr(innermost, 2)}"]
            if shape == "cube":
                steps = [f"{element} = {source} + {self.expr(innermost, 2)}"]
            if rng.random() < GRID_STATEMENT_CHANCE:
                steps.insert(rng.randint(0, len(steps)), ast.unparse(self.statement(innermost, 3)))
            if self.has("break") and rng.random() < GRID_BREAK_CHANCE:
                steps.insert(rng.randint(0, len(steps)), f"if {self.condition(innermost)}:\n    break")
            loop = f"for {inner} in range({trips_text}):\n" + textwrap.indent("\n".join(steps), "    ")
            if shape == "around":
                text = "\n".join([f"{accumulator} = {source}", loop, f"{element} = {accumulator}"])
            elif shape == "reversed":
                text = "\n".join([f"{element} = {self.fitting(self.expr(middle, 1), array.shape)}", loop,
                                  f"{accumulator} = {accumulator} + {source}"])
            else:
                text = loop
        nest = f"for {columns} in range({length}):\n" + textwrap.indent(text, "    ")
        return _parse_statement(f"for {rows} in range({rows_text}):\n" + textwrap.indent(nest, "    "))

    def nest_edge(self, scope: _Scope, depth: int) -> list[ast.stmt]:
        """Straight-line statements before or after an inner loop (none half of the time)."""
        count = self.rng.choice([0, 0, 1, 2])
        kinds = ["assign", "store"] if self.arrays else ["assign"]
        return [getattr(self, f"statement_{self.rng.choice(kinds)}")(scope, depth) for _ in range(count)]

    def nest_result(self, scope: _Scope, accumulator: str) -> str:
        """What an outer iteration does with its accumulator: store it, as fir and matvec do."""
        if self.arrays and self.rng.random() < 0.7:
            array = self.rng.choice(self.arrays)
            return f"{array.name}[{self.index(array, scope)}] = {accumulator}"
        target = self.rng.choice(sorted(set(self.locals) - {accumulator}) or [accumulator])
        return f"{target} = {target} ^ {accumulator}"

    def row_bounds(self, outer_var: str) -> tuple[str, str]:
        """CSR-like bounds (start, stop) of an inner loop, read from an array per outer iteration: 0..3 each."""
        array = self.rng.choice(self.arrays)
        mask = array.depth - 1
        return f"{array.name}[{outer_var} & {mask}] & 3", f"{array.name}[({outer_var} + 1) & {mask}] & 3"

    def statement_break(self, scope: _Scope, depth: int) -> ast.stmt:
        return _parse_statement(f"if {self.condition(scope)}:\n    break")

    def statement_continue(self, scope: _Scope, depth: int) -> ast.stmt:
        return _parse_statement(f"if {self.condition(scope)}:\n    continue")

    # -- expressions
    def index(self, array: _Array, scope: _Scope, loop_only: bool = False) -> str:
        """An index in range of ``array``: a constant, a loop variable, ``(i +- c) & mask``,
        ``(S * i + c) & mask`` (a constant bank of a cyclic partition), or data-dependent.
        ``loop_only``: one of the loop-variable forms (needs a loop variable in scope)."""
        rng = self.rng
        mask = array.depth - 1
        fitting = [name for name, bound in scope.loop_vars if bound <= array.depth]
        options = [] if loop_only and scope.loop_vars else ["const"]
        if scope.loop_vars:
            options += ["affine", "affine"]
            if array.partition is not None:
                options += ["stride"]
        if fitting:
            options += ["loop", "loop"]
        if self.has("dynamic_index") and not loop_only:
            options += ["dynamic"]
        kind = rng.choice(options)
        if kind == "stride":
            variable = rng.choice(scope.loop_vars)[0]
            return f"({rng.choice([2, 4])} * {variable} + {rng.randint(0, 3)}) & {mask}"
        if kind == "const":
            return str(rng.randint(0, mask))
        if kind == "loop":
            return rng.choice(fitting)
        if kind == "affine":
            variable = rng.choice(scope.loop_vars)[0]
            offset = rng.randint(0, 2 * array.depth)
            sign = rng.choice(["+", "-"]) if offset else "+"
            # `i - c` may be negative; `& mask` of a negative Python int is still in range.
            return f"({variable} {sign} {offset}) & {mask}"
        return f"({self.expr(scope, 2)}) & {mask}"

    def leaf(self, scope: _Scope) -> str:
        rng = self.rng
        # A kernel has 1 to 3 scalars; a chain's stage may have none.
        options = ["const", "scalar", "local", "local"] if self.scalars else ["const", "local", "local"]
        if scope.loop_vars:
            options += ["loop"]
        if self.arrays:
            options += ["read"]
        kind = rng.choice(options)
        if kind == "const":
            return str(rng.choice([0, 1, 2, 3, 5, 7, -1, -3, 100, -128, 255]))
        if kind == "scalar":
            return rng.choice(sorted(self.scalars))
        if kind == "local":
            return rng.choice(sorted(self.locals))
        if kind == "loop":
            return rng.choice(scope.loop_vars)[0]
        array = rng.choice(self.arrays)
        return f"{array.name}[{self.index(array, scope)}]"

    def shift_amount(self, scope: _Scope) -> str:
        """A constant, or a name of at most 3 unsigned bits: Amaranth widens ``x << y`` by
        ``2**width(y) - 1`` bits, and ``y & 3`` keeps ``y``'s width."""
        names = [name for name, shape in {**self.scalars, **self.locals}.items()
                 if not shape.signed and shape.width <= 3]
        names += [name for name, bound in scope.loop_vars
                  if bound <= 8 and name not in self.signed_loop_vars | self.wide_loop_vars]
        if names and self.rng.random() < 0.5:
            return self.rng.choice(names)
        return str(self.rng.randint(0, 3))

    def expr(self, scope: _Scope, depth: int) -> str:
        rng = self.rng
        if depth >= 3 or rng.random() < 0.3:
            return self.leaf(scope)
        options = ["+", "-", "&", "|", "^"]
        if self.has("mul"):
            options += ["*"]
        if self.has("divmod"):
            options += ["divmod"]
        if self.has("shift"):
            options += ["shift"]
        if self.has("compare"):
            options += ["compare"]
        if self.has("ternary"):
            options += ["ternary"]
        if self.has("minmax"):
            options += ["minmax"]
        if self.has("abs"):
            options += ["abs"]
        if self.has("unary"):
            options += ["unary"]
        if self.has("approx"):
            options += ["approx"]
        kind = rng.choice(options)
        sub = lambda: self.expr(scope, depth + 1)  # noqa: E731
        if kind in ("+", "-", "&", "|", "^"):
            return f"({sub()} {kind} {sub()})"
        if kind == "*":
            return f"({sub()} * {self.leaf(scope)})"  # one leaf operand keeps products narrow
        if kind == "divmod":
            # Divide leaves only: a divider is costly to build and to simulate.
            return f"({self.leaf(scope)} {rng.choice(['//', '%'])} {self.leaf(scope)})"
        if kind == "shift":
            return f"({sub()} {rng.choice(['<<', '>>'])} {self.shift_amount(scope)})"
        if kind == "compare":
            return f"({sub()} {rng.choice(['==', '!=', '<', '<=', '>', '>='])} {sub()})"
        if kind == "ternary":
            return f"({sub()} if {self.condition(scope, depth + 1)} else {sub()})"
        if kind == "minmax":
            return f"{rng.choice(['min', 'max'])}({sub()}, {sub()})"
        if kind == "abs":
            return f"abs({sub()})"
        if kind == "approx":
            return self.approx_call(scope)
        return f"({rng.choice(['-', '~'])}{sub()})"

    def condition(self, scope: _Scope, depth: int = 1) -> str:
        rng = self.rng
        kind = rng.random()
        if self.has("chained_compare") and rng.random() < 0.1:
            return (f"{self.expr(scope, depth + 1)} {rng.choice(['<', '<='])} {self.expr(scope, depth + 1)} "
                    f"{rng.choice(['<', '<=', '!='])} {self.expr(scope, depth + 1)}")
        if kind < 0.6 or not self.has("boolean"):
            return f"{self.expr(scope, depth + 1)} {rng.choice(['==', '!=', '<', '<=', '>', '>='])} {self.expr(scope, depth + 1)}"
        if kind < 0.8:
            return f"{self.expr(scope, depth + 1)} & {rng.choice([1, 2, 4])}"  # truthiness of an int
        left = f"{self.expr(scope, depth + 1)} < {self.expr(scope, depth + 1)}"
        right = f"{self.expr(scope, depth + 1)} != {self.expr(scope, depth + 1)}"
        joined = f"{left} {rng.choice(['and', 'or'])} {right}"
        return f"not ({joined})" if rng.random() < 0.3 else joined


def _signed_literal(text: str) -> int | None:
    """The value of ``text`` when it is an integer literal under unary signs (``-3``, ``(-(7))``),
    the constants the front end checks against a declared shape; otherwise ``None``."""
    node, sign = ast.parse(text, mode="eval").body, 1
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -sign if isinstance(node.op, ast.USub) else sign
        node = node.operand
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return sign * node.value
    return None


def _parse_statement(text: str) -> ast.stmt:
    statements = ast.parse(text).body
    if len(statements) == 1:
        return statements[0]
    # `w = 0` followed by its `while`: keep them together in a block that is always taken.
    return ast.If(test=ast.Constant(1), body=statements, orelse=[])


# --------------------------------------------------------------------------- dataflow chains

class _ChainGenerator:
    """A path of 2 to 4 stream kernels joined by ``hls.fifo``s under one ``@hls.dataflow``.

    Each stage reads its input stream and writes its output stream in one of four forms,
    which fix how many tokens it reads and writes, so that every FIFO carries exactly the
    tokens its reader takes (a chain that left tokens in a FIFO, or read past them, would
    hang in hardware; :class:`hls.dataflow.Dataflow` refuses it at run time):

    * ``map``: one read and one write per iteration of a loop (plain, or ``hls.pipeline`` at
      II 1 or 2) over a run-time bound; a read or write may sit under ``if``/``else`` with one
      in each branch, or come after the write;
    * ``rows``: a two-level nest (flattened) reading ``A * B`` tokens and writing one sum
      per row after the inner loop, or the reverse (``expand``: a token read per row, ``B``
      written by the inner loop);
    * ``buffer``: the tokens stored in an ``hls.local`` array by one loop and written back,
      in order or reversed, by a second.

    Between the stream operations stand random assignments and ``if``s on the stage's
    locals, its scalar ``x`` (the chain's scalar, or a constant) and the loop variables.
    """

    def __init__(self, rng: random.Random, config: FuzzConfig, name: str):
        self.rng, self.config, self.name = rng, config, name
        self.scalar_used = False

    def program(self) -> tuple[str, dict]:
        rng = self.rng
        stages = rng.randint(*CHAIN_STAGES)
        counts = [rng.randint(1, CHAIN_TOKENS)]
        shapes = [_Shape(rng.random() < 0.5, rng.randint(2, 12)) for _ in range(stages + 1)]
        x_shape = _Shape(rng.random() < 0.5, rng.randint(2, 8))
        kernels, calls = [], []
        forms = ["map", "map"] + (["rows", "expand"] if "nests" in self.config.features else []) \
            + (["buffer"] if "local" in self.config.features else [])
        for k in range(stages):
            form = rng.choice(forms)
            source, count, bound_arg = self.stage(k, form, counts[-1], shapes[k], shapes[k + 1], x_shape)
            counts.append(count)
            kernels.append(source)
            stream_in = "s" if k == 0 else f"f{k}"
            stream_out = "o" if k == stages - 1 else f"f{k + 1}"
            arguments = [f"sin={stream_in}", f"sout={stream_out}"]
            if bound_arg is not None:
                # The chain's n where it is this stage's count, else a constant.
                arguments.append(f"m={'n' if bound_arg == counts[0] else bound_arg}")
            if self.stage_scalar:
                arguments.append(f"x={'x' if self.chain_scalar else self.stage_x}")
            calls.append(f"{self.name}_s{k}({', '.join(arguments)})")
        params = [f"s: hls.Stream[{shapes[0]}]", f"o: hls.Stream[{shapes[-1]}]"]
        args = {"s": [_value(rng, shapes[0]) for _ in range(counts[0])], "o": []}
        body = [f"f{k} = hls.fifo({shapes[k]})" for k in range(1, stages)] + calls
        text = "\n".join(body)
        if "m=n" in text:
            params.append("n: unsigned(4)")
            args["n"] = counts[0]
        if "x=x" in text:
            params.append(f"x: {x_shape}")
            args["x"] = _value(rng, x_shape)
        source = ('"""Generated by sim.fuzz."""\n'
                  "import hls\n"
                  "from amaranth import signed, unsigned\n\n\n"
                  + "\n\n".join(kernels)
                  + f"\n\n@hls.dataflow\ndef {self.name}({', '.join(params)}):\n"
                  + textwrap.indent(text, "    ") + "\n")
        return source, args

    def stage(self, k: int, form: str, count: int, shape_in: _Shape, shape_out: _Shape, x_shape: _Shape):
        """The source of stage ``k``, the tokens it writes, and the value its bound ``m`` takes
        (``None``: it has none)."""
        rng = self.rng
        gen = _Generator(rng, replace(self.config, features=self.config.features - {"streams", "arrays"}),
                         f"{self.name}_s{k}")
        self.stage_scalar = rng.random() < 0.6
        self.chain_scalar = rng.random() < 0.5
        self.stage_x = _value(rng, x_shape)
        if self.stage_scalar:
            gen.scalars["x"] = x_shape
        for j in range(rng.randint(2, 4)):
            gen.locals[f"v{j}"] = gen.shape()
        gen.streams = {"sin": shape_in, "sout": shape_out}
        self.gen = gen
        bound_arg = None
        if form == "map":
            loops = ["range(m)", f"range({count})"]
            if "pragmas" in self.config.features:
                loops += ["hls.pipeline(range(m))", "hls.pipeline(range(m), ii=2)"]
            loop = rng.choice(loops)
            bound_arg = count if "m" in loop else None
            scope = _Scope([("i", count)], 1, count, True)
            steps = [self.read(scope), self.write(scope)]
            if rng.random() < 0.25:
                steps.reverse()
            body = self.around(scope, steps)
            lines = [f"for i in {loop}:", *_indent(body)]
            written = count
        elif form in ("rows", "expand"):
            pairs = [(a, count // a) for a in range(1, count + 1) if count % a == 0]
            if form == "rows":
                outer, inner = rng.choice(pairs)
            else:
                outer, inner = count, rng.randint(1, max(1, CHAIN_TOKENS // count))
            outer_scope = _Scope([("i", outer)], 1, outer, True)
            inner_scope = _Scope([("i", outer), ("j", inner)], 2, outer * inner, True)
            accumulator = rng.choice(sorted(gen.locals))
            if form == "rows":
                inner_body = self.around(inner_scope, [self.read(inner_scope)])
                inner_body.append(f"{accumulator} = {accumulator} + {gen.expr(inner_scope, 1)}")
                lines = [f"for i in range({outer}):",
                         *_indent([f"{accumulator} = {gen.fitting(gen.leaf(outer_scope), gen.locals[accumulator])}",
                                   f"for j in range({inner}):", *_indent(inner_body),
                                   *self.around(outer_scope, [self.write(outer_scope)])])]
                written = outer
            else:
                inner_body = self.around(inner_scope, [self.write(inner_scope)])
                lines = [f"for i in range({outer}):",
                         *_indent([*self.around(outer_scope, [self.read(outer_scope)]),
                                   f"for j in range({inner}):", *_indent(inner_body)])]
                written = outer * inner
            bound_arg = None
        else:
            depth = 16 if count > 8 else 8
            scope = _Scope([("i", count)], 1, count, True)
            target = rng.choice(sorted(gen.locals))
            index = rng.choice(["i", f"(m - 1 - i) & {depth - 1}"])
            store = [f"{target} = sin.read()", f"buf[i] = {target} + {gen.expr(scope, 1)}"]
            load = [f"{target} = buf[{index}]", *self.around(scope, [self.write(scope)])]
            lines = [f"buf = hls.local(signed(12), {depth})",
                     "for i in range(m):", *_indent(store), "for i in range(m):", *_indent(load)]
            bound_arg = count
            written = count
        params = [f"sin: hls.Stream[{shape_in}]", f"sout: hls.Stream[{shape_out}]"]
        if bound_arg is not None:
            params.append("m: unsigned(4)")
        if self.stage_scalar:
            params.append(f"x: {x_shape}")
        declarations = [f"{name}: {shape} = {_value(rng, shape)}" for name, shape in gen.locals.items()]
        decorator = "@hls.kernel"
        approx = gen.kernel_approx()
        if approx:
            decorator = f"@hls.kernel(approx={approx!r})"
        source = (f"{decorator}\ndef {self.name}_s{k}({', '.join(params)}):\n"
                  + textwrap.indent("\n".join(declarations + lines), "    ") + "\n")
        return source, written, bound_arg

    def read(self, scope: _Scope) -> list[str]:
        """One token read on every path: plain, or in both branches of an ``if``."""
        gen, rng = self.gen, self.rng
        target = rng.choice(sorted(gen.locals))
        if rng.random() < 0.6 or "if" not in self.config.features:
            return [f"{target} = sin.read()"]
        other = rng.choice(sorted(gen.locals))
        return [f"if {gen.condition(scope)}:", f"    {target} = sin.read()",
                *_indent(self.assignments(scope, 0, 1)), "else:", f"    {other} = sin.read()"]

    def write(self, scope: _Scope) -> list[str]:
        """One token written on every path: plain, or in each branch of an ``if``/``elif``/``else``."""
        gen, rng = self.gen, self.rng
        shape = gen.streams["sout"]

        def token() -> str:
            return gen.fitting(gen.expr(scope, 0), shape)

        if rng.random() < 0.5 or "if" not in self.config.features:
            return [f"sout.write({token()})"]
        lines = [f"if {gen.condition(scope)}:", f"    sout.write({token()})"]
        if rng.random() < 0.4:
            lines += [f"elif {gen.condition(scope)}:", f"    sout.write({token()})"]
        return lines + ["else:", *_indent(self.assignments(scope, 0, 1)), f"    sout.write({token()})"]

    def assignments(self, scope: _Scope, low: int, high: int) -> list[str]:
        return [ast.unparse(self.gen.statement_assign(scope, 1)) for _ in range(self.rng.randint(low, high))]

    def around(self, scope: _Scope, steps: list[list[str]]) -> list[str]:
        """``steps`` (each a stream operation's lines) with random assignments before, between and after."""
        lines = self.assignments(scope, 0, 2)
        for step in steps:
            lines += step + self.assignments(scope, 0, 2)
        return lines


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for text in lines for line in text.splitlines()]


def _value(rng: random.Random, shape: _Shape) -> int:
    if rng.random() < 0.25:
        return rng.choice([shape.low, shape.high, 0])
    return rng.randint(shape.low, shape.high)


def generate(seed: int, index: int = 0, config: FuzzConfig = FuzzConfig()) -> Program:
    """The ``index``-th random kernel of ``seed``; the same arguments give the same program.

    Raises
    ------
    ValueError
        If ``config`` names an unknown feature.
    """
    rng = random.Random(f"axhls-fuzz:{seed}:{index}")
    name = f"fuzz_{seed}_{index}"
    # Drawn apart from the program's own draws: a program not drawn as a chain is the one it was
    # before chains existed.
    chains = random.Random(f"axhls-fuzz-chains:{seed}:{index}")
    if "chains" in config.features and chains.random() < config.chain_chance:
        source, args = _ChainGenerator(chains, config, name).program()
    else:
        source, args = _Generator(rng, config, name).program()
    return Program(name=name, source=source, args=args, seed=seed, index=index,
                   streams_only=config.streams_forced)


# --------------------------------------------------------------------------- running

@dataclass
class Verdict:
    """The outcome of one differential run.

    Attributes
    ----------
    kind : str
        ``"pass"``; ``"mismatch"`` (hardware and Python differ); ``"crash"`` (the
        compiler or simulator raised); ``"rejected"`` (the front end refused the
        program, a generator bug); ``"golden_error"`` (the Python run raised);
        ``"compiled_mismatch"`` (the compiled golden model, :mod:`hls.golden`, which the
        simulation compares the hardware with, differs from the Python run);
        ``"out_of_bound"`` (an approximate operation of the Python run is further from
        the exact result than its unit's worst case, :func:`approx_bound_check`).
    detail : str
        One line: the differing outputs, the exception, or the operation out of bound.
    cycles : int | None
    approx : BoundCheck | None
        What the error-bound oracle saw in the Python run (``None`` if it did not finish).
    """

    kind: str
    detail: str = ""
    cycles: int | None = None
    approx: "BoundCheck | None" = None

    @property
    def passed(self) -> bool:
        return self.kind == "pass"

    def same_failure(self, other: "Verdict") -> bool:
        """Whether ``other`` is the same kind of failure (for shrinking): the same kind,
        and for crashes the same exception type."""
        if self.kind != other.kind or self.passed:
            return False
        if self.kind in ("crash", "rejected", "golden_error"):
            return self.detail.split(":")[0] == other.detail.split(":")[0]
        return True


_loads = itertools.count()


def load_program(program: Program, directory: str | Path) -> hls.Kernel:
    """Write ``program`` to a new file in ``directory`` and load it as a kernel.

    Every call uses a new file name: the front end reads kernel source through
    :mod:`linecache`, which would serve a shrinker's earlier version of a
    rewritten file. The file is imported by path (it is never put in
    ``sys.modules``) and its kernel analysed before it is returned.

    Raises
    ------
    hls.KernelSyntaxError
        The kernel is outside the language.
    ValueError
        The file has no ``@hls.kernel`` named ``program.name``.
    Exception
        Whatever the generated file raises when it is imported (``SyntaxError``
        for a generator bug, ``TypeError`` for a bad annotation, ...).
    """
    path = Path(directory) / f"{program.name}_{os.getpid()}_{next(_loads)}.py"
    path.write_text(program.source)
    module_spec = importlib.util.spec_from_file_location(f"_axhls_fuzz_{path.stem}", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    kernel = getattr(module, program.name, None)
    if not isinstance(kernel, (hls.Kernel, hls.Dataflow)):
        raise ValueError(f"{path}: no @hls.kernel or @hls.dataflow named {program.name!r}")
    kernel.analyze()
    if isinstance(kernel, hls.Dataflow):
        for stage in kernel.stages:
            stage.kernel.analyze()
    return kernel


def golden_run(program: Program, directory: str | Path | None = None):
    """Run ``program`` in Python; returns ``(return value, final arrays)``."""
    with _directory(directory) as where, warnings.catch_warnings():
        warnings.simplefilter("ignore", KernelWarning)
        kernel = load_program(program, where)
        args = copy.deepcopy(program.args)
        value = kernel(**args)
        return value, {param.name: args[param.name] for param in kernel.params if param.kind == "array"}


def check(program: Program, backend: str = "amaranth", directory: str | Path | None = None,
          runner: Callable | None = None) -> Verdict:
    """Compile and simulate ``program``, and compare with its Python run.

    Parameters
    ----------
    backend : str
        Passed to ``runner`` (``sim.kernel.run`` by default).
    runner : callable, optional
        ``runner(kernel, args, backend=...)`` returning an object with ``match``,
        ``outputs``, ``expected`` and ``cycles``.
    """
    if runner is None:
        runner = simulate
    with _directory(directory) as where, warnings.catch_warnings():
        # Generated programs wrap values on purpose; the front end's advice is noise here.
        warnings.simplefilter("ignore", KernelWarning)
        try:
            kernel = load_program(program, where)
        except KernelSyntaxError as error:
            return Verdict("rejected", f"KernelSyntaxError: {error}")
        except Exception as error:  # the generated file did not even import: a generator bug too
            return Verdict("rejected", f"{type(error).__name__}: {error}")
        try:
            with _time_limit(GOLDEN_SECONDS):
                observed, python = _observed_run(kernel, copy.deepcopy(program.args))
        except Exception as error:  # the Python run itself must not fail on generated programs
            return Verdict("golden_error", f"{type(error).__name__}: {error}")
        # The bounds are measured after the run (an exhaustive one takes up to a second the
        # first time), outside its time limit.
        bounds = _held_to_bounds(observed)
        if bounds.outside:
            return Verdict("out_of_bound", bounds.outside[0], approx=bounds)
        # The simulation compares the hardware with the compiled golden model: it must be the Python run.
        compiled = compiled_difference(kernel, program.args, python)
        if compiled:
            return Verdict("compiled_mismatch", compiled, approx=bounds)
        # A kernel or chain with streams runs under random valid/ready stalls on every input and output
        # (seeded by the program's index).
        stalls = ({"stall_probability": STALL_PROBABILITY, "stall_seed": program.index}
                  if any(param.kind == "stream" for param in kernel.params) else {})
        try:
            result = runner(kernel, copy.deepcopy(program.args), backend=backend, **stalls)
        except Exception as error:
            frame = traceback.extract_tb(error.__traceback__)[-1]
            return Verdict("crash", f"{type(error).__name__}: {error} "
                                    f"(at {Path(frame.filename).name}:{frame.lineno})", approx=bounds)
        if result.match:
            return Verdict("pass", cycles=result.cycles, approx=bounds)
        return Verdict("mismatch", "; ".join(differences(result.outputs, result.expected)) or "outputs differ",
                       result.cycles, approx=bounds)


@dataclass(frozen=True)
class BoundCheck:
    """What the error-bound oracle found in one Python run.

    Attributes
    ----------
    checked : int
        Distinct approximate operations (unit, operand shapes, operands) held to a bound.
    unbounded : int
        Distinct approximate operations whose unit has no known bound at its widths
        (``hls.unit_operators.approx_error_bound`` gives ``None``: wider than
        ``hls.unit_operators.BOUND_EXHAUSTIVE_BITS``, other than ``mitchell``).
    outside : tuple of str
        One line per operation outside its bound, naming the unit, the operand shapes and
        values, the result, the exact result and the bound.
    """

    checked: int = 0
    unbounded: int = 0
    outside: tuple = ()


def approx_bound_check(kernel: hls.Kernel, args: dict) -> BoundCheck:
    """Run ``kernel`` in Python on ``args`` and hold every approximate operation to its unit's
    error bound (:func:`hls.unit_operators.approx_error_bound`).

    The hardware is checked against this same run (:func:`check`), so a result within its
    bound here is within it in hardware.
    """
    return _held_to_bounds(_observed_run(kernel, args)[0])


def _observed_run(kernel: hls.Kernel, args: dict) -> tuple[set, dict]:
    """Run ``kernel`` in Python on ``args`` (updated in place); the distinct ``(unit, x, y, value)``
    of its approximate operations, and its outputs (``{"return", "arrays"}``, as :func:`sim.kernel.run`'s)."""
    # hls.unit_operators loads approx_units (and numpy).
    from hls.unit_operators import observe_approx
    observed = set()
    with observe_approx(lambda unit, x, y, value: observed.add((unit, x, y, value))):
        result = kernel(**args)
    return observed, _outputs(kernel, result, args, kernel.golden_model().tokens_read)


def _outputs(kernel, result, args: dict, tokens_read: dict) -> dict:
    """A run's outputs as :func:`sim.kernel.run` has them: the return value, the arrays and,
    for a kernel or chain with streams, each output stream's tokens and the tokens read."""
    arrays = {param.name: [int(v) for v in args[param.name]] for param in kernel.params if param.kind == "array"}
    out = {"return": list(result) if isinstance(result, tuple) else result, "arrays": arrays}
    if any(param.kind == "stream" for param in kernel.params):
        out["streams"] = {param.name: [int(v) for v in args[param.name]] for param in kernel.params
                          if param.kind == "stream" and param.direction == "out"}
        out["tokens_read"] = dict(tokens_read)
    return out


def compiled_difference(kernel: hls.Kernel, args: dict, python: dict) -> str:
    """Empty when the compiled golden model (:mod:`hls.golden`) of ``kernel`` on a copy of ``args``
    gives the outputs ``python`` of its Python run; else one line naming the first differences
    (or the error it raised, or why it fell back to the Python run). Output streams' tokens, in
    order, and the tokens read from each input stream are outputs too; ``kernel`` may be a chain
    (``@hls.dataflow``), whose stages each run compiled."""
    model = kernel.compiled_model()
    if not model.compiled:
        return f"the compiled model fell back to the Python run: {model.fallback_reason}"
    arguments = copy.deepcopy(args)
    try:
        outputs = _outputs(kernel, model(**arguments), arguments, model.tokens_read)
    except Exception as error:
        return f"the compiled model raised {type(error).__name__}: {error}"
    lines = differences(outputs, python)
    return "; ".join(line.replace("hardware", "compiled") for line in lines)


def _held_to_bounds(observed: set) -> BoundCheck:
    """:class:`BoundCheck` of the operations :func:`_observed_run` saw."""
    # hls.unit_operators loads approx_units (and numpy), as in _observed_run.
    from hls.unit_operators import approx_error_bound
    checked = unbounded = 0
    outside = []
    for unit, x, y, value in sorted(observed, key=lambda seen: (seen[0].description, seen[1:])):
        bound = approx_error_bound(unit.choice, unit.a, unit.b)
        if bound is None:
            unbounded += 1
            continue
        checked += 1
        if not bound.admits(x, y, value):
            outside.append(f"{unit.choice.label} on {format_shape(unit.a)} and {format_shape(unit.b)}: "
                           f"{x} {APPROX_OPERATORS[unit.choice.kind]} {y} gave {value}, exact {bound.reference(x, y)}; "
                           f"bound ({bound.source}): WCE {bound.absolute}, WCRE {bound.relative}")
    return BoundCheck(checked, unbounded, tuple(outside))


#: A generated program's Python run takes milliseconds; one that takes longer loops forever.
GOLDEN_SECONDS = 20


class GoldenTimeout(Exception):
    """The Python run of a program did not finish within :data:`GOLDEN_SECONDS`."""


@contextlib.contextmanager
def _time_limit(seconds: int):
    """Raise :class:`GoldenTimeout` after ``seconds`` (main thread on Unix; elsewhere no limit)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def expire(signum, frame):
        raise GoldenTimeout(f"the Python run did not finish within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class _directory:
    def __init__(self, directory):
        self.directory = directory
        self.tmp = None

    def __enter__(self) -> Path:
        if self.directory is not None:
            return Path(self.directory)
        self.tmp = tempfile.TemporaryDirectory(prefix="axhls-fuzz-")
        return Path(self.tmp.name)

    def __exit__(self, *exc):
        if self.tmp is not None:
            self.tmp.cleanup()


# --------------------------------------------------------------------------- shrinking

def _kernel_def(module: ast.Module, name: str) -> ast.FunctionDef:
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise ValueError(f"no function {name!r} in the program")


def _bodies(node: ast.AST):
    """Every statement list below ``node`` (function body, if/else branches, loop bodies)."""
    for child in ast.walk(node):
        for attribute in ("body", "orelse"):
            statements = getattr(child, attribute, None)
            if isinstance(statements, list) and statements and isinstance(statements[0], ast.stmt):
                yield statements


def _statement_candidates(source: str, name: str):
    """Sources with one statement removed, or one compound statement replaced by a branch of it."""
    module = ast.parse(source)
    function = _kernel_def(module, name)
    count = sum(len(body) for body in _bodies(function))
    for position in range(count):
        for action in ("delete", "unwrap_body", "unwrap_orelse"):
            candidate = copy.deepcopy(module)
            body, offset = _locate(_kernel_def(candidate, name), position)
            statement = body[offset]
            if isinstance(statement, (ast.Return, ast.AnnAssign)) or _is_counter_step(statement) \
                    or _is_local_declaration(statement):
                continue  # declarations fix shapes, and a while loop must keep counting
            if action == "delete":
                body[offset:offset + 1] = []
            elif action == "unwrap_body" and isinstance(statement, (ast.If, ast.For, ast.While)):
                body[offset:offset + 1] = statement.body
            elif action == "unwrap_orelse" and isinstance(statement, ast.If) and statement.orelse:
                body[offset:offset + 1] = statement.orelse
            else:
                continue
            if not body:
                body.append(ast.Pass())
            yield ast.unparse(ast.fix_missing_locations(candidate))


_COUNTER = re.compile(r"w\d+\Z")


def _is_counter_step(statement: ast.stmt) -> bool:
    """``wK = wK + 1`` or ``wK = 0``: the statements that bound a generated while loop."""
    return (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and _COUNTER.match(statement.targets[0].id) is not None)


def _is_local_declaration(statement: ast.stmt) -> bool:
    """``buf = hls.local(...)``: removing it leaves the uses undefined (the other shrinking
    steps remove the uses; :func:`_pragma_candidates` drops its partition)."""
    return isinstance(statement, ast.Assign) and _is_hls_call(statement.value, "local")


def _pragma_candidates(source: str, name: str):
    """Sources with one issue-11 construct taken out: an ``hls.unroll``/``hls.pipeline``/
    ``hls.sequential`` loop made a plain ``range`` loop, a partial unroll made full (which
    the front end accepts only for constant bounds), or an array's partition dropped."""
    module = ast.parse(source)
    function = _kernel_def(module, name)
    loops = [node for node in ast.walk(function) if isinstance(node, ast.For) and _pragma(node)]
    for position, loop in enumerate(loops):
        for action in ("plain", "full"):
            if action == "full" and not (_pragma(loop) == "unroll" and loop.iter.keywords):
                continue
            candidate = copy.deepcopy(module)
            target = [node for node in ast.walk(_kernel_def(candidate, name))
                      if isinstance(node, ast.For) and _pragma(node)][position]
            if action == "plain":
                target.iter = target.iter.args[0]
            else:
                target.iter.keywords = []
            yield ast.unparse(ast.fix_missing_locations(candidate))
    partitioned = [node for node in ast.walk(function) if _partitioned(node)]
    for position in range(len(partitioned)):
        candidate = copy.deepcopy(module)
        target = [node for node in ast.walk(_kernel_def(candidate, name)) if _partitioned(node)][position]
        if isinstance(target, ast.Call):
            target.keywords = []
        else:
            target.slice.elts = target.slice.elts[:2]
        yield ast.unparse(ast.fix_missing_locations(candidate))


def _partitioned(node: ast.AST) -> bool:
    """``hls.local(..., partition=...)``, or ``hls.Array[shape, depth, hls.partition(...)]``."""
    if _is_hls_call(node, "local"):
        return bool(node.keywords)
    return (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 3
            and _is_hls_call(node.slice.elts[2], "partition"))


def _locate(function: ast.FunctionDef, position: int):
    for body in _bodies(function):
        if position < len(body):
            return body, position
        position -= len(body)
    raise IndexError(position)


def _expression_candidates(source: str, name: str):
    """Sources with one expression replaced by one of its operands, or by 0 or 1."""
    module = ast.parse(source)
    count = len(_replaceable_expressions(_kernel_def(module, name)))
    for position in range(count):
        original = _replaceable_expressions(_kernel_def(module, name))[position]
        skip = {id(original.func)} if isinstance(original, ast.Call) else set()
        if isinstance(original, ast.Subscript):
            skip.add(id(original.value))  # the array itself is not a value
        replacements = [child for child in ast.iter_child_nodes(original)
                        if isinstance(child, ast.expr) and id(child) not in skip]
        replacements += [ast.Constant(0), ast.Constant(1)]
        for replacement in replacements:
            candidate = copy.deepcopy(module)
            target = _replaceable_expressions(_kernel_def(candidate, name))[position]
            if _replace(candidate, target, copy.deepcopy(replacement)):
                yield ast.unparse(ast.fix_missing_locations(candidate))


def _replaceable_expressions(function: ast.FunctionDef) -> list[ast.expr]:
    """Compound expressions of the body, in a fixed order, leaving out annotations,
    assignment targets and loop ranges (whose forms the language restricts)."""
    fixed = set()
    # The decorator (`@hls.kernel(approx=..., resources=...)`) is options, not values.
    roots = [function.returns] + [argument.annotation for argument in function.args.args] \
        + list(function.decorator_list)
    for statement in ast.walk(function):
        if isinstance(statement, ast.AnnAssign):
            roots += [statement.annotation, statement.target]
        elif isinstance(statement, ast.Assign):
            roots += [statement.value] if _is_counter_step(statement) else statement.targets
            if _is_local_declaration(statement):
                roots.append(statement.value)  # shape, depth and partition, not values
        elif isinstance(statement, ast.For):
            roots.append(statement.iter)
        elif isinstance(statement, ast.While):
            # `wK < bound` must stay; the rest of the condition may be simplified.
            test = statement.test
            roots.append(test.values[0] if isinstance(test, ast.BoolOp) else test)
    for root in roots:
        if root is not None:
            fixed.update(id(node) for node in ast.walk(root))
    return [node for node in ast.walk(function)
            if isinstance(node, ast.expr) and not isinstance(node, (ast.Name, ast.Constant))
            and id(node) not in fixed]


def _replace(tree: ast.AST, old: ast.expr, new: ast.expr) -> bool:
    for parent in ast.walk(tree):
        for field_name, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field_name, new)
                return True
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new
                        return True
    return False


def _argument_candidates(args: dict):
    for name, value in args.items():
        if isinstance(value, list):
            if any(value):
                yield {**args, name: [0] * len(value)}
            for k, element in enumerate(value):
                if element not in (0, 1):
                    yield {**args, name: value[:k] + [0] + value[k + 1:]}
        elif value not in (0, 1):
            yield {**args, name: 0}
            yield {**args, name: 1}


def shrink(program: Program, verdict: Verdict, recheck: Callable[[Program], Verdict],
           max_attempts: int = 400) -> tuple[Program, Verdict]:
    """Greedily simplify ``program`` while ``recheck`` keeps reporting the same failure.

    Parameters
    ----------
    program, verdict : the failing program and its failure.
    recheck : callable
        Program -> Verdict, usually ``functools.partial(check, backend=...)``.
    max_attempts : int
        Bound on the number of candidate programs tried.

    Returns
    -------
    The smallest program found and its verdict.
    """
    attempts = 0
    # Candidates are unparsed ASTs; compare lengths in that one formatting.
    best = replace(program, source=ast.unparse(ast.parse(program.source)))
    best_verdict = verdict

    def attempt(candidate: Program) -> bool:
        nonlocal attempts, best, best_verdict
        attempts += 1
        outcome = recheck(candidate)
        if verdict.same_failure(outcome):
            best, best_verdict = candidate, outcome
            return True
        return False

    improved = True
    while improved and attempts < max_attempts:
        improved = False
        for make in (_statement_candidates, _pragma_candidates, _expression_candidates):
            for source in make(best.source, best.name):
                if attempts >= max_attempts:
                    break
                if len(source) < len(best.source) and attempt(replace(best, source=source)):
                    improved = True
                    break
            if improved:
                break
        if not improved:
            for args in _argument_candidates(best.args):
                if attempts >= max_attempts:
                    break
                if attempt(replace(best, args=args)):
                    improved = True
                    break
    return best, best_verdict


# --------------------------------------------------------------------------- regressions

_REGRESSION_TEMPLATE = '''\
"""Fuzzer regression: generate(seed={seed}, index={index}), shrunk.

Found with `python benchmarks/fuzz.py --seed {seed} --start {index} --count 1{options}` ({backend} back end):
{kind}: {detail}
"""
{source}

ARGS = {args!r}


def test_{name}():
    import copy

    from sim.kernel import expected_outputs, run

    from sim.fuzz import approx_bound_check, compiled_difference

    assert not approx_bound_check({name}, copy.deepcopy(ARGS)).outside
    assert not compiled_difference({name}, ARGS, expected_outputs({name}, ARGS, golden="python"))
    result = run({name}, copy.deepcopy(ARGS), backend={backend!r}{stalls})
    assert result.match, (result.outputs, result.expected)
'''


def write_regression(program: Program, verdict: Verdict, directory: str | Path,
                     backend: str = "amaranth") -> Path:
    """Save ``program`` as ``directory/test_<name>.py``, a pytest test that passes once fixed.

    The file is written atomically (:mod:`artefacts`), so it is never half-written.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    body = ast.unparse(ast.parse(program.source))  # drops the generated docstring
    body = "\n".join(line for line in body.splitlines() if not line.startswith("'"))
    # A program with streams runs under the stalls check() gave it.
    stalls = (f", stall_probability={STALL_PROBABILITY}, stall_seed={program.index}"
              if "stream" in program.constructs else "")
    options = " --streams-only" if program.streams_only else ""
    text = _REGRESSION_TEMPLATE.format(seed=program.seed, index=program.index, backend=backend, stalls=stalls,
                                       options=options,
                                       kind=verdict.kind, detail=verdict.detail.replace('"""', "'''"),
                                       source=body, args=program.args, name=program.name)
    compile(text, "regression", "exec")  # a generator bug must not leave an unparsable test
    target = directory / f"test_{program.name}.py"
    artefacts.write_text(target, text)
    return target
