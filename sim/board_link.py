"""A simulated serial port: the host code of :mod:`hls.board` drives a :class:`~hls.board.KernelTop`
in Amaranth's simulator, bit by bit on its ``uart_rx`` and ``uart_tx``.

::

    from sim.board_link import SimulatedPort
    import hls.board
    run = hls.board.connect(SimulatedPort(gsumif), gsumif)
    run(a=[...], n=64).result

:class:`SimulatedPort` has what the host uses of a ``serial.Serial``: ``read``,
``write``, ``timeout``, ``reset_input_buffer``, ``close``. Simulated time
passes only inside :meth:`SimulatedPort.read` (and :meth:`~SimulatedPort.flush`):
a write queues bytes, which the port then shifts onto ``uart_rx``, ``clocks_per_bit``
cycles per bit and without gaps, while it decodes what the top sends on
``uart_tx`` in the middle of each bit, as a UART would. ``timeout`` is in seconds of
simulated time and counts from the last byte either way: a read returns what
it has once the line has been quiet that long after the host's last byte has
left.

Two testbenches do the bit-banging: they wake once per bit (not once per
cycle), so the cost of a simulated byte is that of the top's 10 x ``clocks_per_bit``
cycles. Amaranth simulates some 10k cycles a second: use a small
``clocks_per_bit`` (the default 4).
"""

from __future__ import annotations

from collections import deque

from amaranth.sim import Simulator

from hls.board.top import KernelTop
from hls.compiler import CompiledKernel, compile_kernel

__all__ = ["SimulatedPort"]


class SimulatedPort:
    """A :class:`~hls.board.KernelTop` in Amaranth's simulator behind a serial port's methods.

    Parameters
    ----------
    kernel : hls.Kernel or hls.compiler.CompiledKernel
    clocks_per_bit : int
        The top's UART divider (at least 4).
    timeout_cycles : int, optional
        The top's stall timeout; default 64 byte times (the hardware's default is longer,
        and would make every recovery slow to simulate).
    clock_hz : float
        The simulated clock: it sets the baud rate (``clock_hz / clocks_per_bit``) and
        the meaning of ``timeout``.

    Attributes
    ----------
    top : hls.board.KernelTop
    baud : float
    timeout : float
        Seconds of simulated time without a byte before :meth:`read` returns short; by default
        the top's stall timeout plus 16 byte times, so that the reply to a stalled frame comes
        within it.
    tamper : callable or None
        ``tamper(index, byte) -> byte`` for each byte received from the top (``index`` counts
        from 0): fault injection for tests.
    cycles : int
        Simulated cycles so far.
    """

    def __init__(self, kernel, *, clocks_per_bit: int = 4, timeout_cycles: int | None = None,
                 clock_hz: float = 1e6):
        compiled = kernel if isinstance(kernel, CompiledKernel) else compile_kernel(kernel)
        byte_time = 10 * clocks_per_bit
        if timeout_cycles is None:
            timeout_cycles = 64 * byte_time
        self.top = KernelTop(compiled, clocks_per_bit=clocks_per_bit, timeout_cycles=timeout_cycles)
        self.clocks_per_bit = clocks_per_bit
        self.clock_hz = float(clock_hz)
        self.baud = self.clock_hz / clocks_per_bit
        self.timeout = (timeout_cycles + 16 * byte_time) / self.clock_hz
        self.tamper = None
        self.cycles = 0
        self._to_board: deque[int] = deque()
        self._sending = False
        self._from_board = bytearray()
        self._received = 0
        self._simulator = Simulator(self.top)
        self._simulator.add_clock(1 / self.clock_hz)
        self._simulator.add_testbench(self._drive, background=True)
        self._simulator.add_testbench(self._listen, background=True)

    # --- the two testbenches ----------------------------------------------------------------

    # Both wait with ctx.delay, not clock ticks: a testbench woken once per bit, not once per
    # cycle, costs little beside the design's own simulation.

    async def _drive(self, ctx):
        line, bit_time = self.top.uart_rx, self.clocks_per_bit / self.clock_hz
        ctx.set(line, 1)
        while True:
            if not self._to_board:
                self._sending = False
                await ctx.delay(bit_time)
                continue
            self._sending = True
            byte = self._to_board.popleft()
            for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1]:
                ctx.set(line, bit)
                await ctx.delay(bit_time)

    async def _listen(self, ctx):
        line, bit_time = self.top.uart_tx, self.clocks_per_bit / self.clock_hz
        while True:
            await ctx.negedge(line)
            # The middle of the start bit, half a clock away from any edge (uart_tx is a register).
            await ctx.delay((self.clocks_per_bit // 2 + 0.5) / self.clock_hz)
            if ctx.get(line):
                continue                              # a glitch
            byte = 0
            for i in range(8):
                await ctx.delay(bit_time)
                byte |= ctx.get(line) << i
            await ctx.delay(bit_time)                 # the stop bit; a missing one is the host's to notice
            if self.tamper is not None:
                byte = self.tamper(self._received, byte) & 0xFF
            self._received += 1
            self._from_board.append(byte)

    # --- the port ---------------------------------------------------------------------------

    def _advance(self, cycles: int) -> None:
        self.cycles += cycles
        self._simulator.run_until(self.cycles / self.clock_hz)

    def _busy_sending(self) -> bool:
        return bool(self._to_board) or self._sending

    def write(self, data: bytes) -> int:
        """Queue ``data`` for the top's ``uart_rx``; it is sent while the host reads."""
        self._to_board.extend(bytes(data))
        return len(data)

    def flush(self) -> None:
        """Simulate until every queued byte has been sent."""
        while self._busy_sending():
            self._advance(max(1, len(self._to_board)) * 10 * self.clocks_per_bit)

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes from the top: fewer when the line stays quiet for ``timeout``."""
        byte_time = 10 * self.clocks_per_bit
        limit = round(self.timeout * self.clock_hz)
        quiet = 0
        while len(self._from_board) < size and quiet < limit:
            before = len(self._from_board)
            missing = size - before
            # Step by the time the missing bytes need at least, finely at the end, so that the
            # host does not wait longer than a real one would.
            step = missing * byte_time if missing > 1 else self.clocks_per_bit
            if self._busy_sending():
                step = max(step, len(self._to_board) * byte_time)
            step = min(step, max(self.clocks_per_bit, limit - quiet))
            sending = self._busy_sending()
            self._advance(step)
            if sending or len(self._from_board) > before:
                quiet = 0
            else:
                quiet += step
        out = bytes(self._from_board[:size])
        del self._from_board[:size]
        return out

    @property
    def in_waiting(self) -> int:
        return len(self._from_board)

    def reset_input_buffer(self) -> None:
        self._from_board.clear()

    def close(self) -> None:
        """Nothing to release: the simulation ends with the object."""
