"""Fmax after place and route of loops with approximate units, pipelined to the clock (issue 12).

    python benchmarks/approx_fmax.py [--clock MHZ] [--seeds N] [--width W ...] [--kernels NAME ...] [--json]

Kernels (signed operands, one operation per iteration of ``for i in range(n)``):

* ``mixed``: a drum (k = 6) and a refined Mitchell multiply and a refined Mitchell
  divide (``hls.approx.*`` calls) in the same loop, the issue's check;
* ``drum``, ``mitchell_refined``, ``mitchell_div_refined``: one unit each, chosen per
  kernel with ``approx=`` (``q[i] = x[i] * y[i]`` or ``x[i] // y[i]``).

Each is compiled for the clock (its report's stages are the compiler's delay
estimate), and placed and routed as every kernel is
(:func:`approx_units.synth.synthesize_kernel_seeds`, through ``benchmarks/divide_fmax.py``:
the kernel mapped alone, its ports registered and folded into single pins, nextpnr-ecp5
``--25k``, seeds 1..N), so only internal register-to-register paths count.  Prints II, the units' stages, LUT4/FF and the
Fmax of each seed, and whether it closes the clock.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for path in (ROOT, os.path.join(ROOT, "benchmarks")):
    if path not in sys.path:
        sys.path.insert(0, path)

from divide_fmax import measure  # noqa: E402  (the fold wrapper and the place and route)

MIXED = """
import hls
from amaranth import signed, unsigned

@hls.kernel(clock_mhz={clock})
def mixed_s{w}(x: hls.Array[signed({w}), 16], y: hls.Array[signed({w}), 16], d: hls.Array[signed({w}), 16],
             p: hls.Array[signed({p}), 16], q: hls.Array[signed({q}), 16], n: unsigned(5)):
    for i in range(n):
        p[i] = hls.approx.mul(x[i], y[i], unit="drum", k=6) + hls.approx.mul(x[i], d[i], unit="mitchell_refined")
        q[i] = hls.approx.div(x[i], d[i], unit="mitchell_div_refined")
"""

ONE = """
import hls
from amaranth import signed, unsigned

@hls.kernel(clock_mhz={clock}, approx={{"{kind}": "{unit}"}})
def {unit}_s{w}(x: hls.Array[signed({w}), 16], y: hls.Array[signed({w}), 16], q: hls.Array[signed({q}), 16],
               n: unsigned(5)):
    for i in range(n):
        q[i] = x[i] {op} y[i]
"""

UNITS = {"drum": "mul", "mitchell_refined": "mul", "mitchell_div_refined": "div"}


def load(name: str, width: int, clock: float, directory: str):
    if name == "mixed":
        source = MIXED.format(clock=clock, w=width, p=2 * width + 1, q=width + 1)
        function = f"mixed_s{width}"
    else:
        kind = UNITS[name]
        source = ONE.format(clock=clock, kind=kind, unit=name, w=width, op="*" if kind == "mul" else "//",
                            q=2 * width if kind == "mul" else width + 1)
        function = f"{name}_s{width}"
    path = Path(directory, f"{function}.py")
    path.write_text(textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(function, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, function)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clock", type=float, default=100.0)
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--width", type=int, nargs="*", default=[16])
    parser.add_argument("--kernels", nargs="*", default=["mixed", *UNITS], choices=["mixed", *UNITS])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="axhls-approx-kernels-") as directory:
        for width in args.width:
            for name in args.kernels:
                kernel = load(name, width, args.clock, directory)
                row = measure(kernel, args.clock, args.seeds)
                row["units"] = [f"line {site['line']}: {site['unit']} latency {site['latency']}"
                                for site in kernel.report().to_json().get("approx", [])]
                row["clock_mhz"] = args.clock
                rows.append(row)
                if not args.json:
                    fmax = ", ".join(f"{f:.1f}" for f in row["fmax_mhz"])
                    closes = "closes" if min(row["fmax_mhz"]) >= args.clock else "MISSES"
                    print(f"{row['kernel']:<26} II {row['ii']}  depth {row['depth']:<3} "
                          f"LUT4 {row['lut4']:<5} CCU2C {row['ccu2c']:<4} FF {row['ff']:<5} "
                          f"Fmax {fmax} MHz: {closes} {args.clock:g} MHz", flush=True)
                    for unit in row["units"]:
                        print(f"    {unit}", flush=True)
    if args.json:
        print(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
