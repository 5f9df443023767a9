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
"""

import argparse
import time

import approx_units
from approx_units import catalog, synth
from approx_units import evaluate as ev


def measure(name, width, stages, target="ecp5"):
    unit = approx_units.get(name, width=width, stages=stages)
    module = catalog.module_name(unit)
    started = time.perf_counter()
    report = synth.synthesize_verilog(synth.unit_verilog(unit, module), module, target)
    seconds = time.perf_counter() - started
    fmax = f"{report.fmax_mhz:.1f} MHz" if report.fmax_mhz else "n/a"
    print(f"  {module:<26} {report.luts:>6} LUT4 {report.carry:>4} CCU2C {report.ffs:>5} FF  Fmax {fmax:>10}"
          f"  ({seconds:.1f} s{', cached' if seconds < 1 else ''})")
    return unit, report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--exhaustive", action="store_true", help="MRED over all 2^32 pairs (minutes)")
    args = parser.parse_args()

    print(f"ECP5, {synth.TARGETS['ecp5'].synth}; nextpnr-ecp5 --25k --seed 1 with registered I/O:")
    _, exact16 = measure("exact_mul", 16, 0)
    plain16_unit, plain16 = measure("mitchell", 16, 0)
    refined16_unit, refined16 = measure("mitchell_refined", 16, 0)
    _, exact32 = measure("exact_mul", 32, 0)
    _, refined32 = measure("mitchell_refined", 32, 4)

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
    speedup = refined32.fmax_mhz / exact32.fmax_mhz
    print(f"Target 2: 4-stage refined Mitchell 32-bit Fmax / combinational exact 32-bit Fmax = "
          f"{refined32.fmax_mhz:.1f}/{exact32.fmax_mhz:.1f} = {speedup:.2f}x (target >= 3x, RAPID 3.3x): "
          f"{'met' if speedup >= 3 else 'NOT met'}")


if __name__ == "__main__":
    main()
