"""A hand-written kernel with the compiler's port convention, for testing the testbenches alone.

``ScaleSum`` is what the compiler would make of

.. code-block:: python

    def scale_sum(a: hls.Array[signed(8), 8], n: unsigned(4), k: signed(4)) -> (signed(16), unsigned(4)):
        s: signed(16) = 0
        negatives: unsigned(4) = 0
        for i in range(n):
            v: signed(8) = a[i & 7] * k
            a[i & 7] = v
            s = s + v
            if v < 0:
                negatives = negatives + 1
        return s, negatives

as a sequential state machine, with the signature the compiler gives kernels
(:class:`hls.backend.component.KernelSignature`): a ``ctrl`` group (``start``
in; ``busy``, ``done`` out), scalar inputs latched at ``start``, outputs
``ret_0``/``ret_1`` valid at ``done``, and array ports ``a_read``/``a_write``
with the flipped signatures of Amaranth's memory ports (data one cycle after
the address). It lets the cocotb testbench, memory models, cycle counting and
lint be tested independently of the compiler's scheduler and back end.
"""

from amaranth import Module, Signal, signed, unsigned
from amaranth.lib import wiring

from hls.backend.component import KernelSignature

DEPTH = 8


class ScaleSum(wiring.Component):
    """The state machine described in the module docstring; ``done`` is a one-cycle pulse."""

    def __init__(self):
        super().__init__(KernelSignature(scalars={"n": unsigned(4), "k": signed(4)},
                                         results=[signed(16), unsigned(4)],
                                         arrays={"a": (signed(8), DEPTH)}))

    def elaborate(self, platform):
        m = Module()
        n = Signal(unsigned(4))
        k = Signal(signed(4))
        i = Signal(unsigned(5))
        s = Signal(signed(16))
        negatives = Signal(unsigned(4))
        v = Signal(signed(8))
        m.d.comb += self.ret_0.eq(s), self.ret_1.eq(negatives)
        m.d.comb += self.a_read.en.eq(0)
        with m.FSM():
            with m.State("IDLE"):
                with m.If(self.ctrl.start):
                    m.d.sync += n.eq(self.n), k.eq(self.k), i.eq(0), s.eq(0), negatives.eq(0)
                    m.next = "READ"
            with m.State("READ"):
                m.d.comb += self.ctrl.busy.eq(1)
                with m.If(i == n):
                    m.next = "DONE"
                with m.Else():
                    m.d.comb += self.a_read.addr.eq(i[:3]), self.a_read.en.eq(1)
                    m.next = "UPDATE"
            with m.State("UPDATE"):
                m.d.comb += self.ctrl.busy.eq(1)
                m.d.comb += v.eq(self.a_read.data * k)
                m.d.comb += [self.a_write.addr.eq(i[:3]), self.a_write.data.eq(v),
                             self.a_write.en.eq(1)]
                m.d.sync += s.eq(s + v), i.eq(i + 1)
                with m.If(v < 0):
                    m.d.sync += negatives.eq(negatives + 1)
                m.next = "READ"
            with m.State("DONE"):
                m.d.comb += self.ctrl.done.eq(1)
                m.next = "IDLE"
        return m


def wrap(value: int, width: int, is_signed: bool) -> int:
    value &= (1 << width) - 1
    if is_signed and value >= 1 << (width - 1):
        value -= 1 << width
    return value


def golden(a: list[int], n: int, k: int) -> tuple[tuple[int, int], list[int]]:
    """The Python run: ``((s, negatives), final contents of a)``."""
    a = list(a)
    s = negatives = 0
    for i in range(n):
        v = wrap(a[i & 7] * k, 8, True)
        a[i & 7] = v
        s = wrap(s + v, 16, True)
        if v < 0:
            negatives = wrap(negatives + 1, 4, False)
    return (s, negatives), a


def expected_cycles(n: int) -> int:
    """``start`` to ``done``: one cycle to latch, two per iteration, one for the exit test."""
    return 1 + 2 * n + 1
