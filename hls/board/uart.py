"""An 8N1 UART for the host link: a receiver and a transmitter, each an Amaranth component.

Both count ``clocks_per_bit`` cycles of their clock domain per bit (one start
bit, eight data bits least significant first, one stop bit). The receiver
passes the line through a two-flop synchroniser, waits half a bit after a
falling edge, checks the start bit there and samples every bit in its middle;
it is ready for the next start bit from the middle of the stop bit on, so a
sender whose clock runs a little fast does not lose bytes. The transmitter has
a one-byte holding register beside its shift register: the next byte is taken
while the current one is on the line, and bytes follow each other without a
gap, at the full line rate. Every output is a register.
"""

from __future__ import annotations

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import cdc, data, stream, wiring
from amaranth.lib.wiring import In, Out

__all__ = ["RxByte", "UARTReceiver", "UARTTransmitter", "clocks_per_bit", "MIN_CLOCKS_PER_BIT"]

#: The smallest ``clocks_per_bit`` the receiver samples reliably (half a bit to the middle of the start bit).
MIN_CLOCKS_PER_BIT = 4

#: Largest relative difference between the baud rate asked for and the one a whole ``clocks_per_bit`` gives.
MAX_BAUD_ERROR = 0.02


def _check_clocks_per_bit(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"clocks_per_bit must be an integer, not {value!r}")
    if value < MIN_CLOCKS_PER_BIT:
        raise ValueError(f"clocks_per_bit must be at least {MIN_CLOCKS_PER_BIT}, not {value}")
    return value


def clocks_per_bit(clock_hz: float, baud: int) -> int:
    """The ``clocks_per_bit`` of a UART clocked at ``clock_hz`` running at ``baud``.

    Raises
    ------
    ValueError
        A clock or baud rate that is not positive, a baud rate above ``clock_hz /
        MIN_CLOCKS_PER_BIT``, or one that a whole number of clocks per bit misses by more
        than 2 % (the receiver samples the last bit within half a bit only below about 5 %).
    """
    if not clock_hz > 0 or not baud > 0:
        raise ValueError(f"clock {clock_hz!r} Hz and baud {baud!r} must both be positive")
    cycles = round(clock_hz / baud)
    if cycles < MIN_CLOCKS_PER_BIT:
        raise ValueError(f"baud {baud} is too fast for a {clock_hz / 1e6:g} MHz clock: at most "
                         f"{int(clock_hz // MIN_CLOCKS_PER_BIT)} ({MIN_CLOCKS_PER_BIT} clocks per bit)")
    error = abs(clock_hz / cycles - baud) / baud
    if error > MAX_BAUD_ERROR:
        raise ValueError(f"baud {baud} from a {clock_hz / 1e6:g} MHz clock: {cycles} clocks per bit give "
                         f"{clock_hz / cycles:.0f} baud, {100 * error:.1f} % off (at most "
                         f"{100 * MAX_BAUD_ERROR:g} %)")
    return cycles


#: What the receiver delivers for each byte: its bits, and whether its stop bit was missing.
RxByte = data.StructLayout({"data": 8, "framing_error": 1})


