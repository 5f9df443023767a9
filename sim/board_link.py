"""A simulated serial port: the host code of :mod:`hls.board` drives a :class:`~hls.board.KernelTop`
in Amaranth's simulator, or its Verilog under Icarus, bit by bit on its ``uart_rx`` and ``uart_tx``.

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

``SimulatedPort(kernel, backend="icarus")`` has the same far end as Verilog
(:func:`amaranth.back.verilog.convert` of the same top) under cocotb and Icarus,
built and run through :func:`sim.cocotb_run.run_testbench` in a thread of this
process. The cocotb test (``sim.cocotb_tests.serve_board_link``, coroutine
:func:`sim.testbenches.serve_serial_line`) does the bit-banging; this object
asks it, over a Unix socket, to send bytes and let cycles pass, and the
simulator stands still in between, so the port behaves as with Amaranth, cycle
for cycle. :meth:`SimulatedPort.close` (or a ``with`` block) ends the simulation.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque

from amaranth.back import verilog
from amaranth.sim import Simulator

import artefacts

from hls.board.top import KernelTop
from hls.compiler import CompiledKernel, compile_kernel

from .cocotb_run import log_tail, run_testbench, work_directory
from .errors import CocotbRunError

__all__ = ["BACKENDS", "SimulatedPort"]

#: Simulators of the board's top: Amaranth's, or Icarus Verilog under cocotb.
BACKENDS = ("amaranth", "icarus")

#: The Verilog module name of the top under Icarus.
TOPLEVEL = "axhls_board_top"


class SimulatedPort:
    """A :class:`~hls.board.KernelTop` in Amaranth's simulator or under Icarus, behind a serial port's methods.

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
    backend : str
        ``"amaranth"`` (Amaranth's simulator, in this process) or ``"icarus"`` (the top's
        Verilog under cocotb and Icarus Verilog).

    Raises
    ------
    ValueError
        An unknown ``backend``.
    sim.errors.ToolUnavailable
        ``backend="icarus"`` without Icarus Verilog or cocotb (one line).
    sim.errors.CocotbRunError
        The Icarus simulation did not build or did not start.

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
                 clock_hz: float = 1e6, backend: str = "amaranth"):
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
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
        self.backend = backend
        self._from_board = bytearray()
        self._received = 0
        line = _AmaranthLine if backend == "amaranth" else _IcarusLine
        self._line = line(self.top, clocks_per_bit, self.clock_hz)

    # --- the port ---------------------------------------------------------------------------

    def _advance(self, cycles: int) -> None:
        self.cycles += cycles
        for byte in self._line.advance(cycles):
            if self.tamper is not None:
                byte = self.tamper(self._received, byte) & 0xFF
            self._received += 1
            self._from_board.append(byte)

    def _busy_sending(self) -> bool:
        return self._line.sending

    def write(self, data: bytes) -> int:
        """Queue ``data`` for the top's ``uart_rx``; it is sent while the host reads."""
        self._line.send(bytes(data))
        return len(data)

    def flush(self) -> None:
        """Simulate until every queued byte has been sent."""
        while self._busy_sending():
            self._advance(max(1, self._line.queued) * 10 * self.clocks_per_bit)

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
                step = max(step, self._line.queued * byte_time)
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
        """End the simulation (under Icarus: stop it and wait for it); closing twice does nothing."""
        self._line.close()

    def __enter__(self) -> "SimulatedPort":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Line:
    """The far end of the port: a simulated top that takes bytes for ``uart_rx`` and lets cycles pass.

    Subclasses keep ``_to_board`` (bytes queued, not yet on the line) and ``_sending`` (a byte is on
    the line), and define ``advance(cycles) -> bytes decoded on uart_tx meanwhile`` and ``close()``.
    """

    _to_board: deque[int] | bytearray
    _sending: bool

    @property
    def queued(self) -> int:
        """Bytes written and not yet on the line."""
        return len(self._to_board)

    @property
    def sending(self) -> bool:
        return bool(self._to_board) or self._sending

    def send(self, data: bytes) -> None:
        self._to_board.extend(data)


