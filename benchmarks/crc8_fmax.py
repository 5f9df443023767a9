"""The unrolled CRC-8 byte step (issue 20's delay-estimate target: II 1), placed and routed.

    .venv/bin/python benchmarks/crc8_fmax.py [--device ecp5|ice40] [--clocks 100,150] [--seeds 1,2,3]

Compiles ``benchmarks/crc8_step.py`` for each clock on the device, prints the
report's II and claimed clock and nextpnr's Fmax per seed (in the fold wrapper,
:func:`approx_units.synth.synthesize_kernel_seeds`, cached), and whether the median reaches
the claim.  Exit status 1 when the II is not 1 or a claim is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for entry in (ROOT, os.path.join(ROOT, "benchmarks")):
    if entry not in sys.path:
        sys.path.insert(0, entry)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("ecp5", "ice40"), default="ecp5")
    parser.add_argument("--clocks", default="100,150", help="MHz, comma-separated (default 100,150)")
    parser.add_argument("--seeds", default="1", help="nextpnr seeds, comma-separated (default 1)")
    options = parser.parse_args(argv)
    try:
        clocks = [float(part) for part in options.clocks.split(",")]
        seeds = [int(part) for part in options.seeds.split(",")]
    except ValueError:
        parser.error(f"--clocks and --seeds take comma-separated numbers, not {options.clocks!r}, {options.seeds!r}")
    import hls
    from approx_units.synth import synthesize_kernel_seeds
    from crc8_step import crc8_step
    from hls.compiler import compile_kernel
    ok = True
    for clock in clocks:
        compiled = compile_kernel(crc8_step, target=hls.Target(clock_mhz=clock, device=options.device))
        report = compiled.report.to_json()
        ii, claim = report["loops"][0]["ii"], report["claimed_clock_mhz"]
        fmax = [r.fmax_mhz for r in synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=clock,
                                                             seeds=seeds, target=options.device)]
        reached = statistics.median(fmax) >= claim
        ok &= reached and ii == 1
        print(f"crc8_step {options.device} for {clock:g} MHz: II {ii}, claim {claim:g} MHz, Fmax "
              f"{'/'.join(f'{f:.1f}' for f in fmax)}: {'reached' if reached else 'MISSED'}")
    print("target (II 1, every claim reached): " + ("met" if ok else "NOT met"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
