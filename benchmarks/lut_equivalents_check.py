"""Compare ``lut_equivalents`` with nextpnr's own utilisation report (prints a table).

    nice -n 19 .venv/bin/python benchmarks/lut_equivalents_check.py [--targets ecp5,ice40]

For a few combinational catalog entries, the unit alone is synthesised
(``approx_units.synth``) and placed by nextpnr without the timing wrapper.
Columns:

* ``LUT``, ``carry``, ``LUT-eq``: Yosys's cells and ``lut_equivalents``
  (ECP5: ``LUT4 + 2 x CCU2C``; iCE40: ``max(SB_LUT4, SB_CARRY)``);
* ECP5 ``pre-pack``: nextpnr's "Total LUT4s" before packing, which counts each
  CCU2C as two carry LUTs; ``COMB``: ``TRELLIS_COMB`` cells after packing, which
  adds the two constant drivers and the CCU2Cs nextpnr inserts to feed a carry
  chain in from, or out to, general routing;
* iCE40 ``LC``: ``ICESTORM_LC`` cells, which include two constant drivers and
  cells that legalise carry chains; ``carry-only``: logic cells holding an
  SB_CARRY without an SB_LUT4; ``LUT+carry-only``: the logic cells the unit's
  own LUTs and carries take, which ``LUT-eq`` bounds from below.
"""

import argparse
import time

import approx_units
from approx_units import catalog, synth

DESIGNS = [("exact_add", 8), ("exact_add", 16), ("exact_add", 32), ("trunc_add", 16), ("loa", 16),
           ("gear", 16), ("exact_mul", 8), ("mitchell", 8), ("drum", 8), ("iterlog", 8), ("exact_div", 8)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", default="ecp5,ice40")
    args = parser.parse_args()
    targets = [target for target in args.targets.split(",") if target]
    for target in targets:
        if target == "ecp5":
            print(f"{'module':<20} {'LUT':>5} {'carry':>5} {'LUT-eq':>6} {'pre-pack':>8} {'COMB':>5}  COMB - LUT-eq")
        else:
            print(f"{'module':<20} {'LUT':>5} {'carry':>5} {'LUT-eq':>6} {'LC':>5} {'carry-only':>10} "
                  f"{'LUT+carry-only':>14}")
        started = time.perf_counter()
        for name, width in DESIGNS:
            unit = approx_units.get(name, width=width)
            module = catalog.module_name(unit)
            verilog = synth.unit_verilog(unit, module)
            report = synth.synthesize_verilog(verilog, module, target, timing=False)
            placed = synth.placed_utilisation(verilog, module, target)
            if target == "ecp5":
                print(f"{module:<20} {report.luts:>5} {report.carry:>5} {report.lut_equivalents:>6} "
                      f"{placed['LUT4s before packing']:>8} {placed['TRELLIS_COMB']:>5}  "
                      f"{placed['TRELLIS_COMB'] - report.lut_equivalents:+d}", flush=True)
            else:
                print(f"{module:<20} {report.luts:>5} {report.carry:>5} {report.lut_equivalents:>6} "
                      f"{placed['ICESTORM_LC']:>5} {placed['carry-only LCs']:>10} "
                      f"{report.luts + placed['carry-only LCs']:>14}", flush=True)
        print(f"({target}: {time.perf_counter() - started:.0f} s)\n")


if __name__ == "__main__":
    main()
