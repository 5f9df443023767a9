"""Measure cones of bitwise logic between registers, and fit ``cone_level`` (ns per LUT level).

    .venv/bin/python -m benchmarks.delay_calibration.logic_cones [--device ecp5|ice40]

The compiler times a chain of ``&``, ``|``, ``^``, selects and constant shifts by the LUT4
levels of the cone synthesis maps it to (:mod:`hls.analysis.logic_cones`: ``max(1, ceil(log4
n))`` levels over ``n`` input bits), each level :attr:`approx_units.devices.DelayModel.cone_level`
ns.  Each point here is a cone written as a chain (unbalanced, as a kernel's statements chain
it), eight outputs wide over shared inputs, between the registered ports of
:func:`approx_units.synth.timing_wrapper`, synthesised and placed as the operators of
:mod:`benchmarks.delay_calibration.operators` are (seed 1).  The fit is the slowest
``(path - register_setup) / levels`` over the points, so the model is never faster than a
measured cone.  Run on ECP5 (2026-12-03, seed 1): 13 cones of 2-64 inputs, 1.57-5.97 ns, fit
1.35 ns per level (the slowest point, ``andor`` over 32 inputs, 3 levels, 5.97 ns); the model
keeps its 1.5 ns (``lut + routing_hop``), 0.15 ns slower, since lowering it would raise claims
that the clock sweep has not checked.  iCE40 not run.

Shapes (``kind``, ``inputs``):

* ``xor``: ``o[j] = a[j] ^ a[j + 1] ^ ... ^ a[j + n - 1]`` (indices mod ``n``), a chain;
* ``andor``: ``o[j] = (((a[j] & a[j+1]) | a[j+2]) & a[j+3]) | ...``, a chain of alternating
  AND and OR;
* ``mux``: ``o = c[0] ? a[0] : (c[1] ? a[1] : ...)`` over 8-bit ``a[i]`` and 1-bit ``c[i]``:
  a priority chain of ``n / 9`` selects (``n`` input bits per output bit: ``2 k`` for ``k``
  selects, the last one's default included).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: ``(kind, input bits per output bit)`` of each point.
POINTS = (
    ("xor", 2), ("xor", 4), ("xor", 8), ("xor", 16), ("xor", 32), ("xor", 64),
    ("andor", 4), ("andor", 8), ("andor", 16), ("andor", 32),
    ("mux", 4), ("mux", 8), ("mux", 16),
)

def cone_levels(inputs: int) -> int:
    """LUT4 levels of a function of ``inputs`` bits, as :func:`hls.analysis.logic_cones.levels` counts."""
    return max(1, math.ceil(math.log(max(1, inputs), 4) - 1e-9))


def cone_verilog(kind: str, inputs: int) -> str:
    """Verilog of module ``cone``: eight output bits, each a chained cone of ``inputs`` bits."""
    from amaranth.back import verilog
    from amaranth.hdl import Module, Mux
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out

    selects = max(1, inputs // 2 - 1) if kind == "mux" else 0

    class Cone(wiring.Component):
        def __init__(self):
            ports = {"o": Out(8)}
            if kind == "mux":
                ports.update({f"a{i}": In(8) for i in range(selects + 1)})
                ports["c"] = In(selects)
            else:
                ports["a"] = In(inputs)
            super().__init__(ports)

        def elaborate(self, platform):
            m = Module()
            if kind == "mux":
                value = getattr(self, f"a{selects}")
                for i in reversed(range(selects)):
                    value = Mux(self.c[i], getattr(self, f"a{i}"), value)
                m.d.comb += self.o.eq(value)
                return m
            for j in range(8):
                bits = [self.a[(j + i) % inputs] for i in range(inputs)]
                value = bits[0]
                for index, bit in enumerate(bits[1:]):
                    if kind == "xor":
                        value = value ^ bit
                    else:
                        value = (value & bit) if index % 2 == 0 else (value | bit)
                m.d.comb += self.o[j].eq(value)
            return m

    return verilog.convert(Cone(), name="cone", emit_src=False)


def measure(device: str, points=POINTS, progress=print) -> dict:
    """``{(kind, inputs): register-to-register ns}`` with nextpnr for ``device``."""
    from benchmarks.delay_calibration import place_points
    return place_points(device, points, cone_verilog, "cone",
                        lambda kind, inputs: f"{kind:6} {inputs:3} inputs, {cone_levels(inputs)} level(s):", progress)


def fit(measured: dict, register_setup: float) -> float:
    """``cone_level``: the slowest ``(ns - register_setup) / levels`` over ``measured``, rounded
    up to 0.05 ns."""
    slowest = max((ns - register_setup) / cone_levels(inputs) for (_, inputs), ns in measured.items())
    return math.ceil(slowest * 20 - 1e-9) / 20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=("ecp5", "ice40"), default="ecp5")
    options = parser.parse_args(argv)
    import hls
    model = hls.Target(device=options.device).delay_model
    print(f"{options.device}: bitwise cones between registers (ns register to register, seed 1)")
    measured = measure(options.device)
    print("kind    inputs levels measured  model")
    for (kind, inputs), ns in measured.items():
        estimate = model.register_setup + cone_levels(inputs) * model.cone_level
        print(f"{kind:7} {inputs:6} {cone_levels(inputs):6} {ns:8.2f} {estimate:6.2f}")
    print(f"cone_level fitted: {fit(measured, model.register_setup):.2f} ns "
          f"(the model holds {model.cone_level:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
