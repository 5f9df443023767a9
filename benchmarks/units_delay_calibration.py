"""Calibrate :func:`approx_units.dataflow.node_delay` against nextpnr-ecp5 (prints numbers).

    .venv/bin/python benchmarks/units_delay_calibration.py [--only OP ...]

Each data point is one operation of the dataflow layer, alone between the
registers of :func:`approx_units.synth.timing_wrapper`, synthesised and
placed and routed exactly like a unit (``synth_ecp5 -nodsp -nobram -nolutram
-nowidelut``; ``nextpnr-ecp5 --25k --package CABGA256 --seed 1``).  Its
register-to-register path minus that of a bare wire (the clock-to-out,
routing and setup every path pays) is the operation's delay.  The delay of
one LUT level is that of a 16-bit two-input multiplexer (one LUT4 per bit).

The script prints every measurement in ns and in LUT levels, then the
constants of ``dataflow._DELAY`` fitted to them (least squares on the
width or depth that each operation's cost grows with).  Results are cached by
netlist hash like every other synthesis, so a re-run only re-measures what
changed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from approx_units import synth
from approx_units.amaranth_backend import UnitComponent, UnitSignature
from approx_units.dataflow import Ops


def _component(build, a_width, b_width):
    ops = Ops()
    a, b = ops.input("a", a_width), ops.input("b", b_width)
    ops.graph.output = ops._as_node(build(ops, a, b))
    signature = UnitSignature(a_width, b_width, ops.graph.output.width, pipelined=False)
    return UnitComponent(ops.graph, signature, stages=0)


def _table(index_bits, width, seed=1):
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.integers(0, 1 << width, 1 << index_bits)]


#: (op, size, a width, b width, description); ``size`` is what the delay grows with.
POINTS = [
    ("wire", 0, 16, 1, lambda o, a, b: a),
    *[("mux", w, w + 1, w, lambda o, a, b: o.mux(o.bit(a, 0), o.slice(a, 1, a.width), b))
      for w in (1, 4, 16, 64)],
    ("and", 16, 16, 16, lambda o, a, b: o.and_(a, b)),
    *[("add", w, w, w, lambda o, a, b: o.add(a, b)) for w in (8, 16, 32, 64)],
    *[("sub", w, w, w, lambda o, a, b: o.sub(a, b, width=w)) for w in (16, 64)],
    *[("lt", w, w, w, lambda o, a, b: o.lt(a, b)) for w in (8, 32)],
    *[("eq", w, w, 1, lambda o, a, b: o.is_zero(a)) for w in (8, 32)],
    *[("lod", w, w, 1, lambda o, a, b: o.lod(a)) for w in (8, 16, 32)],
    *[("lookup", k, k, 1, (lambda k: lambda o, a, b: o.lookup(a, _table(k, 8), 8))(k))
      for k in (4, 6, 8)],
    *[("shl", k, 32, k, lambda o, a, b: o.shl(a, b, width=32)) for k in (1, 2, 3, 5)],
    ("shr", 6, 64, 6, lambda o, a, b: o.shr(a, b)),
    *[("mul", w, w, w, lambda o, a, b: o.mul(a, b)) for w in (4, 6, 8)],
]


def measure(points, verbose=True):
    """``{(op, size): critical path in ns}`` of each point."""
    results = {}
    for op, size, a_width, b_width, build in points:
        module = f"calib_{op}_{size}"
        started = time.perf_counter()
        verilog = synth.unit_verilog(_Unit(_component(build, a_width, b_width)), module)
        report = synth.synthesize_verilog(verilog, module, "ecp5")
        results[op, size] = report.critical_path_ns
        if verbose:
            print(f"  {op:>6} {size:>3}: {report.critical_path_ns:6.2f} ns  {report.luts:>4} LUT4 "
                  f"{report.carry:>3} CCU2C  ({time.perf_counter() - started:.0f} s)", flush=True)
    return results


class _Unit:
    """Just enough of :class:`approx_units.Unit` for :func:`synth.unit_verilog`."""

    def __init__(self, component):
        self._component = component

    def component(self):
        return self._component


def _fit(xs, ys):
    """Least-squares ``y = c0 + c1 * x``; ``(c0, c1)``."""
    slope, intercept = np.polyfit(np.asarray(xs, float), np.asarray(ys, float), 1)
    return float(intercept), float(slope)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=None, help="measure only these operations (and the wire)")
    args = parser.parse_args()
    points = [p for p in POINTS if args.only is None or p[0] in ("wire", "mux", *args.only)]
    print("ECP5 LFE5U-25F speed 6, register to register through one operation:")
    ns = measure(points)
    base = ns["wire", 0]
    level = ns["mux", 16] - base
    print(f"wire {base:.2f} ns; one LUT level (16-bit mux) {level:.2f} ns")
    levels = {key: (value - base) / level for key, value in ns.items() if key[0] != "wire"}
    print("operation delays in LUT levels:")
    for (op, size), value in levels.items():
        print(f"  {op:>6} {size:>3}: {value:5.2f}")

    def series(*ops):
        pairs = sorted((size, value) for (op, size), value in levels.items() if op in ops)
        return [s for s, _ in pairs], [v for _, v in pairs]

    print("fitted constants (dataflow._DELAY):")
    if len(series("add", "sub", "lt")[0]) >= 2:
        c0, c1 = _fit(*series("add", "sub", "lt"))
        print(f"  carry chain: {c0:.2f} + {c1:.4f} per bit")
    if len(series("shl", "shr")[0]) >= 2:
        c0, c1 = _fit(*series("shl", "shr"))
        print(f"  shifter: {c0:.2f} + {c1:.2f} per amount bit")
    if len(series("lookup")[0]) >= 2:
        c0, c1 = _fit(*series("lookup"))
        print(f"  lookup: {c0:.2f} + {c1:.2f} per index bit")
    if len(series("lod")[0]) >= 2:
        sizes, values = series("lod")
        c0, c1 = _fit(np.log2(sizes), values)
        print(f"  lod: {c0:.2f} + {c1:.2f} per log2(width)")
    if len(series("eq")[0]) >= 2:
        sizes, values = series("eq")
        c0, c1 = _fit(np.log2(sizes), values)
        print(f"  eq: {c0:.2f} + {c1:.2f} per log2(width)")


if __name__ == "__main__":
    main()
