"""Fmax after place and route of kernels that divide by a variable in every iteration (issue 12).

    python benchmarks/divide_fmax.py [--clock MHZ] [--seeds N] [--width W ...] [--op // %] [--divisor SHAPE]

For each operand width (8, 16, 32 bits, signed) and operator (``//``, ``%``) a
kernel ``for i in range(n): q[i] = x[i] OP d[i]`` is compiled for the clock and
placed and routed as every kernel is (:func:`approx_units.synth.synthesize_kernel_seeds`:
``synth_ecp5 -nodsp -nobram -nolutram -nowidelut`` of the kernel alone, its mapped netlist
inside :func:`approx_units.synth.fold_wrapper`, nextpnr-ecp5 ``--25k --package CABGA256
--freq MHZ``, seeds 1..N, cached).

The kernel has more port bits than the package has pins, so, as the design notes
say, every input port is driven from a shift register fed by one pin, and the
registered outputs are folded through a registered XOR tree into one pin: only
register-to-register paths inside the kernel (and the equally short shift and
fold paths) remain.  Prints, per kernel, II, the divider's stages, the kernel's LUT4/FF
and the Fmax of each seed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

KERNEL = """
import hls
from amaranth import signed, unsigned

@hls.kernel(clock_mhz={clock})
def {name}(x: hls.Array[signed({w}), 16], d: hls.Array[{d}, 16], q: hls.Array[signed({q}), 16],
           n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] {op} d[i]
"""


def load_kernel(width: int, op: str, clock: float, directory: str, divisor: str = ""):
    """``q[i] = x[i] OP d[i]`` with ``x`` signed(width) and ``d`` signed(width), or ``divisor``
    (an Amaranth shape, e.g. ``unsigned(8)``: the issue's kernel)."""
    name = f"{'floordiv' if op == '//' else 'mod'}_s{width}" + (f"_{divisor[0]}{divisor.split('(')[1][:-1]}"
                                                                  if divisor else "")
    unsigned_divisor = divisor.startswith("unsigned")
    q = (width + (0 if unsigned_divisor else 1)) if op == "//" else (width + 1 if unsigned_divisor else width)
    source = KERNEL.format(clock=clock, name=name, w=width, d=divisor or f"signed({width})", q=q, op=op)
    path = Path(directory, f"{name}.py")
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def measure(kernel, clock: float, seeds: int) -> dict:
    """II, depth, the divider's stages, the kernel's LUT4/CCU2C/FF and its Fmax at seeds 1 .. ``seeds``
    (:func:`approx_units.synth.synthesize_kernel_seeds`, cached)."""
    from approx_units.synth import synthesize_kernel_seeds
    from hls.compiler import compile_kernel

    compiled = compile_kernel(kernel)
    (loop,) = compiled.report.to_json()["loops"]
    timing = " ".join(compiled.report.to_json().get("timing", []))
    stages = re.search(r"pipelined in (\d+) stage", timing)
    placed = synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=clock,
                                     seeds=range(1, seeds + 1))
    return {"kernel": compiled.ir.name, "ii": loop["ii"], "depth": loop["depth"],
            "stages": int(stages.group(1)) if stages else None,
            "lut4": placed[0].luts, "ccu2c": placed[0].carry, "ff": placed[0].ffs,
            "fmax_mhz": [report.fmax_mhz for report in placed]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clock", type=float, default=100.0)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--width", type=int, nargs="*", default=[8, 16, 32])
    parser.add_argument("--op", nargs="*", default=["//", "%"])
    parser.add_argument("--divisor", default="", help="divisor shape instead of signed(W), e.g. 'unsigned(8)'")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="axhls-divide-kernels-") as directory:
        for width in args.width:
            for op in args.op:
                row = measure(load_kernel(width, op, args.clock, directory, args.divisor), args.clock, args.seeds)
                row["clock_mhz"] = args.clock
                rows.append(row)
                if not args.json:
                    fmax = ", ".join(f"{f:.1f}" for f in row["fmax_mhz"])
                    closes = "closes" if min(row["fmax_mhz"]) >= args.clock else "MISSES"
                    print(f"{row['kernel']:<12} II {row['ii']}  depth {row['depth']:<3} stages {row['stages']:<3} "
                          f"LUT4 {row['lut4']:<5} CCU2C {row['ccu2c']:<4} FF {row['ff']:<5} "
                          f"Fmax {fmax} MHz: {closes} {args.clock:g} MHz", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
