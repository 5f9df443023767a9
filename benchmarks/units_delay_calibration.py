"""Calibrate :func:`approx_units.dataflow.node_delay` against nextpnr (prints numbers).

    .venv/bin/python benchmarks/units_delay_calibration.py [--device ecp5|ice40] [--only OP ...]

Each data point is one operation of the dataflow layer, alone between the
registers of :func:`approx_units.synth.timing_wrapper`, synthesised and
placed and routed exactly like a unit (ECP5: ``synth_ecp5 -nodsp -nobram -nolutram
-nowidelut``, ``nextpnr-ecp5 --25k --package CABGA256 --seed 1``; iCE40: ``synth_ice40
-nobram``, ``nextpnr-ice40 --hx8k --package ct256 --seed 1``).  Its
register-to-register path minus that of a bare wire (the clock-to-out,
routing and setup every path pays) is the operation's delay.

The script prints every measurement beside the device model's estimate
(:func:`approx_units.dataflow.node_delay` over ``approx_units.devices.DEVICES[device]``),
then least-squares fits of the model's ``unit_*`` constants on the width, depth or fanout that each
operation's cost grows with.  The shifter's amount and the multiplexer's
select fanout are modelled apart from the data path through a level (see
:func:`approx_units.dataflow.operand_delays`), which is why their fits and
the model differ.  Results are cached by netlist hash like every other
synthesis, so a re-run only re-measures what changed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from approx_units import synth
from approx_units.amaranth_backend import UnitComponent, UnitSignature
from approx_units.dataflow import Ops, node_delay
from approx_units.devices import DEVICES


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


def measure(points, verbose=True, device="ecp5"):
    """``{(op, size): critical path in ns}`` of each point, placed and routed for ``device``."""
    results = {}
    for op, size, a_width, b_width, build in points:
        module = f"calib_{op}_{size}"
        started = time.perf_counter()
        verilog = synth.unit_verilog(_Unit(_component(build, a_width, b_width)), module)
        report = synth.synthesize_verilog(verilog, module, device)
        results[op, size] = report.critical_path_ns
        if verbose:
            print(f"  {op:>6} {size:>3}: {report.critical_path_ns:6.2f} ns  {report.luts:>4} LUT4 "
                  f"{report.carry:>3} carry  ({time.perf_counter() - started:.0f} s)", flush=True)
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
    parser.add_argument("--device", choices=("ecp5", "ice40"), default="ecp5")
    args = parser.parse_args()
    points = [p for p in POINTS if args.only is None or p[0] in ("wire", *args.only)]
    model = DEVICES.get(args.device)      # None before the device's first calibration
    print(f"{args.device}: register to register through one operation:")
    ns = measure(points, device=args.device)
    base = ns["wire", 0]
    delay = {key: value - base for key, value in ns.items() if key[0] != "wire"}
    print(f"a bare wire: {base:.2f} ns; operation delays (path minus wire) against the model:")
    for (op, size), value in delay.items():
        node = _model_node(op, size)
        print(f"  {op:>6} {size:>3}: {value:5.2f} ns   model {node_delay(node, model):5.2f} ns" if model else
              f"  {op:>6} {size:>3}: {value:5.2f} ns")

    def series(*ops):
        pairs = sorted((size, value) for (op, size), value in delay.items() if op in ops)
        return [s for s, _ in pairs], [v for _, v in pairs]

    print(f"least-squares fits (ns), the source of the {args.device} model's unit_* constants:")
    fits = [("carry chain (add, sub)", ("add", "sub"), lambda x: x, "per bit"),
            ("compare (lt)", ("lt",), lambda x: x, "per bit"),
            ("shifter", ("shl", "shr"), lambda x: x, "per level"),
            ("lookup", ("lookup",), lambda x: x, "per index bit"),
            ("lod", ("lod",), np.log2, "per log2(width)"),
            ("eq", ("eq",), np.log2, "per log2(width)"),
            ("mux", ("mux",), lambda x: np.log2(np.asarray(x) / 4).clip(0), "per log2(fanout / 4)"),
            ("mul", ("mul",), lambda x: x, "per bit")]
    for label, ops, transform, unit in fits:
        sizes, values = series(*ops)
        if len(set(sizes)) >= 2:
            c0, c1 = _fit(transform(sizes), values)
            print(f"  {label:<24} {c0:6.2f} + {c1:.3f} {unit}")


def _model_node(op, size):
    """The node of ``POINTS`` for ``(op, size)``, traced again, for its model delay."""
    for point_op, point_size, a_width, b_width, build in POINTS:
        if (point_op, point_size) == (op, size):
            ops = Ops()
            a, b = ops.input("a", a_width), ops.input("b", b_width)
            return ops._as_node(build(ops, a, b))
    raise KeyError((op, size))


if __name__ == "__main__":
    main()
