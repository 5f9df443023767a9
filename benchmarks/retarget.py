"""A clock target a kernel cannot reach: is the design the compiler builds instead the fastest?

For every benchmark kernel and each clock asked for (default 150, 200 and 250 MHz) that the
kernel cannot reach, compares the design ``compile_kernel`` returns (it searches lower clocks,
:func:`hls.compiler._fastest_reachable`) with every design built, without that search, for a
grid of clocks from 50 MHz up to the one asked for (``--step`` MHz apart) that reaches its own
clock.  Speed is microseconds per pass (:func:`hls.compiler.cycles_per_pass` at the claimed
clock).  Prints one row a case and how many cases the search matches or beats the grid's best::

    python benchmarks/retarget.py [--clocks 150,200,250] [--step 2] [--kernels vsum,fir]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.kernels import KERNEL_NAMES, load  # noqa: E402
from hls.compiler import compile_kernel, cycles_per_pass  # noqa: E402


def _microseconds(compiled) -> float:
    return cycles_per_pass(compiled) / compiled.report.to_json()["claimed_clock_mhz"]


def _reaches(compiled) -> bool:
    return compiled.report.to_json()["claimed_clock_mhz"] >= compiled.target.clock_mhz


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clocks", default="150,200,250", help="clocks asked for, MHz (default 150,200,250)")
    parser.add_argument("--step", type=float, default=2.0, help="grid spacing in MHz (default 2, above 0)")
    parser.add_argument("--kernels", default=",".join(KERNEL_NAMES), help="benchmark kernels (default: all)")
    args = parser.parse_args(argv)
    if not args.step > 0:
        parser.error(f"--step must be above 0 MHz, not {args.step:g}")
    try:
        clocks = [float(clock) for clock in args.clocks.split(",")]
    except ValueError:
        parser.error(f"--clocks takes comma-separated MHz such as 150,200, not {args.clocks!r}")
    names = args.kernels.split(",")
    unknown = [name for name in names if name not in KERNEL_NAMES]
    if unknown:
        parser.error(f"--kernels: no benchmark kernel {unknown[0]!r} (allowed: {', '.join(KERNEL_NAMES)})")
    matched = cases = 0
    print(f"{'kernel':22} {'asked':>6} {'built':>6} {'us/pass':>8} {'grid best':>9} {'at':>6}  verdict")
    for name in names:
        kernel = load(name)[0]
        grid = {}
        for asked in clocks:
            target = kernel.target.replace(clock_mhz=asked)
            if _reaches(compile_kernel(kernel, target=target, retarget=False)):
                continue
            clock = 50.0
            while clock < asked:
                if clock not in grid:
                    grid[clock] = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=clock), retarget=False)
                clock = round(clock + args.step, 6)
            reachable = [design for mhz, design in grid.items() if mhz < asked and _reaches(design)]
            best = min(reachable, key=_microseconds)
            built = compile_kernel(kernel, target=target)
            ok = _microseconds(built) <= _microseconds(best) + 1e-9
            cases += 1
            matched += ok
            print(f"{name:22} {asked:6g} {built.target.clock_mhz:6g} {_microseconds(built):8.4f} "
                  f"{_microseconds(best):9.4f} {best.target.clock_mhz:6g}  "
                  f"{'no slower' if ok else 'SLOWER by %.1f %%' % (100 * (_microseconds(built) / _microseconds(best) - 1))}")
    print(f"{matched} of {cases} unreachable targets give a design no slower than the fastest reachable grid clock")
    return 0


if __name__ == "__main__":
    sys.exit(main())
