"""Schedule reports: what II each loop reaches and which source lines bound it.

The JSON form (:meth:`Report.to_json`) is the contract of ``axhls report --json``::

    {"kernel", "clock_mhz", "claimed_clock_mhz", "critical_path": {"budget_ns", "expected_ns", "through"},
     "loops": [{"name", "line", "pipelined", "ii", "mii", "res_mii", "rec_mii", "depth",
                "trip_count", "bound": {"kind", "lines", "detail"}, ...}],
     "resources": {...},
     "approx": [{"file", "line", "col", "text", "kind", "unit", "origin", "operands",
                 "replaced", "exact_reason", "latency", "dead"}]}

``critical_path`` is the delay model's longest register-to-register path (:func:`critical_path`):
its ``budget_ns``, the sum the schedule and the claim are made from, ``expected_ns``, what place
and route is expected to give it, and ``through``, the path in words.  ``resources.register_bits`` is ``{"before", "after"}``: the flip-flops the kernel's module
declares at the declared and operations' shapes, and as built with registers sized by their
ranges (:mod:`hls.analysis.registers`; equal under ``compile_kernel(narrowing=False)``).
``bound.kind`` is ``resource``, ``recurrence``, ``memory`` or ``exit``; for a loop
that is not pipelined ``ii``/``mii``/``depth``/``bound`` are ``null`` and
``reason`` says why.  ``approx`` (present when ``hls.approx`` or ``approx=`` asked for units) lists every
operation a unit was asked for by its source line: ``origin`` is ``"kernel"`` or ``"call"``,
``replaced`` false (with ``exact_reason``) where ``approx=`` left it exact, ``latency``
the cycles of the unit as scheduled, ``dead`` true where dead-code elimination removed the
operation (:mod:`hls.ir.dead`: no unit is built for it).  Pipelined loops also carry ``speculative`` (early exits
squash younger iterations), ``exit_lines`` and ``forwarded_loads`` (lines of
reads served by store-to-load forwarding) and ``independent``: for each pair of
accesses to one array that the memory dependence analysis proved never to
conflict (in one order or both), the proof as a sentence naming the lines
(:func:`hls.analysis.memdep.independence_proofs`).  ``claimed_clock_mhz`` is the clock
the kernel is claimed to reach after place and route: the target's, or less
where a pipelined loop's control (:meth:`approx_units.devices.DelayModel.loop_control`) or an
exit's logic after its condition (:attr:`~approx_units.devices.DelayModel.exit_logic`), which
no schedule shortens, is slower than its period, where a unit's slowest single operation is, or
where an operation is a multicycle path (:func:`multicycle_path_ns`: place and route, without
multicycle constraints, times it as one period); ``timing`` then says so.  ``flattened`` lists the loop lines
of a nest flattened into this one loop (outermost first; ``[]`` for any other
loop), and ``note`` then says what became of the code between its loops; the
text form heads such an entry ``loops 14 x 16 flattened: II = ...``.  ``nest`` is
``"flattened"`` for such a loop, and for a pipelined loop inside an outer loop
that was not flattened ``"inner runs overlapped"`` or ``"inner runs sequential:
<reason>"`` (the reason quoting source lines); ``null`` for any other loop.
Every pipelined loop inside another loop (a flattened nest inside one
included) has ``overlap_cycles``: how many cycles before its drain completes
each run lets the code after it and the next run start
(:mod:`hls.analysis.overlap`; 0 when sequential), and ``overlap_reason``: what
limits the overlap to that (in source lines; ``""`` when only the loop's depth does).  The text
form (:meth:`Report.to_text`) quotes the user's own lines, as Vitis HLS's
message 200-880 does for C.  ``dead_code`` (present when dead-code elimination removed
operators, :mod:`hls.ir.dead`) is ``{"operators", "lines"}``: the operators removed, counted as
``resources.operators`` counts those built, and the source lines they came from.
``zero_arrays`` (present when constant folding, :mod:`hls.ir.fold`, made reads of ``hls.local``
arrays the constant 0) maps each such array to ``{"banks", "written", "reads", "lines"}``:
``banks`` null when the whole array holds only 0, else the banks (elements, for an array held
in registers) that do; ``written`` false when no store writes them, true when every store does
with 0 (those stores removed); the number of reads that became 0 and their lines.  ``folded``
(present when it rewrote operators) is ``{"operators", "lines"}`` as ``dead_code`` is: the
operators replaced by a constant or by one of their operands, which build no logic.  An
``hls.local`` array with no access left has ``storage`` ``"none"`` and no ports in
``resources.arrays``; a partitioned one counts the ports of the banks built.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from dataclasses import dataclass, field

from .analysis.memdep import independence_proofs
from .backend.component import register_bits
from .ir.dead import dead_operations
from .ir.nodes import PipelinedLoop
from .ir.ops import operator_of

__all__ = ["Report", "CriticalPath", "build_report", "critical_path", "multicycle_path_ns"]


@dataclass
class Report:
    """The schedule report of one kernel; see the module documentation for the format."""

    data: dict
    source_lines: list[str]
    #: ``() -> (before, after)``: the kernel's register bits without and with the narrowing of
    #: :mod:`hls.analysis.registers`; elaborated (twice) only when the report is read.
    registers: object = field(default=None, compare=False, repr=False)

    def _fill_registers(self):
        resources = self.data["resources"]
        if self.registers is not None and "register_bits" not in resources:
            before, after = self.registers()
            resources["register_bits"] = {"before": before, "after": after}

    def to_json(self) -> dict:
        self._fill_registers()
        return copy.deepcopy(self.data)

    def _quote(self, line: int) -> str:
        if 1 <= line <= len(self.source_lines):
            return self.source_lines[line - 1].strip()
        return ""

    def to_text(self) -> str:
        self._fill_registers()
        data = self.data
        asked = f" (asked for {data['requested_clock_mhz']:g})" if "requested_clock_mhz" in data else ""
        out = [f"kernel {data['kernel']} at {data['clock_mhz']:g} MHz{asked}"]
        for loop in data["loops"]:
            trip = "run-time" if loop["trip_count"] is None else str(loop["trip_count"])
            head = f"  {loop['name']} (line {loop['line']}), trip count {trip}: "
            if not loop["pipelined"]:
                out.append(head + f"not pipelined ({loop['reason']})")
                continue
            schedule = (f"II = {loop['ii']} (MII {loop['mii']}: ResMII {loop['res_mii']}, "
                        f"RecMII {loop['rec_mii']}), depth {loop['depth']}")
            if loop.get("flattened"):
                out.append(f"  loops {' x '.join(map(str, loop['flattened']))} flattened: {schedule}")
                out.append(f"    one pipelined loop over every inner iteration of the nest; {loop['note']}; "
                           f"an empty inner run takes one iteration")
            else:
                out.append(head + "pipelined, " + schedule)
            if loop.get("overlap_cycles"):
                limit = f"; no more because {loop['overlap_reason']}" if loop.get("overlap_reason") else ""
                out.append(f"    inner runs overlapped: each run passes control on {loop['overlap_cycles']} cycle(s) "
                           f"before its last iteration completes, so the code after it and the next run "
                           f"start while it drains{limit}")
            elif loop.get("overlap_reason"):
                out.append(f"    inner runs sequential: {loop['overlap_reason']}")
            if loop.get("speculative"):
                out.append(f"    speculative: iterations start before the exit on line(s) "
                           f"{', '.join(map(str, loop['exit_lines']))} resolves; later ones are squashed")
            if loop.get("forwarded_loads"):
                out.append(f"    store-to-load forwarding for the read(s) on line(s) "
                           f"{', '.join(map(str, loop['forwarded_loads']))}")
            for proof in loop.get("independent", []):
                out.append(f"    no memory dependence: {proof}")
            if loop.get("target_ii") is not None and loop["target_ii"] < loop["mii"]:
                out.append(f"    target II {loop['target_ii']} is below the MII; using II {loop['ii']}")
            bound = loop["bound"]
            if bound["lines"]:
                out.append(f"    II bounded by {bound['kind']}: {bound['detail']}")
                for line in bound["lines"]:
                    out.append(f"      line {line}: {self._quote(line)}")
            else:
                out.append(f"    {bound['detail']}")
        for op_line in data.get("timing", []):
            out.append(f"  timing: {op_line}")
        path = data["critical_path"]
        out.append(f"  critical path: {path['budget_ns']:.2f} ns in the delay model's budget, "
                   f"{path['expected_ns']:.2f} ns expected after place and route: {path['through']}")
        for site in data.get("approx", []):
            where = f"line {site['line']}: `{site['text']}`"
            if site["dead"]:
                out.append(f"  approx: {where} -> {site['unit']} not built: dead code")
            elif site["replaced"]:
                latency = "" if site["latency"] is None else f", latency {site['latency']}"
                out.append(f"  approx: {where} -> {site['unit']} ({' x '.join(site['operands'])}{latency})")
            else:
                out.append(f"  approx: {where} kept exact: {site['exact_reason']}")
        for array, zero in data.get("zero_arrays", {}).items():
            partition = data["resources"]["arrays"][array]["partition"]
            out.append(f"  {_zero_array_text(array, zero, partition is not None and partition['kind'] == 'complete')}")
        if "folded" in data:
            out.append(f"  folded: {_operations_text(data['folded'])} (their values are constants, or an "
                       f"operand's: no logic built)")
        if "dead_code" in data:
            out.append(f"  dead code: removed {_operations_text(data['dead_code'])} (no result, array parameter, "
                       f"stream or control depends on them)")
        resources = data["resources"]
        operators = ", ".join(f"{kind} x{count}" for kind, count in sorted(resources["operators"].items()))
        out.append(f"  resources: {resources['variable_register_bits']} register bits in variables; "
                   f"operators: {operators or 'none'}")
        if "register_bits" in resources:
            bits = resources["register_bits"]
            out.append(f"  registers: {bits['before']} bits at declared shapes, {bits['after']} sized by "
                       f"their ranges ({bits['after'] - bits['before']:+d})")
        return "\n".join(out) + "\n"


def _operations_text(removed: dict) -> str:
    """``{"operators", "lines"}`` (the report's ``folded`` or ``dead_code``) in words."""
    kinds = ", ".join(f"{kind} x{count}" for kind, count in removed["operators"].items())
    return kinds + (f" on line(s) {', '.join(map(str, removed['lines']))}" if removed["lines"] else "")


def build_report(compiled) -> Report:
    """The report of a :class:`~hls.compiler.CompiledKernel`."""
    ir = compiled.ir
    pipelined = {node.info.name: node for node in ir.nodes if isinstance(node, PipelinedLoop)}
    loops = []
    for info in ir.loops:
        entry = {"name": info.name, "line": info.line, "pipelined": info.pipelined, "ii": None, "mii": None,
                 "res_mii": None, "rec_mii": None, "depth": None, "trip_count": info.trip_count,
                 "bound": None, "target_ii": info.target_ii, "flattened": list(info.flattened)}
        if info.flattened:
            entry["note"] = info.note
        node = pipelined.get(info.name)
        if node is None:
            entry["reason"] = info.reason or "not pipelined"
        else:
            scheduled = compiled.schedule_of(node.body)
            bound = scheduled.bound
            entry.update(ii=scheduled.ii, mii=bound.mii, res_mii=bound.res_mii, rec_mii=bound.rec_mii,
                         depth=scheduled.length,
                         bound={"kind": bound.kind, "lines": list(bound.lines), "detail": bound.detail},
                         speculative=node.speculative,
                         exit_lines=sorted({line for op in node.exit_ops for line in op.lines}),
                         forwarded_loads=sorted({line for op in node.body.ops if op.kind == "forward"
                                                 for line in op.lines}),
                         independent=independence_proofs(node))
        overlap = compiled.overlaps.get(info.name) if node is not None else None
        if info.flattened:
            entry["nest"] = "flattened"
        else:
            entry["nest"] = None if overlap is None else overlap.status
        if overlap is not None:
            # A flattened nest inside an outer loop that is not flattened has runs of its own.
            entry["overlap_cycles"] = overlap.cycles
            entry["overlap_reason"] = overlap.reason
        loops.append(entry)
    operators = Counter()
    timing = []
    claimed = compiled.target.clock_mhz
    model = compiled.target.delay_model
    for node in ir.nodes:
        if not isinstance(node, PipelinedLoop):
            continue
        counter = node.counter_shape.width if node.kind == "for" else 0
        bound = ir.variables[node.stop_var].width if node.kind == "for" else 0
        length = max(1, compiled.schedule_of(node.body).length)
        reach = model.loop_control_fmax(counter, bound, length)
        if reach < compiled.target.clock_mhz:
            claimed = min(claimed, reach)
            timing.append(f"the control of the loop on line {node.info.line} (its counter's comparison with "
                          f"the bound, then the issue and stop logic: "
                          f"{model.loop_control(counter, bound, length):.1f} ns) is slower than one clock "
                          f"period: the kernel is claimed to reach {reach:.0f} MHz, not "
                          f"{compiled.target.clock_mhz:g}")
        if node.exit_ops and model.exit_logic > compiled.target.usable_period_ns + 1e-9:
            # The exit's fire, squash and stop alone, its condition taken from a register.
            reach = 1000.0 / (model.register_setup + model.exit_logic)
            claimed = min(claimed, reach)
            timing.append(f"the exit logic of the loop on line {node.info.line} (an exit's fire, the squash "
                          f"and the stop into the loop's control: {model.exit_logic:.2f} ns after its "
                          f"condition) is slower than one clock period: the kernel is claimed to reach "
                          f"{reach:.0f} MHz, not {compiled.target.clock_mhz:g}")
    for scheduled in compiled.schedules.values():
        operators.update(filter(None, map(_operator_name, scheduled.problem.ops.values())))
        for op in scheduled.problem.slow_ops:
            optype = scheduled.problem.problem.operator_type_of(op.name)
            where = f"`{op.text}` on line {','.join(map(str, op.lines))}"
            entry = operator_of(op.kind)
            target = compiled.target
            unit = (entry.timing_of(target.delay_model, target.usable_period_ns, op, shared=optype.limit is not None)
                    if entry.has_unit else None)
            if unit is not None and unit.description:
                timing.append(f"{where} is slower than one clock period: {optype.description or unit.description}, "
                              f"latency {optype.latency} cycles, a new operation every cycle")
                if unit.slowest > target.usable_period_ns + 1e-9:
                    reach = 1000.0 / (unit.slowest + target.delay_model.register_setup)
                    claimed = min(claimed, reach)
                    timing.append(f"{where}: the unit's slowest single operation takes {unit.slowest:.2f} ns, "
                                  f"more than the {target.usable_period_ns:.2f} ns the clock leaves to logic: "
                                  f"the kernel is claimed to reach {reach:.0f} MHz, not {target.clock_mhz:g}")
            elif entry.pipelined is not None:
                timing.append(f"{where} is slower than one clock period: {entry.pipelined_description} "
                              f"over {optype.latency} cycles")
            else:
                # No register inside: place and route, without multicycle constraints, times the whole
                # path (from the register before the operation's cycle) as one clock period.
                path = multicycle_path_ns(scheduled, op.name, target.usable_period_ns)
                reach = 1000.0 / (path + target.delay_model.register_setup)
                claimed = min(claimed, reach)
                timing.append(f"{where} is slower than one clock period: given {optype.latency} cycles "
                              f"of latency as a multicycle path (not pipelined), {path:.2f} ns of logic "
                              f"that place and route times as one period: the kernel is claimed to reach "
                              f"{reach:.0f} MHz, not {target.clock_mhz:g}")
    data = {
        "kernel": ir.name,
        "clock_mhz": compiled.target.clock_mhz,
        # Rounded down: a claim is a clock that place and route must reach.
        "claimed_clock_mhz": math.floor(claimed * 10 + 1e-9) / 10,
        "loops": loops,
        "resources": {
            "variable_register_bits": sum(shape.width for shape in ir.variables.values()),
            "operators": dict(sorted(operators.items())),
            "arrays": {name: _array_resources(ir, name) for name in (ir.layouts or ir.arrays)},
            "limits": dict(compiled.target.resources),
        },
        "compile_seconds": round(compiled.compile_seconds, 4),
    }
    if timing:
        data["timing"] = timing
    path = critical_path(compiled)
    data["critical_path"] = {"budget_ns": round(path.budget_ns, 2), "expected_ns": round(path.expected_ns, 2),
                             "through": path.through}
    dead = [op for op in ir.removed if _operator_name(op) is not None]
    if dead:
        data["dead_code"] = {"operators": dict(sorted(Counter(map(_operator_name, dead)).items())),
                             "lines": sorted({line for op in dead for line in op.lines})}
    if ir.zero_arrays:
        data["zero_arrays"] = {array: {"banks": zero.banks, "written": zero.written, "reads": zero.reads,
                                       "lines": zero.lines}
                               for array, zero in sorted(ir.zero_arrays.items())}
    folded = [op for op in ir.folded if _operator_name(op) is not None]
    if folded:
        data["folded"] = {"operators": dict(sorted(Counter(map(_operator_name, folded)).items())),
                          "lines": sorted({line for op in folded for line in op.lines})}
    if compiled.approximations:
        data["approx"] = _approx_sites(compiled)
    return Report(data, ir.source_lines, registers=lambda: _register_bits(compiled))


def _operator_name(op) -> str | None:
    """How ``resources.operators`` counts ``op``: its kind, an array access's with the array
    (``load:a``); ``None`` for what builds no operator (wires, variable registers)."""
    category = operator_of(op.kind).category
    if category in ("wire", "register"):
        return None
    return f"{op.kind}:{op.attrs['array']}" if category == "memory" else op.kind


@dataclass(frozen=True)
class CriticalPath:
    """The delay model's longest register-to-register path through a compiled kernel.

    Attributes
    ----------
    budget_ns : float
        Its modelled delay, register setup included: the sum of the constants the scheduler
        chained operations on and the claims are made from.
    expected_ns : float
        What place and route is expected to give it
        (:meth:`approx_units.devices.DelayModel.expected_path` of the budget).
    through : str
        The path in words: a chain of operations in one cycle (each ``text (kind) ns``, the ns at
        which its result is ready, joined by ``>``), a unit's segment, a multicycle path or a
        loop's control.
    """

    budget_ns: float
    expected_ns: float
    through: str


def critical_path(compiled) -> CriticalPath:
    """The longest register-to-register path of ``compiled`` (a
    :class:`~hls.compiler.CompiledKernel`) in its target's delay model: ``register_setup`` plus
    the longest of every operation's chained end in its cycle (``start_in_cycle +
    incoming_delay``), every registered unit's last segment (``outgoing_delay``), every pipelined
    unit's slowest segment, every multicycle path whole (:func:`multicycle_path_ns`: place and
    route times it as one period) and every pipelined loop's control
    (:meth:`~approx_units.devices.DelayModel.loop_control`)."""
    target = compiled.target
    model = target.delay_model
    longest, what = 0.0, "nothing"

    def consider(ns, describe):
        nonlocal longest, what
        if ns > longest:
            longest, what = ns, describe()

    for scheduled in compiled.schedules.values():
        problem, schedule = scheduled.problem.problem, scheduled.schedule
        for name in problem.operations:
            optype = problem.operator_type_of(name)
            consider(schedule.offset(name) + optype.incoming_delay, lambda: _chain(scheduled, name))
            consider(optype.outgoing_delay, lambda: f"{_label(scheduled, name)}: its registered output's last segment")
        for op in scheduled.problem.slow_ops:
            entry = operator_of(op.kind)
            shared = problem.operator_type_of(op.name).limit is not None
            timing = entry.timing_of(model, target.usable_period_ns, op, shared=shared) if entry.has_unit else None
            if timing is not None and timing.description:
                consider(timing.slowest, lambda: f"{_label(scheduled, op.name)}: the unit's slowest segment")
            elif entry.pipelined is None:
                consider(multicycle_path_ns(scheduled, op.name, target.usable_period_ns),
                         lambda: f"{_label(scheduled, op.name)}: a multicycle path, whole")
    ir = compiled.ir
    for node in ir.nodes:
        if isinstance(node, PipelinedLoop):
            counter = node.counter_shape.width if node.kind == "for" else 0
            bound = ir.variables[node.stop_var].width if node.kind == "for" else 0
            consider(model.loop_control(counter, bound, max(1, compiled.schedule_of(node.body).length)),
                     lambda: f"the control of the loop on line {node.info.line}")
    budget = model.register_setup + longest
    return CriticalPath(budget, model.expected_path(budget), what)


def _label(scheduled, name: str) -> str:
    op = scheduled.problem.ops.get(name)
    return f"{op.text or op.kind} ({op.kind})" if op is not None else name


def _chain(scheduled, name: str) -> str:
    """The operations chained in one cycle into ``name``'s end, first to last."""
    problem, schedule = scheduled.problem.problem, scheduled.schedule
    steps, current, seen = [], name, set()
    # Operations of no delay (wires, carries) are ready where they start, so a carried
    # dependence between two of them can lead back: each operation is named once.
    while current is not None and current not in seen:
        seen.add(current)
        optype = problem.operator_type_of(current)
        # The last operation's end into its register; each before it, where its result is ready.
        at = schedule.offset(current) + optype.incoming_delay if not steps else schedule.ready(problem, current)[1]
        steps.append(f"{_label(scheduled, current)} {at:.2f}")
        current = _chained_on(problem, schedule, current)
    return " > ".join(reversed(steps))


def _chained_on(problem, schedule, name: str) -> str | None:
    """The operation whose result ``name`` chains on in its cycle, the latest ready, or ``None``."""
    offset, chosen, latest = schedule.offset(name), None, 0.0
    if offset <= 1e-9:
        return None
    for dependence in problem.predecessors(name):
        cycle, ready = schedule.ready(problem, dependence.src)
        if cycle == schedule.start[name] + dependence.distance * schedule.ii and ready + 1e-9 >= latest \
                and ready + dependence.route_delay <= offset + 1e-9:
            chosen, latest = dependence.src, ready
    return chosen


def multicycle_path_ns(scheduled, name: str, usable_period: float) -> float:
    """ns of logic on the register-to-register path through multicycle operation ``name`` of
    ``scheduled`` (a block's schedule): what is chained before it in its first cycle, then its
    whole delay (:func:`hls.ir.ops._multicycle_timing` leaves the remainder after ``latency - 1``
    full periods in ``incoming_delay``)."""
    optype = scheduled.problem.problem.operator_type_of(name)
    return (scheduled.schedule.offset(name) + (optype.latency - 1) * usable_period + optype.incoming_delay)


def _register_bits(compiled) -> tuple[int, int]:
    """The register bits of ``compiled``'s hardware at declared shapes and as built."""
    declared = copy.copy(compiled)
    declared.narrowing = False
    before = register_bits(declared)["bits"]
    return before, (register_bits(compiled)["bits"] if compiled.narrowing else before)


def _approx_sites(compiled) -> list[dict]:
    """The report's ``approx`` list: each site with the latency its unit was scheduled with."""
    latency = {}
    for scheduled in compiled.schedules.values():
        for op in scheduled.problem.ops.values():
            if operator_of(op.kind).unit is not None:
                key = (tuple(op.lines), op.text)
                latency[key] = max(latency.get(key, 0), scheduled.problem.problem.operator_type_of(op.name).latency)
    dead = dead_operations(compiled.ir)
    sites = []
    for site in compiled.approximations:
        entry = site.to_json()
        here = site.filename == compiled.ir.filename
        entry["latency"] = latency.get(((site.lineno,), site.text)) if here else None
        # Every copy of it dead code (hls.ir.dead): no unit is built for it.
        entry["dead"] = site.key in dead
        sites.append(entry)
    return sites


def _zero_array_text(array: str, zero: dict, registers: bool) -> str:
    """The report's sentence on a local array whose reads became 0 (``zero_arrays``); ``registers``:
    the array is held in registers, its banks are its elements."""
    what = "is written only with 0" if zero["written"] else "is never written"
    if zero["banks"] is None:
        subject, reads = f"`{array}`", "its reads are 0"
    else:
        parts = "elements" if registers else "banks"
        numbers = ", ".join(map(str, zero["banks"]))
        plural = len(zero["banks"]) > 1
        subject = f"`{array}` {parts if plural else parts[:-1]} {numbers}"
        what = what.replace("is ", "are ", 1) if plural else what
        reads = "their reads are 0" if plural else "its reads are 0"
    lines = ", ".join(map(str, zero["lines"]))
    return f"{subject} {what}: {reads} ({zero['reads']} read(s) on line(s) {lines} folded)"


def _array_resources(ir, name: str) -> dict:
    """An array's element, depth, banks and where it lives: ``ports`` (a parameter, memories
    outside the component), ``memory`` (an hls.local Memory per bank), ``registers``, or
    ``none`` (an hls.local array with no access left: nothing is built)."""
    layout = ir.layout(name)
    built = len(ir.built_banks(name))
    ports = 0 if layout.registers else built
    storage = "none" if not built else "registers" if layout.registers else "memory" if layout.local else "ports"
    return {"width": layout.shape.width, "signed": layout.shape.signed, "depth": layout.depth,
            "read_ports": ports, "write_ports": ports, "banks": layout.banks,
            "partition": None if layout.partition is None else
            {"kind": layout.partition.kind, "factor": layout.partition.factor},
            "storage": storage}