class _AmaranthLine(_Line):
    """The top in Amaranth's simulator: two testbenches shift bytes in and out, waking once per bit."""

    def __init__(self, top: KernelTop, clocks_per_bit: int, clock_hz: float):
        self.top, self.clocks_per_bit, self.clock_hz = top, clocks_per_bit, clock_hz
        self._cycles = 0
        self._to_board: deque[int] = deque()
        self._sending = False
        self._from_board: list[int] = []
        self._simulator = Simulator(top)
        self._simulator.add_clock(1 / clock_hz)
        self._simulator.add_testbench(self._drive, background=True)
        self._simulator.add_testbench(self._listen, background=True)

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
            self._from_board.append(byte)

    def advance(self, cycles: int) -> list[int]:
        self._cycles += cycles
        self._simulator.run_until(self._cycles / self.clock_hz)
        out, self._from_board = self._from_board, []
        return out

    def close(self) -> None:
        """Nothing to release: the simulation ends with the object."""


class _IcarusLine(_Line):
    """The top's Verilog under cocotb and Icarus, in a thread, served by
    :func:`sim.testbenches.serve_serial_line` over a Unix socket (one JSON line each way per step)."""

    def __init__(self, top: KernelTop, clocks_per_bit: int, clock_hz: float):
        self._to_board = bytearray()       # shipped with the next request
        self._sending = False               # as the simulation said in its last answer
        self._error: BaseException | None = None
        self._connection = None
        self._closed = False
        self._stack = contextlib.ExitStack()
        work = self._stack.enter_context(work_directory(None, prefix="axhls-board-"))
        self._work = work
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._stack.callback(listener.close)
        listener.bind(str(work / "link.sock"))
        listener.listen(1)
        listener.settimeout(0.2)
        artefacts.write_text(work / "spec.json", json.dumps({"socket": str(work / "link.sock"),
                                                             "clocks_per_bit": clocks_per_bit}))
        text = verilog.convert(top, name=TOPLEVEL)
        self._thread = threading.Thread(target=self._simulate, args=(text, work), daemon=True)
        self._thread.start()
        try:
            while self._connection is None:
                try:
                    self._connection, _ = listener.accept()
                except socket.timeout:
                    if not self._thread.is_alive():
                        raise self._error or CocotbRunError(
                            f"icarus simulation of {TOPLEVEL} ended before it connected"
                            f"{log_tail(work / 'sim.log')}", work / "sim.log") from None
        except BaseException as error:
            self._stack.__exit__(type(error), error, error.__traceback__)
            raise
        self._connection.settimeout(None)
        self._requests = self._connection.makefile("rwb")

    def _simulate(self, text: str, work) -> None:
        try:
            run_testbench(text, TOPLEVEL, test_module="sim.cocotb_tests", testcase="serve_board_link",
                          work_dir=work, simulator="icarus")
        except BaseException as error:         # handed to the host's thread
            self._error = error

    def advance(self, cycles: int) -> list[int]:
        if self._closed:
            raise CocotbRunError("the icarus simulation of the board has been closed")
        request = {"send": list(self._to_board), "cycles": cycles}
        self._to_board.clear()
        try:
            self._requests.write(json.dumps(request).encode() + b"\n")
            self._requests.flush()
            answer = self._requests.readline()
        except OSError:
            answer = b""
        if not answer:
            self._fail()
        answer = json.loads(answer)
        self._sending = answer["sending"]
        return answer["received"]

    def _fail(self):
        """The simulation went away: one line from its result or its log."""
        self._thread.join()
        self._closed = True
        result = self._work / "result.json"
        reason = json.loads(result.read_text())["error"] if result.exists() else None
        error = self._error or CocotbRunError(f"icarus simulation of {TOPLEVEL} stopped"
                                              f"{': ' + reason if reason else ''}"
                                              f"{log_tail(self._work / 'sim.log')}", self._work / "sim.log")
        self._stack.__exit__(type(error), error, None)
        raise error

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self._requests.write(b'{"stop": true}\n')
            self._requests.flush()
        except OSError:
            pass
        self._requests.close()
        self._connection.close()
        self._thread.join()
        if self._error is not None:
            self._stack.__exit__(type(self._error), self._error, None)
            raise self._error
        self._stack.close()
