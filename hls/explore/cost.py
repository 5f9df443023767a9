"""Estimated cost of one assignment: each operation as the compiler builds it, plus each kernel's exact
remainder.

* An operation's cost at one choice is measured on its *probe*: a kernel of one statement,
  ``return a OP b`` on parameters of the operation's operand shapes, compiled for the kernel's
  target with that choice (:func:`probe_kernel`), so its hardware is what the backend builds
  for the operation: the unit with its sign handling and clamp, pipelined to the clock, or for
  exact arithmetic the compiler's own multiplier (synthesis' ``*``, digit products or the
  library's multiplier) or divider.  The probe's LUT equivalents (LUT4 + 2 x CCU2C,
  ``synth_ecp5 -nodsp -nowidelut``, cached in :class:`approx_units.synth.ResultCache`) less
  those of its *base* (``return a``: the same handshake and result register, no operation)
  are the operation's cost.  A product whose one consumer is a sum is probed with its adder
  (``x * y + z`` less ``x + z``, :func:`consuming_addend`): synthesis builds the two together.
* A kernel's *remainder* is its exact synthesis (:func:`approx_units.synth.synthesize_kernel_seeds`,
  the flow of ``benchmarks/apps.py``) less the cost of its operations when exact, once per copy.
* The estimate of an assignment is the sum of the remainders and of every copy's cost.

Whole-kernel synthesis also trims an operation's result bits that nothing reads and the
logic around the operation (narrowed registers, the schedule's delay lines) changes with the
unit's latency; ``explore(verify=True)`` measures each front point whole and reports the error;
``benchmarks/explore_cost.py`` prints the error's distribution on uniform configurations.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import statistics
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from amaranth.hdl import Shape

from approx_units.synth import synthesize_kernel_seeds, synthesize_verilog

from ..approx import KINDS
from ..analysis.registers import RegisterWidths, interval_shape
from ..compiler import compile_kernel
from ..ir.nodes import PipelinedLoop
from ..ir.ops import operator_of
from ..kernel import Kernel
from ..unit_operators import UnitWidthError, approx_unit, exact_result_shape

__all__ = ["CostModel", "Context", "kernel_contexts", "read_bits", "consuming_sum", "consuming_addend", "probe_kernel", "compile_probe",
           "probe_source", "error_distribution"]


def error_distribution(errors) -> dict:
    """The distribution of the estimate's errors ``errors`` (each in % of the measured figure):
    ``points``, ``within_10pct`` (how many have ``|error| <= 10``), ``share_within_10pct`` (0..1),
    ``median_pct`` (signed), ``median_abs_pct`` and ``worst_pct`` (the largest ``|error|``, signed);
    the last four ``None`` for no point."""
    errors = [float(error) for error in errors]
    if not errors:
        return {"points": 0, "within_10pct": 0, "share_within_10pct": None, "median_pct": None,
                "median_abs_pct": None, "worst_pct": None}
    within = sum(abs(error) <= 10 for error in errors)
    return {"points": len(errors), "within_10pct": within, "share_within_10pct": round(within / len(errors), 4),
            "median_pct": round(statistics.median(errors), 2),
            "median_abs_pct": round(statistics.median(abs(error) for error in errors), 2),
            "worst_pct": round(max(errors, key=lambda error: (abs(error), error)), 2)}


def _shape_text(shape: Shape) -> str:
    return f"{'signed' if shape.signed else 'unsigned'}({shape.width})"


@dataclass(frozen=True)
class Context:
    """How a kernel builds one copy of an operation: what its probe (:func:`probe_source`) rebuilds.

    Attributes
    ----------
    a, b : Shape
        The operands' shapes, at which the unit (or the exact operator) is built and timed.
    a_values, b_values : Shape
        The narrowest shapes that hold the values the value analysis proves for the operands
        (:func:`hls.analysis.registers.interval_shape`): synthesis folds the bits they never set.
    same : bool
        Both operands are one value (``y * y``): synthesis shares the logic of the two inputs.
    result : Shape
        The result's bits below the highest one the kernel reads (:func:`read_bits`): a narrower
        assignment, or a sum that is narrowed, drops the rest, and synthesis removes the logic
        only they need.
    pipelined : bool
        The operation is in the body of a pipelined loop (else in a block that runs once).
    low : int
        The result's low bits the kernel never reads (a constant ``>>`` drops them): an
        approximate unit's logic that only they need is removed too.
    addend : Shape or None
        For a product whose only consumer (through narrowing ``wrap`` operations and a constant ``>>``)
        is a ``+`` or ``-`` (:func:`consuming_addend`): the shape of the other summand's values.
        Synthesis builds a product and the sum it feeds together (Yosys' ``alumacc`` makes one
        ``$macc`` of them), so the probe prices the product beside its adder (``x * y + z`` less
        ``x + z``).  ``None`` for other operations and consumers.
    consumer : str or None
        For such a product, the key of the site of that ``+`` or ``-`` when it is itself a site of
        the space (``kinds`` with ``add``); not part of the probe.  When that sum is approximate,
        its own probe prices its low logic, which the product's bonus beside it may also claim
        (:meth:`CostModel.saving`).
    """

    a: Shape
    b: Shape
    a_values: Shape
    b_values: Shape
    same: bool
    result: Shape
    pipelined: bool
    low: int = 0
    addend: Shape | None = None
    consumer: str | None = None

    @classmethod
    def plain(cls, kind: str, a: Shape, b: Shape) -> "Context":
        """Operands of any value of their shapes, two of them, the whole result, in a pipelined loop."""
        return cls(a, b, a, b, False, exact_result_shape(kind, a, b), True)

    @property
    def shapes(self) -> tuple[Shape, Shape]:
        return self.a, self.b

    def text(self) -> str:
        values = "" if (self.a_values, self.b_values) == (self.a, self.b) else \
            f" (values {self.a_values.width}x{self.b_values.width} bits)"
        kept = f"bits {self.low}..{self.result.width - 1}" if self.low else f"{self.result.width} bits"
        added = "" if self.addend is None else f" + {self.addend.width} bits"
        return (f"{self.a.width}x{self.b.width} bits{values}{', one operand' if self.same else ''}"
                f" -> {kept}{added}{'' if self.pipelined else ', not in a loop'}")


#: Iterations of a probe's loop (its counter is the same in the probe and its base).
PROBE_TRIPS = 4


def probe_source(kind: str | None, context: Context, result_kind: str | None = None) -> str:
    """The source of the probe kernel of one operation in ``context``: the operands, of the shapes of
    their values, assigned to variables of the operation's operand shapes; the result's bits
    ``context.low`` .. ``context.result.width - 1`` (``(x * y) >> low``) stored or returned; in a
    pipelined loop over arrays, or once on scalar parameters.

    With ``context.addend``, the result (or the base's ``x``) is added to a third operand ``z`` of
    that shape, and the sum stored: ``(x * y) >> low + z`` less ``x + z`` is the operation's cost
    beside its adder.

    ``kind`` ``None`` gives the probe's *base*: the same kernel with the operation's result replaced
    by its first operand (``result_kind`` names the operation's kind for its result shape).
    """
    c = context
    body = ("x" if kind is None else f"x {KINDS[kind]} {'x' if c.same else 'y'}")
    if kind is not None and c.low:
        body = f"({body}) >> {c.low}"
    stored = Shape(c.result.width - c.low, c.result.signed)
    operands = [("a", "x", c.a_values, c.a)] + ([] if c.same else [("b", "y", c.b_values, c.b)])
    if c.addend is not None:
        body = f"({body}) + z"
        stored = exact_result_shape("add", stored, c.addend)
        operands.append(("c", "z", c.addend, c.addend))
    lines = ["import hls", "from amaranth import signed, unsigned", "", ""]
    if c.pipelined:
        parameters = [f"{p}: hls.Array[{_shape_text(values)}, {PROBE_TRIPS}]" for p, _, values, _ in operands]
        parameters.append(f"o: hls.Array[{_shape_text(stored)}, {PROBE_TRIPS}]")
        lines.append(f"def probe({', '.join(parameters)}):")
        lines.append(f"    for i in range({PROBE_TRIPS}):")
        lines += [f"        {v}: {_shape_text(shape)} = {p}[i]" for p, v, _, shape in operands]
        lines.append(f"        o[i] = {body}")
    else:
        parameters = [f"{p}: {_shape_text(values)}" for p, _, values, _ in operands]
        lines.append(f"def probe({', '.join(parameters)}) -> {_shape_text(stored)}:")
        lines += [f"    {v}: {_shape_text(shape)} = {p}" for p, v, _, shape in operands]
        lines.append(f"    return {body}")
    return "\n".join(lines) + "\n"


def probe_kernel(kind: str | None, context: Context, target, unit=None, *, result_kind: str | None = None):
    """The probe of one operation in ``context`` (:func:`probe_source`) compiled for ``target``, its
    operation replaced by ``unit`` (an :class:`hls.approx.UnitChoice`, or ``None`` for exact).

    Returns
    -------
    hls.compiler.CompiledKernel
        Compiled while its source file exists (the front end reads it).
    """
    return compile_probe(probe_source(kind, context, result_kind), target, unit)


def compile_probe(source: str, target, unit=None):
    """Kernel ``probe`` of ``source`` compiled for ``target``, every operation of ``unit``'s kind
    replaced by ``unit`` (``None``: exact); compiled while its source file exists (the front end
    reads it)."""
    with tempfile.TemporaryDirectory(prefix="axhls-probe-") as folder:
        path = Path(folder, "probe.py")
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("_axhls_cost_probe", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kernel = Kernel(module.probe, target=target)
        if unit is not None:
            kernel = kernel.with_approx({operation.key: unit for operation in kernel.analyze().operations
                                         if operation.kind == unit.kind})
        compiled = compile_kernel(kernel)
        compiled.verilog()          # generated (and kept) while the file is there
        return compiled


def _allows(unit, shapes) -> bool:
    try:
        approx_unit(unit, *shapes)
        return True
    except UnitWidthError:
        return False


#: Consumers through which only some bits of an operand are read: ``kind: rule(use, index, low, high)``
#: gives the bits ``[low', high')`` of operand ``index`` that the bits ``[low, high)`` of ``use``'s
#: result read, as indices into the operand extended to ``use``'s width (``None``: every bit).
_READS = {
    "wrap": lambda use, index, low, high: (low, high),
    "and": lambda use, index, low, high: (low, high),
    "or": lambda use, index, low, high: (low, high),
    "xor": lambda use, index, low, high: (low, high),
    "select": lambda use, index, low, high: (low, high) if index else None,
    # A carry runs from the lowest bit up: every bit below the highest read.
    "add": lambda use, index, low, high: (0, high),
    "sub": lambda use, index, low, high: (0, high),
    "neg": lambda use, index, low, high: (0, high),
    # By a constant: a wire that moves the bits.
    "shr": lambda use, index, low, high: ((low + _amount(use), high + _amount(use)) if index == 0 else None),
    "shl": lambda use, index, low, high: ((max(0, low - _amount(use)), max(0, high - _amount(use)))
                                          if index == 0 else None),
}


def _amount(use) -> int:
    amount = use.operands[1]
    if amount.kind != "const":
        raise _EveryBit
    return int(amount.attrs["value"])


class _EveryBit(Exception):
    """A consumer that reads every bit of its operand (a shift by a variable)."""


def read_bits(op, uses: dict, memo: dict) -> tuple[int, int]:
    """``(low, high)``: the bits ``low .. high - 1`` of ``op``'s result hold every bit its consumers read.

    Followed through the consumers that read part of an operand (:data:`_READS`: a narrowing
    ``wrap``, a constant shift, the bits below the highest read of a sum, bitwise logic and a
    select's data) to the ones that read it whole (a store, a register, a comparison, another
    product, a shift by a variable, a predicate).  An index above the operand's width reads its
    sign bit when it is signed, and nothing when not.  ``uses``: ``{id(op): [consumer, ...]}``;
    ``memo``: a dict shared between calls on one IR.
    """
    width, signed = Shape.cast(op.shape).width, Shape.cast(op.shape).signed
    if id(op) in memo:
        return memo[id(op)]
    memo[id(op)] = (0, width)           # a cycle (none in a block's data flow) reads every bit
    low, high = width, 0
    for use in uses.get(id(op), []):
        rule = _READS.get(use.kind)
        spans = []
        for index, operand in enumerate(use.operands):
            if operand is not op:
                continue
            try:
                span = rule(use, index, *read_bits(use, uses, memo)) if rule is not None else None
            except _EveryBit:
                span = None
            spans.append((0, width) if span is None else span)
        if use.predicate is op:
            spans.append((0, width))
        for first, last in spans:
            if first >= last:
                continue
            if last > width:            # the extension's bits: the sign bit, or constant zeros
                last = width if signed else min(last, width)
                first = min(first, width - 1) if signed else first
            if first < last:
                low, high = min(low, first), max(high, last)
    if low >= high:                     # read by nothing in the blocks (a return value, say): kept whole
        low, high = 0, width
    memo[id(op)] = (low, high)
    return low, high


#: Consumers a sum is built with: a product's adder.
_SUMS = ("add", "sub", "approx_add", "approx_sub")


def consuming_sum(op, uses: dict):
    """``(sum, other summand)``: the ``+`` or ``-`` that consumes ``op``'s result, when that is its only
    consumer (a variable's ``commit`` aside), reached directly or through a narrowing ``wrap`` and a
    shift right by a constant; else ``None``.  ``uses``: ``{id(op): [consumer, ...]}``.
    """
    current = op
    for _ in range(8):
        consumers = [use for use in uses.get(id(current), []) if use.kind != "commit"]
        if len(consumers) != 1 or consumers[0].predicate is current:
            return None
        (use,) = consumers
        if use.kind == "wrap" or (use.kind == "shr" and use.operands[0] is current
                                  and use.operands[1].kind == "const"):
            current = use
            continue
        if use.kind not in _SUMS or len(use.operands) != 2:
            return None
        first, second = use.operands
        if first is second:
            return None
        return use, (second if first is current else first)
    return None


def consuming_addend(op, uses: dict, values) -> Shape | None:
    """The shape of the values of the other summand of :func:`consuming_sum`'s sum, else ``None``.
    ``values``: the value analysis (:class:`hls.analysis.registers.RegisterWidths`'s ``values``) that
    narrows the summand to the bits its values set.
    """
    found = consuming_sum(op, uses)
    if found is None:
        return None
    value = values.value(found[1])
    narrowed = interval_shape(value.low, value.high, found[1].shape)
    return Shape(max(1, narrowed.width), narrowed.signed)


def kernel_contexts(kernel, sites) -> dict[str, Counter]:
    """``{site key: Counter(Context)}``: the context of every copy of each of ``kernel``'s ``sites``.

    The kernel is compiled with a unit on each site (the one most of its copies allow), so that
    each copy is an ``approx_<kind>`` operation of the IR, found by its line and text.  Its context
    is read from that IR: the operands' intervals from the value analysis the back end narrows
    registers with (:class:`hls.analysis.registers.RegisterWidths`), whether they are one value,
    the result's bits that are read (:func:`read_bits`), and whether its block is a pipelined
    loop's body.  A copy not found so (its widths do not allow the unit) takes
    :meth:`Context.plain`.
    """
    sites = [site for site in sites if site.kernel == kernel.name]
    markers = {}
    for site in sites:
        allowed = {unit: sum(count for shapes, count in site.copies if _allows(unit, shapes)) for unit in site.units}
        markers[site.key] = max(site.units, key=lambda unit: allowed[unit])
    compiled = compile_kernel(kernel.with_approx(markers)) if markers else None
    found: dict[str, Counter] = {site.key: Counter() for site in sites}
    if compiled is not None:
        ir = compiled.ir
        widths = RegisterWidths(ir)
        uses: dict = {}
        for block in ir.blocks():
            for op in block.ops:
                for operand in op.inputs():
                    uses.setdefault(id(operand), []).append(op)
        by_text = {(site.operation.kind, site.operation.lineno, site.operation.text): site.key for site in sites}
        read: dict = {}
        for node in ir.nodes:
            block = node.body if isinstance(node, PipelinedLoop) else node
            for op in block.ops:
                if operator_of(op.kind).unit is None:
                    continue        # not an instance of an approximate unit
                unit_kind = op.attrs["unit"].kind
                keys = {by_text.get((unit_kind, line, op.text)) for line in op.lines} - {None}
                if len(keys) != 1:
                    continue
                a, b = op.operands
                narrowed = [interval_shape(value.low, value.high, operand.shape)
                            for operand in (a, b) for value in (widths.values.value(operand),)]
                low, high = read_bits(op, uses, read)
                addend = consuming_addend(op, uses, widths.values) if unit_kind == "mul" else None
                consumer = None
                if addend is not None:
                    sum_op = consuming_sum(op, uses)[0]
                    if operator_of(sum_op.kind).unit is not None:     # the sum is a site's unit too
                        sum_keys = {by_text.get((sum_op.attrs["unit"].kind, line, sum_op.text))
                                    for line in sum_op.lines} - {None}
                        consumer = sum_keys.pop() if len(sum_keys) == 1 else None
                context = Context(Shape.cast(a.shape), Shape.cast(b.shape),
                                  *(Shape(max(1, shape.width), shape.signed) for shape in narrowed),
                                  a is b, Shape(high, Shape.cast(op.shape).signed), isinstance(node, PipelinedLoop),
                                  low, addend, consumer)
                found[keys.pop()][context] += 1
    result = {}
    for site in sites:
        contexts = Counter(found[site.key])
        for shapes, count in site.copies:
            missing = count - sum(n for context, n in contexts.items() if context.shapes == shapes)
            if missing > 0:
                contexts[Context.plain(site.operation.kind, *shapes)] += missing
        result[site.key] = contexts
    return result


class CostModel:
    """LUT-equivalent estimates of the assignments of ``space``.

    Parameters
    ----------
    space : hls.explore.space.Space
    cache : approx_units.synth.ResultCache
    progress : callable, optional
        ``progress(text)`` before each probe and kernel is synthesised (or read from the cache).
    seeds : sequence of int
        Placement seeds of each kernel's exact synthesis (its Fmax is their median).

    Attributes
    ----------
    exact : dict of str to dict
        Per kernel: ``lut_equivalents``, ``ffs``, ``fmax_mhz`` of the exact kernel.
    remainders : dict of str to float
        Per kernel: the exact LUT equivalents less its operations' exact cost.
    costs : list of list of float
        ``costs[site][choice]``: LUT equivalents of all the site's copies at that choice.
    contexts : dict of str to collections.Counter
        Per site key: how many of its copies the kernel builds in each :class:`Context`.
    overlaps : list of tuple
        ``(product site, sum site, excess)``: ``excess[choice]`` is what the product's copies that
        feed that sum save beside it beyond what they save alone.  While the sum is approximate,
        :meth:`saving` takes the products' excess back, up to the sum's own saving.
    """

    def __init__(self, space, cache, *, progress=None, seeds=(1,)):
        self.space, self.cache = space, cache
        self._probes: dict = {}
        say = progress or (lambda text: None)
        targets = {kernel.name: kernel.target for kernel in space.kernels}

        def synthesised(compiled) -> float:
            return synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                      cache=cache).lut_equivalents

        def probe_cost(kind, unit, context, target) -> float | None:
            if unit is not None and not _allows(unit, context.shapes):
                return None
            context = dataclasses.replace(context, consumer=None)     # not part of the probe
            key = (kind, unit, context, target)
            if key not in self._probes:
                base_key = (None, kind, context, target)
                if base_key not in self._probes:
                    self._probes[base_key] = synthesised(probe_kernel(None, context, target, result_kind=kind))
                say(f"synthesise {unit.label if unit else 'exact ' + kind} at {context.text()}")
                self._probes[key] = synthesised(probe_kernel(kind, context, target, unit)) - self._probes[base_key]
            return self._probes[key]

        #: ``{site key: Counter(Context)}``: every copy's context, read from its kernel's IR.
        self.contexts = {}
        for kernel in space.kernels:
            self.contexts.update(kernel_contexts(kernel, space.sites))
        self.costs = []
        #: ``[(product site, sum site, [LUT equivalents per choice of the product])]``: what a product's
        #: copies priced beside their sum save beyond what they save alone.  A rounding product and an
        #: approximate adder behind it remove the same low columns; :meth:`saving` counts them once.
        self.overlaps = []
        index_of = {site.key: i for i, site in enumerate(space.sites)}
        exact_of_kernel = {kernel.name: 0.0 for kernel in space.kernels}
        for i, site in enumerate(space.sites):
            kind, target = site.operation.kind, targets[site.kernel]
            copies = sorted(self.contexts[site.key].items(), key=lambda item: repr(item[0]))
            exact = {context: probe_cost(kind, None, context, target) for context, _ in copies}
            row = [sum(count * exact[context] for context, count in copies)]
            for unit in site.units:
                total = 0.0
                for context, count in copies:
                    value = probe_cost(kind, unit, context, target)
                    total += count * (exact[context] if value is None else value)
                row.append(total)
            self.costs.append(row)
            exact_of_kernel[site.kernel] += row[0]
            for consumer in sorted({context.consumer for context, _ in copies} - {None}):
                linked = [(context, count) for context, count in copies if context.consumer == consumer]
                excess = []
                for unit in (None, *site.units):
                    total = 0.0
                    for context, count in linked:
                        alone = dataclasses.replace(context, addend=None)
                        beside = probe_cost(kind, unit, context, target)
                        by_itself = probe_cost(kind, unit, alone, target)
                        if beside is None:
                            continue
                        saved_beside = exact[context] - beside
                        saved_alone = probe_cost(kind, None, alone, target) - by_itself
                        total += count * max(0.0, saved_beside - saved_alone)
                    excess.append(total)
                if any(excess):
                    self.overlaps.append((i, index_of[consumer], excess))
        self.exact, self.remainders = {}, {}
        for kernel in space.kernels:
            compiled = compile_kernel(kernel)
            say(f"synthesise the exact {kernel.name}")
            placed = synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=kernel.clock_mhz,
                                             seeds=tuple(seeds), cache=cache)
            self.exact[kernel.name] = {"lut_equivalents": placed[0].lut_equivalents, "ffs": placed[0].ffs,
                                       "fmax_mhz": statistics.median(p.fmax_mhz for p in placed)}
            self.remainders[kernel.name] = placed[0].lut_equivalents - exact_of_kernel[kernel.name]
        self._sites_of = {kernel.name: [i for i, site in enumerate(space.sites) if site.kernel == kernel.name]
                          for kernel in space.kernels}

    def saving(self, selection) -> dict[str, float]:
        """Per kernel: the probes' LUT equivalents saved against exact under ``selection``.  Under an
        approximate sum, what its products save beside it beyond alone (:attr:`overlaps`) is taken
        back, up to the sum's own saving: the columns both remove are counted once."""
        saved = {name: sum(self.costs[i][0] - self.costs[i][int(selection[i])] for i in sites)
                 for name, sites in self._sites_of.items()}
        counted_twice: dict[int, float] = {}
        for product, consumer, excess in self.overlaps:
            if int(selection[consumer]):
                counted_twice[consumer] = counted_twice.get(consumer, 0.0) + excess[int(selection[product])]
        for consumer, excess in counted_twice.items():
            # No more than the sum's own saving can have been claimed twice.
            sum_saving = self.costs[consumer][0] - self.costs[consumer][int(selection[consumer])]
            saved[self.space.sites[consumer].kernel] -= max(0.0, min(excess, sum_saving))
        return saved

    def kernel_estimates(self, selection) -> dict[str, float]:
        """Estimated LUT equivalents of each kernel under ``selection``."""
        saving = self.saving(selection)
        return {name: self.exact[name]["lut_equivalents"] - saving[name]
                for name in self._sites_of}

    def estimate(self, selection) -> float:
        """Estimated LUT equivalents of the kernels under ``selection``."""
        return sum(self.kernel_estimates(selection).values())