class UARTReceiver(wiring.Component):
    """The receiving half of an 8N1 UART.

    Parameters
    ----------
    clocks_per_bit : int
        Clock cycles per bit, at least :data:`MIN_CLOCKS_PER_BIT`.

    Members
    -------
    rx : In(1)
        The serial line (idle high), asynchronous to the clock.
    bytes : Out(stream.Signature(RxByte, always_ready=True))
        One transfer per byte received, ``valid`` for one cycle; ``framing_error`` is
        set when the stop bit was low (the byte is delivered anyway, so that a frame
        keeps its length).

    Raises
    ------
    TypeError, ValueError
        ``clocks_per_bit`` not an integer, or below the minimum.
    """

    def __init__(self, clocks_per_bit: int):
        self.clocks_per_bit = _check_clocks_per_bit(clocks_per_bit)
        super().__init__({"rx": In(1, init=1), "bytes": Out(stream.Signature(RxByte, always_ready=True))})

    def elaborate(self, platform):
        m = Module()
        line = Signal(init=1)
        m.submodules.sync = cdc.FFSynchronizer(self.rx, line, init=1, stages=2)
        cpb = self.clocks_per_bit
        timer = Signal(range(cpb))
        bit = Signal(range(8))
        shift = Signal(8)
        m.d.sync += self.bytes.valid.eq(0)
        with m.If(timer != 0):
            m.d.sync += timer.eq(timer - 1)
        with m.FSM():
            with m.State("idle"):
                with m.If(~line):
                    m.d.sync += timer.eq(cpb // 2 - 1)
                    m.next = "start"
            with m.State("start"):
                with m.If(timer == 0):
                    with m.If(line):
                        m.next = "idle"            # a glitch, not a start bit
                    with m.Else():
                        m.d.sync += [timer.eq(cpb - 1), bit.eq(0)]
                        m.next = "data"
            with m.State("data"):
                with m.If(timer == 0):
                    m.d.sync += [shift.eq(Cat(shift[1:], line)), timer.eq(cpb - 1), bit.eq(bit + 1)]
                    with m.If(bit == 7):
                        m.next = "stop"
            with m.State("stop"):
                with m.If(timer == 0):
                    m.d.sync += [self.bytes.valid.eq(1), self.bytes.payload.data.eq(shift),
                                 self.bytes.payload.framing_error.eq(~line)]
                    # A low stop bit (a break, or a lost bit): wait for the line to idle first.
                    with m.If(line):
                        m.next = "idle"
                    with m.Else():
                        m.next = "break"
            with m.State("break"):
                with m.If(line):
                    m.next = "idle"
        return m


class UARTTransmitter(wiring.Component):
    """The sending half of an 8N1 UART, with a holding register for gap-free bytes.

    Parameters
    ----------
    clocks_per_bit : int
        Clock cycles per bit, at least :data:`MIN_CLOCKS_PER_BIT`.

    Members
    -------
    bytes : In(stream.Signature(8))
        Bytes to send; ``ready`` is high while the holding register is empty.
    tx : Out(1)
        The serial line (a register, idle high).
    idle : Out(1)
        Nothing held and nothing on the line: every byte accepted has been sent.

    Raises
    ------
    TypeError, ValueError
        ``clocks_per_bit`` not an integer, or below the minimum.
    """

    def __init__(self, clocks_per_bit: int):
        self.clocks_per_bit = _check_clocks_per_bit(clocks_per_bit)
        super().__init__({"bytes": In(stream.Signature(8)), "tx": Out(1, init=1), "idle": Out(1)})

    def elaborate(self, platform):
        m = Module()
        cpb = self.clocks_per_bit
        held = Signal(8)
        full = Signal()
        shift = Signal(9)             # the data bits and the stop bit still to send
        left = Signal(range(11))      # bits left on the line, the current one included
        timer = Signal(range(cpb))
        m.d.comb += [self.bytes.ready.eq(~full), self.idle.eq(~full & (left == 0))]
        with m.If(self.bytes.valid & ~full):
            m.d.sync += [held.eq(self.bytes.payload), full.eq(1)]
        with m.If(timer != 0):
            m.d.sync += timer.eq(timer - 1)
        last_tick = (left == 0) | ((left == 1) & (timer == 0))
        with m.If(last_tick & full):
            # The start bit of the held byte, in the cycle the stop bit before it ends.
            m.d.sync += [self.tx.eq(0), shift.eq(Cat(held, Const(1, 1))), left.eq(10),
                         timer.eq(cpb - 1), full.eq(0)]
        with m.Elif((left != 0) & (timer == 0)):
            m.d.sync += [left.eq(left - 1), timer.eq(cpb - 1), self.tx.eq(shift[0]), shift.eq(shift >> 1)]
            with m.If(left == 1):
                m.d.sync += self.tx.eq(1)
        return m
