"""Schedule reports: what II each loop reaches and which source lines bound it.

The JSON form (:meth:`Report.to_json`) is the contract of ``axhls report --json``::

    {"kernel", "clock_mhz",
     "loops": [{"name", "line", "pipelined", "ii", "mii", "res_mii", "rec_mii", "depth",
                "trip_count", "bound": {"kind", "lines", "detail"}, ...}],
     "resources": {...},
     "approx": [{"file", "line", "col", "text", "kind", "unit", "origin", "operands",
                 "replaced", "exact_reason", "latency"}]}

``bound.kind`` is ``resource``, ``recurrence``, ``memory`` or ``exit``; for a loop
that is not pipelined ``ii``/``mii``/``depth``/``bound`` are ``null`` and
``reason`` says why.  ``approx`` (present when ``hls.approx`` or ``approx=`` asked for units) lists every
operation a unit was asked for by its source line: ``origin`` is ``"kernel"`` or ``"call"``,
``replaced`` false (with ``exact_reason``) where ``approx=`` left it exact, ``latency``
the cycles of the unit as scheduled.  Pipelined loops also carry ``speculative`` (early exits
squash younger iterations), ``exit_lines`` and ``forwarded_loads`` (lines of
reads served by store-to-load forwarding).  The text form (:meth:`Report.to_text`) quotes the user's
own lines, as Vitis HLS's message 200-880 does for C.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass

from .ir.nodes import PipelinedLoop
from .ir.ops import operator_of

__all__ = ["Report", "build_report"]


@dataclass
class Report:
    """The schedule report of one kernel; see the module documentation for the format."""

    data: dict
    source_lines: list[str]

    def to_json(self) -> dict:
        return copy.deepcopy(self.data)

    def _quote(self, line: int) -> str:
        if 1 <= line <= len(self.source_lines):
            return self.source_lines[line - 1].strip()
        return ""

    def to_text(self) -> str:
        data = self.data
        out = [f"kernel {data['kernel']} at {data['clock_mhz']:g} MHz"]
        for loop in data["loops"]:
            trip = "run-time" if loop["trip_count"] is None else str(loop["trip_count"])
            head = f"  {loop['name']} (line {loop['line']}), trip count {trip}: "
            if not loop["pipelined"]:
                out.append(head + f"not pipelined ({loop['reason']})")
                continue
            out.append(head + f"pipelined, II = {loop['ii']} (MII {loop['mii']}: ResMII {loop['res_mii']}, "
                       f"RecMII {loop['rec_mii']}), depth {loop['depth']}")
            if loop.get("speculative"):
                out.append(f"    speculative: iterations start before the exit on line(s) "
                           f"{', '.join(map(str, loop['exit_lines']))} resolves; later ones are squashed")
            if loop.get("forwarded_loads"):
                out.append(f"    store-to-load forwarding for the read(s) on line(s) "
                           f"{', '.join(map(str, loop['forwarded_loads']))}")
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
        for site in data.get("approx", []):
            where = f"line {site['line']}: `{site['text']}`"
            if site["replaced"]:
                latency = "" if site["latency"] is None else f", latency {site['latency']}"
                out.append(f"  approx: {where} -> {site['unit']} ({' x '.join(site['operands'])}{latency})")
            else:
                out.append(f"  approx: {where} kept exact: {site['exact_reason']}")
        resources = data["resources"]
        operators = ", ".join(f"{kind} x{count}" for kind, count in sorted(resources["operators"].items()))
        out.append(f"  resources: {resources['variable_register_bits']} register bits in variables; "
                   f"operators: {operators or 'none'}")
        return "\n".join(out) + "\n"


def build_report(compiled) -> Report:
    """The report of a :class:`~hls.compiler.CompiledKernel`."""
    ir = compiled.ir
    pipelined = {node.info.name: node for node in ir.nodes if isinstance(node, PipelinedLoop)}
    loops = []
    for info in ir.loops:
        entry = {"name": info.name, "line": info.line, "pipelined": info.pipelined, "ii": None, "mii": None,
                 "res_mii": None, "rec_mii": None, "depth": None, "trip_count": info.trip_count,
                 "bound": None, "target_ii": info.target_ii}
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
                                                 for line in op.lines}))
        loops.append(entry)
    operators = Counter()
    timing = []
    for scheduled in compiled.schedules.values():
        for op in scheduled.problem.ops.values():
            if op.kind not in ("const", "live_in", "induction", "wrap", "commit"):
                operators[op.kind if op.kind not in ("load", "store") else f"{op.kind}:{op.attrs['array']}"] += 1
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
            elif not entry.has_unit and entry.pipelined is not None:
                timing.append(f"{where} is slower than one clock period: {entry.pipelined_description} "
                              f"over {optype.latency} cycles")
            else:
                timing.append(f"{where} is slower than one clock period: given {optype.latency} cycles "
                              f"of latency as a multicycle path (not pipelined)")
    data = {
        "kernel": ir.name,
        "clock_mhz": compiled.target.clock_mhz,
        "loops": loops,
        "resources": {
            "variable_register_bits": sum(shape.width for shape in ir.variables.values()),
            "operators": dict(sorted(operators.items())),
            "arrays": {name: {"width": shape.width, "signed": shape.signed, "depth": depth,
                              "read_ports": 1, "write_ports": 1}
                       for name, (shape, depth) in ir.arrays.items()},
            "limits": dict(compiled.target.resources),
        },
        "compile_seconds": round(compiled.compile_seconds, 4),
    }
    if timing:
        data["timing"] = timing
    if compiled.approximations:
        data["approx"] = _approx_sites(compiled)
    return Report(data, ir.source_lines)


def _approx_sites(compiled) -> list[dict]:
    """The report's ``approx`` list: each site with the latency its unit was scheduled with."""
    latency = {}
    for scheduled in compiled.schedules.values():
        for op in scheduled.problem.ops.values():
            if operator_of(op.kind).unit is not None:
                key = (tuple(op.lines), op.text)
                latency[key] = max(latency.get(key, 0), scheduled.problem.problem.operator_type_of(op.name).latency)
    sites = []
    for site in compiled.approximations:
        entry = site.to_json()
        entry["latency"] = latency.get(((site.lineno,), site.text)) if site.filename == compiled.ir.filename \
            else None
        sites.append(entry)
    return sites
