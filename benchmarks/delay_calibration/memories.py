"""Measure the read of a kernel's local array (``hls.local``) between registers, and fit
``memory_read_base`` and ``memory_read_per_level`` (ns): the multiplexer after a read's registered
address, whose levels grow with the array's depth.

    .venv/bin/python -m benchmarks.delay_calibration.memories

Every placement of a kernel maps its arrays to flip-flops (``synth_ecp5 -nobram -nolutram``,
:data:`approx_units.synth.TARGETS`), so a read is its address register, then a multiplexer over
the ``depth`` words, then the logic the value feeds.  Each point is an ``amaranth.lib.memory.Memory``
of ``depth`` words as the back end builds an ``hls.local`` (one write port, one synchronous read
port), between the registered inputs and outputs of :func:`approx_units.synth.timing_wrapper`,
placed and routed as :mod:`.operators`' points are (``--seed 1``, cached by netlist hash).  The
model's read delivers its word ``memory_read(depth)`` ns into the cycle after its address
(:meth:`approx_units.devices.DelayModel.memory_read`), so each point's placed path is
``register_setup + memory_read(depth)``; the fit is a least-squares line over
``ceil(log2(depth))``, raised so that no point is above it, rounded up to 0.05 ns.  None of these
is a kernel of ``benchmarks/delay_model_check.py``.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: ``(depth, width)`` of each point.
POINTS = ((4, 12), (16, 12), (64, 12), (256, 12), (64, 16), (32, 8))


def memory_verilog(depth: int, width: int) -> str:
    """Verilog of module ``mem``: a ``depth`` x ``width`` memory with one write and one
    synchronous read port."""
    from amaranth.back import verilog
    from amaranth.hdl import Module, unsigned
    from amaranth.lib import memory, wiring
    from amaranth.lib.wiring import In, Out

    bits = max(1, (depth - 1).bit_length())

    class Mem(wiring.Component):
        def __init__(self):
            super().__init__({"waddr": In(bits), "wdata": In(unsigned(width)), "we": In(1),
                              "raddr": In(bits), "rdata": Out(unsigned(width))})

        def elaborate(self, platform):
            m = Module()
            m.submodules.mem = mem = memory.Memory(shape=unsigned(width), depth=depth, init=[])
            write, read = mem.write_port(), mem.read_port()
            m.d.comb += [write.addr.eq(self.waddr), write.data.eq(self.wdata), write.en.eq(self.we),
                         read.addr.eq(self.raddr), self.rdata.eq(read.data)]
            return m

    return verilog.convert(Mem(), name="mem", emit_src=False)


def measure(device: str = "ecp5", points=POINTS, progress=print) -> dict:
    """``{(depth, width): register-to-register ns}`` with nextpnr for ``device``."""
    from benchmarks.delay_calibration import place_points
    return place_points(device, points, memory_verilog, "mem",
                        lambda depth, width: f"{depth:4} x {width:2} bits", progress)


def levels(depth: int) -> int:
    """Address bits of a ``depth``-word array: the multiplexer's levels of 2:1 choices."""
    return max(1, math.ceil(math.log2(max(2, depth))))


def fit(measured: dict, register_setup: float) -> tuple[float, float]:
    """``(memory_read_base, memory_read_per_level)``: the least-squares line of
    ``ns - register_setup`` over :func:`levels`, its base raised until no point lies above it,
    both rounded up to 0.05 ns."""
    xs = [levels(depth) for depth, _ in measured]
    ys = [ns - register_setup for ns in measured.values()]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    slope = math.ceil(slope * 20 - 1e-9) / 20
    base = max(y - slope * x for x, y in zip(xs, ys))
    return math.ceil(base * 20 - 1e-9) / 20, slope


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    import hls
    model = hls.Target(device="ecp5").delay_model
    print("ecp5: a local array's read between registers (ns register to register, seed 1)")
    measured = measure("ecp5")
    print("depth  width  levels  placed  model")
    for (depth, width), ns in measured.items():
        print(f"{depth:5}  {width:5}  {levels(depth):6}  {ns:6.2f}  {model.register_setup + model.memory_read(depth):5.2f}")
    base, per_level = fit(measured, model.register_setup)
    print(f"fitted: memory_read_base {base:.2f} ns, memory_read_per_level {per_level:.2f} ns (the model holds "
          f"{model.memory_read_base:.2f} and {model.memory_read_per_level:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
