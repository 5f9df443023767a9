"""Measure the compiler's operators one at a time between registers, beside the delay model.

    .venv/bin/python -m benchmarks.delay_calibration.operators --device ice40 [--fit]

Each point is one IR operator (its Amaranth lowering, :func:`hls.ir.build.amaranth_value`)
between the registered inputs and outputs of :func:`approx_units.synth.timing_wrapper`,
synthesised and placed and routed as a unit is (:data:`approx_units.synth.TARGETS`: ECP5
``--25k --package CABGA256``, iCE40 ``--hx8k --package ct256``, both ``--seed 1``); the
register-to-register path is printed beside the model's ``operator_delay + register_setup``
(:meth:`hls.Target.operator_delay`).  ``--fit`` prints least-squares fits of the compiler's
constants (``carry_base``/``carry_per_bit`` from the adds, ``lut`` from the selects, ...), the
numbers the device's :class:`approx_units.devices.DelayModel` holds.  Results are cached by
netlist hash like every synthesis, so a re-run is free.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: ``(kind, operand widths, result width)`` of each point: what each constant is fitted on.
POINTS = (
    ("select", (1, 1), 1), ("select", (8, 8), 8), ("select", (32, 32), 32),
    ("add", (8, 8), 9), ("add", (16, 16), 17), ("add", (32, 32), 33),
    ("lt", (8, 8), 1), ("lt", (32, 32), 1),
    ("eq", (8, 8), 1), ("eq", (32, 32), 1),
    ("mul", (4, 4), 8), ("mul", (8, 8), 16), ("mul", (16, 8), 24), ("mul", (16, 16), 32),
    ("floordiv", (8, 8), 9),
)


def operator_verilog(kind: str, widths: tuple[int, int], width: int) -> str:
    """Verilog of module ``op``: ``o = kind(a, b)`` (``select``: ``c ? a : b``), signed operands."""
    from amaranth.back import verilog
    from amaranth.hdl import Module, Mux, signed
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out

    from hls.ir.build import amaranth_value

    class Operator(wiring.Component):
        def __init__(self):
            super().__init__({"a": In(signed(widths[0])), "b": In(signed(widths[1])), "c": In(1),
                              "o": Out(signed(width))})

        def elaborate(self, platform):
            m = Module()
            value = Mux(self.c, self.a, self.b) if kind == "select" else amaranth_value(kind, [self.a, self.b])
            m.d.comb += self.o.eq(value)
            return m

    return verilog.convert(Operator(), name="op", emit_src=False)


def measure(device: str, points=POINTS, progress=print) -> dict:
    """``{point: register-to-register ns}`` with nextpnr for ``device`` (``ecp5`` or ``ice40``)."""
    from benchmarks.delay_calibration import place_points
    return place_points(device, points, operator_verilog, "op",
                        lambda kind, widths, width: f"{kind:9} {str(widths):9}", progress)


def _fit(xs, ys):
    """Least-squares ``y = c0 + c1 * x``: ``(c0, c1)``."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def fits(measured: dict) -> dict:
    """The compiler's constants fitted on ``measured`` (ns), each from the points named in its comment."""
    sel = {w[0]: ns for (k, w, _), ns in measured.items() if k == "select"}
    add = sorted((w[0] + 1, ns) for (k, w, _), ns in measured.items() if k == "add")
    # A 1-bit select is a LUT between two registers: the register overhead plus one LUT and its hop.
    carry_base_total, carry_per_bit = _fit([x for x, _ in add], [y for _, y in add])
    lt = {w[0]: ns for (k, w, _), ns in measured.items() if k == "lt"}
    eq = {w[0]: ns for (k, w, _), ns in measured.items() if k == "eq"}
    out = {"select_1": sel.get(1), "select_32": sel.get(32), "add_intercept": carry_base_total,
           "carry_per_bit": carry_per_bit}
    if lt:
        out["lt_minus_add"] = {w: lt[w] - (carry_base_total + carry_per_bit * (w + 1)) for w in lt}
    if eq:
        out["eq"] = eq
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("ecp5", "ice40"), default="ecp5")
    parser.add_argument("--fit", action="store_true", help="also print least-squares fits of the constants")
    options = parser.parse_args(argv)
    from approx_units.devices import DEVICES
    import hls
    model = hls.Target(device=options.device) if options.device in DEVICES else None
    print(f"{options.device}: one operator between registers (ns register to register)")
    measured = measure(options.device)
    print("operator   widths     measured   model  ratio")
    for (kind, widths, width), ns in measured.items():
        if model is None:
            print(f"{kind:9}  {str(widths):9}  {ns:8.2f}")
            continue
        estimate = model.operator_delay(kind, width, widths) + model.delay_model.register_setup
        print(f"{kind:9}  {str(widths):9}  {ns:8.2f}  {estimate:6.2f}  {estimate / ns:5.2f}")
    if options.fit:
        for name, value in fits(measured).items():
            print(f"  {name}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
