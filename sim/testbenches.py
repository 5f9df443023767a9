"""The testbenches that run inside the simulator, and the port descriptions they read.

Three coroutines, called by the cocotb tests of :mod:`sim.cocotb_tests`:

* :func:`drive_kernel` runs an HLS kernel: handshake, scalar arguments, a
  memory model behind every array, cycle count, results (see
  :mod:`sim.cocotb_kernel` for the timing it follows);
* :func:`drive_unit` streams operand vectors through an approximate unit,
  one per clock, and checks ``valid_out`` against the unit's latency;
* :func:`serve_serial_line` puts a board's top (:class:`hls.board.KernelTop`) behind
  a socket: the calling process's :class:`sim.board_link.SimulatedPort` (``backend="icarus"``)
  sends bytes for ``uart_rx`` and asks for cycles to pass; the coroutine shifts the bytes
  onto the line and decodes ``uart_tx``, as a UART would, and answers with the bytes received.

Both report through a JSON file rather than by failing the cocotb test, so
that the calling process raises a one-line error. This module imports only
the standard library and :mod:`artefacts` at module level (cocotb inside the coroutines, since it
exists only inside the simulator's Python and is heavy): the calling process
imports it for :class:`TestbenchSpec`, the simulator for the coroutines.
"""

from __future__ import annotations

import dataclasses
import json
import random
import socket
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import artefacts

__all__ = ["DEFAULT_MAX_CYCLES", "CLOCK_PERIOD_NS", "PortSpec", "ArraySpec", "StreamSpec", "TestbenchSpec",
           "StreamStalls", "drive_kernel", "drive_unit", "serve_serial_line"]

#: Give up on a kernel that has not raised ``done`` after this many cycles.
DEFAULT_MAX_CYCLES = 1_000_000

#: The testbenches' clock.
CLOCK_PERIOD_NS = 10


@dataclass(frozen=True)
class PortSpec:
    """One Verilog port of the kernel's top-level module.

    Attributes
    ----------
    port : str
        The Verilog name, e.g. ``"a_read__addr"``.
    width : int
    signed : bool
    """

    port: str
    width: int
    signed: bool = False


@dataclass(frozen=True)
class ArraySpec:
    """An array argument: the memory model behind one read and one write port group.

    Attributes
    ----------
    name : str
        The kernel's parameter name.
    depth : int
        Number of elements.
    element : PortSpec
        Width and signedness of an element (``port`` is the read data port).
    read_addr, read_en : str | None
        Verilog names of the read group, None if the kernel never reads the array.
    write_addr, write_data, write_en : str | None
        Verilog names of the write group, None if the kernel never writes it.
    addr_width : int or None
        Address bits of the ports; at 0 (a one-element bank) the address ports have no
        bits to read and every access is to element 0.
    """

    name: str
    depth: int
    element: PortSpec
    read_addr: str | None = None
    read_en: str | None = None
    write_addr: str | None = None
    write_data: str | None = None
    write_en: str | None = None
    addr_width: int | None = None


@dataclass(frozen=True)
class StreamSpec:
    """A stream parameter: the producer or consumer behind its ``payload``/``valid``/``ready`` ports.

    Attributes
    ----------
    name : str
        The kernel's parameter name (its argument holds an input's tokens).
    direction : str
        ``"in"`` (the testbench produces) or ``"out"`` (it consumes).
    payload : PortSpec
        The ``NAME__payload`` port.
    valid, ready : str
        The Verilog names of ``NAME__valid`` and ``NAME__ready``.
    """

    name: str
    direction: str
    payload: PortSpec
    valid: str
    ready: str


@dataclass(frozen=True)
class TestbenchSpec:
    """Everything the generated testbench needs to know about a kernel's ports.

    Attributes
    ----------
    toplevel : str
        Verilog module name.
    start, busy, done : str
        Handshake ports.
    scalars : dict[str, PortSpec]
        Parameter name -> input port.
    returns : list[PortSpec]
        ``ret`` or ``ret_0``, ``ret_1``, ... in order; empty for a kernel without a result.
    arrays : list[ArraySpec]
    streams : list[StreamSpec]
    stall_probability : float
        In each cycle, with this probability, a producer waits before offering its next
        token and a consumer is not ready (:class:`StreamStalls`).
    stall_seed : int
    clk, rst : str
    max_cycles : int
    """

    __test__ = False  # not a pytest test class, despite the name

    toplevel: str
    start: str
    busy: str
    done: str
    scalars: dict[str, PortSpec] = field(default_factory=dict)
    returns: list[PortSpec] = field(default_factory=list)
    arrays: list[ArraySpec] = field(default_factory=list)
    streams: list[StreamSpec] = field(default_factory=list)
    stall_probability: float = 0.0
    stall_seed: int = 0
    clk: str = "clk"
    rst: str = "rst"
    max_cycles: int = DEFAULT_MAX_CYCLES

    def to_json(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "TestbenchSpec":
        data = dict(data)
        data["scalars"] = {name: PortSpec(**port) for name, port in data["scalars"].items()}
        data["returns"] = [PortSpec(**port) for port in data["returns"]]
        data["arrays"] = [ArraySpec(**{**array, "element": PortSpec(**array["element"])})
                          for array in data["arrays"]]
        data["streams"] = [StreamSpec(**{**stream, "payload": PortSpec(**stream["payload"])})
                           for stream in data.get("streams", [])]
        return cls(**data)


class StreamStalls:
    """The producers and consumers of a kernel's streams: which handshakes each cycle raises.

    Shared by Amaranth's testbench (:mod:`sim.kernel`) and the cocotb one, so that one seed
    gives the same stalls in both. In each cycle, :meth:`offer` says for each input whether
    it offers its next token (a producer that offered keeps offering until the transfer, as
    ``amaranth.lib.stream`` requires), and :meth:`ready` for each output whether its consumer
    is ready; each waits with ``probability``.

    Parameters
    ----------
    inputs : dict of str to list of int
        Each input stream's tokens.
    outputs : list of str
        The output streams, in order.
    probability : float
    seed : int
    """

    def __init__(self, inputs: dict, outputs, probability: float, seed: int):
        self.random = random.Random(seed)
        self.probability = probability
        self.inputs = {name: [int(v) for v in tokens] for name, tokens in inputs.items()}
        self.outputs = {name: [] for name in outputs}
        self.taken = {name: 0 for name in self.inputs}
        self.offering = {name: False for name in self.inputs}

    def offer(self) -> dict:
        """Input name -> the token it offers in this cycle, or ``None``."""
        out = {}
        for name, tokens in self.inputs.items():
            if not self.offering[name] and self.taken[name] < len(tokens) \
                    and self.random.random() >= self.probability:
                self.offering[name] = True
            out[name] = tokens[self.taken[name]] if self.offering[name] else None
        return out

    def ready(self) -> dict:
        """Output name -> whether its consumer is ready in this cycle."""
        return {name: self.random.random() >= self.probability for name in self.outputs}

    def transferred(self, inputs, outputs: dict) -> None:
        """After the cycle's edge: ``inputs`` names the inputs whose token was taken, and
        ``outputs`` maps each output that transferred to its token."""
        for name in inputs:
            self.taken[name] += 1
            self.offering[name] = False
        for name, token in outputs.items():
            self.outputs[name].append(token)


# --------------------------------------------------------------------------- the kernel testbench

async def drive_kernel(dut, spec: dict, args: dict, result_file: str) -> None:
    """Run one kernel call on ``dut``; see :mod:`sim.cocotb_kernel` for the timing.

    ``spec`` is a :meth:`TestbenchSpec.to_json`, ``args`` maps parameter
    names to ints (scalars) and lists of ints (arrays). It never fails the
    cocotb test itself: the outcome (``cycles``, ``returns``, ``arrays``), or
    the reason it gave up (``error``, and ``timeout`` when ``done`` did not
    come), goes to ``result_file`` as JSON, and
    :func:`sim.cocotb_kernel.simulate_verilog` raises in the calling process.
    """
    import cocotb  # exists inside the simulator only
    from cocotb.clock import Clock
    from cocotb.triggers import FallingEdge, Timer

    spec = TestbenchSpec.from_json(spec)
    outcome: dict[str, Any] = {"error": None}
    try:
        handles = {}

        def handle(name):
            # Looked up once: a cocotb handle lookup costs as much as a signal read.
            if name not in handles:
                try:
                    handles[name] = getattr(dut, name)
                except AttributeError:
                    raise _TestbenchError(f"the design has no port {name!r}") from None
            return handles[name]

        def read(port: PortSpec | str, signed: bool = False) -> int:
            name, signed = (port.port, port.signed) if isinstance(port, PortSpec) else (port, signed)
            value = handle(name).value
            if not value.is_resolvable:
                raise _TestbenchError(f"port {name} is {value} (X or Z) at cycle {cycles}")
            if not hasattr(value, "to_unsigned"):  # a 1-bit port gives a Logic
                return int(value)
            return value.to_signed() if signed else value.to_unsigned()

        def write(port: str, width: int, value: int) -> None:
            handle(port).value = value & ((1 << width) - 1)

        memories = {array.name: _initial_contents(array, args.get(array.name)) for array in spec.arrays}
        streams = StreamStalls({stream.name: args.get(stream.name, []) for stream in spec.streams
                                if stream.direction == "in"},
                               [stream.name for stream in spec.streams if stream.direction == "out"],
                               spec.stall_probability, spec.stall_seed)

        async def handshakes():
            """Drive this cycle's stream handshakes; returns what transfers at the coming edge."""
            offers, ready = streams.offer(), streams.ready()
            for stream in spec.streams:
                if stream.direction == "in":
                    token = offers[stream.name]
                    if token is not None:
                        write(stream.payload.port, stream.payload.width, token)
                    write(stream.valid, 1, int(token is not None))
                else:
                    write(stream.ready, 1, int(ready[stream.name]))
            await Timer(1, "ns")
            taken = [stream.name for stream in spec.streams
                     if stream.direction == "in" and offers[stream.name] is not None and read(stream.ready)]
            given = {stream.name: read(stream.payload) for stream in spec.streams
                     if stream.direction == "out" and ready[stream.name] and read(stream.valid)}
            return taken, given

        cycles = 0
        cocotb.start_soon(Clock(handle(spec.clk), CLOCK_PERIOD_NS, unit="ns").start())
        handle(spec.rst).value = 1
        handle(spec.start).value = 0
        for stream in spec.streams:
            write(stream.valid if stream.direction == "in" else stream.ready, 1, 0)
        for array in spec.arrays:
            if array.read_addr is not None:
                write(array.element.port, array.element.width, 0)
        await FallingEdge(handle(spec.clk))
        handle(spec.rst).value = 0
        for name, port in spec.scalars.items():
            if name not in args:
                raise _TestbenchError(f"no value for scalar argument {name!r}")
            write(port.port, port.width, args[name])
        handle(spec.start).value = 1
        await Timer(1, "ns")
        while True:
            transfers = await handshakes() if spec.streams else None
            # Requests the design presents to the coming rising edge.
            requests = []
            for array in spec.arrays:
                no_address = array.addr_width == 0
                read_addr = ((0 if no_address else read(array.read_addr)) if array.read_en is not None
                             and read(array.read_en) else None)
                write_request = None
                if array.write_en is not None and read(array.write_en):
                    write_request = (0 if no_address else read(array.write_addr),
                                     read(array.write_data, array.element.signed))
                requests.append((array, read_addr, write_request))
            await FallingEdge(handle(spec.clk))
            cycles += 1
            if transfers is not None:
                streams.transferred(*transfers)
            if cycles == 1:
                handle(spec.start).value = 0
            for array, read_addr, write_request in requests:
                memory = memories[array.name]
                if read_addr is not None:
                    # Out-of-range reads happen in squashed pipeline iterations; they must not crash.
                    data = memory[read_addr] if read_addr < array.depth else 0
                    write(array.element.port, array.element.width, data)
                if write_request is not None:
                    address, data = write_request
                    if address >= array.depth:
                        raise _TestbenchError(f"write to {array.name}[{address}] at cycle {cycles}, "
                                              f"outside its depth {array.depth}")
                    memory[address] = data
            await Timer(1, "ns")
            if read(spec.done):
                break
            if cycles >= spec.max_cycles:
                outcome["timeout"] = True
                raise _TestbenchError(f"{spec.done} not raised within {spec.max_cycles} cycles")
        outcome.update(cycles=cycles, returns=[read(port) for port in spec.returns],
                       arrays=memories)
        if spec.streams:
            outcome.update(streams=streams.outputs, tokens_read=streams.taken)
    except _TestbenchError as error:
        outcome["error"] = str(error)
    except Exception as error:  # reported by the calling process, which has no other channel
        outcome["error"] = f"testbench crashed: {type(error).__name__}: {error}"
    _write_result(result_file, outcome)


class _TestbenchError(Exception):
    pass


def _initial_contents(array: ArraySpec, values) -> list[int]:
    if values is None:
        return [0] * array.depth
    values = [int(value) for value in values]
    if len(values) > array.depth:
        raise _TestbenchError(f"array {array.name!r} has depth {array.depth}, "
                              f"but {len(values)} values were given")
    return values + [0] * (array.depth - len(values))


async def drive_unit(dut, spec: dict, result_file: str) -> None:
    """Stream the vectors of ``spec`` through a unit, one per clock; write ``{"o", "valid_errors"}``.

    ``spec`` is ``{"a": [...], "b": [...], "latency": int, "pipelined": bool}``
    (operand bit patterns). A combinational unit gets one vector per 1 ns
    step; a pipelined one a vector per clock with ``valid_in`` high, and
    ``valid_out`` must rise exactly ``latency`` cycles later.
    """
    import cocotb  # exists inside the simulator only
    from cocotb.clock import Clock
    from cocotb.triggers import FallingEdge, RisingEdge, Timer

    a_values, b_values, latency = spec["a"], spec["b"], spec["latency"]
    outputs, valid_errors = [], []
    if not spec["pipelined"]:
        for a, b in zip(a_values, b_values):
            dut.a.value = a
            dut.b.value = b
            await Timer(1, "ns")
            outputs.append(dut.o.value.to_unsigned())
    else:
        cocotb.start_soon(Clock(dut.clk, CLOCK_PERIOD_NS, unit="ns").start())
        dut.rst.value = 1
        dut.valid_in.value = 0
        for _ in range(2):
            await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        count = len(a_values)
        for cycle in range(count + latency):
            # The output depends on registers only, so it is stable between
            # rising edges: read it, then drive this cycle's inputs.
            valid = int(dut.valid_out.value)
            expected = int(latency <= cycle < count + latency)
            if valid != expected:
                valid_errors.append(f"valid_out={valid} in cycle {cycle}, expected {expected} "
                                    f"(latency {latency})")
            if valid:
                outputs.append(dut.o.value.to_unsigned())
            feeding = cycle < count
            if feeding:
                dut.a.value = a_values[cycle]
                dut.b.value = b_values[cycle]
            dut.valid_in.value = int(feeding)
            await FallingEdge(dut.clk)
    _write_result(result_file, {"o": outputs, "valid_errors": valid_errors})


async def serve_serial_line(dut, spec: dict, result_file: str) -> None:
    """Be the far end of a serial line: a board's top (ports ``clk``, ``rst``, ``uart_rx``, ``uart_tx``).

    ``spec`` has ``socket`` (the path of a Unix socket the calling process listens on) and
    ``clocks_per_bit``. Over the socket come JSON lines, one request at a time:

    * ``{"send": [BYTE, ...], "cycles": N}``: queue the bytes for ``uart_rx`` and let ``N`` clock
      cycles pass; the answer is ``{"received": [BYTE, ...], "sending": BOOL}``, the bytes decoded
      on ``uart_tx`` meanwhile and whether queued bytes are still on their way;
    * ``{"stop": true}``, or the socket closing: the end.

    The simulator stands still while the coroutine waits for a request, so simulated time passes
    only when the calling process says so, as in Amaranth's simulator. Bytes go out without gaps,
    ``clocks_per_bit`` cycles per bit, changing the line on falling clock edges; bytes in are
    sampled in the middle of each bit (uart_tx is a register, so half a clock from its edges).
    The outcome (``cycles``, or ``error``) goes to ``result_file``.
    """
    import cocotb  # exists inside the simulator only
    from cocotb.clock import Clock
    from cocotb.triggers import Event, FallingEdge, Timer

    outcome: dict[str, Any] = {"error": None, "cycles": 0}
    bit_ns = spec["clocks_per_bit"] * CLOCK_PERIOD_NS
    to_board: deque[int] = deque()
    received: list[int] = []
    line = {"sending": False}
    queued = Event()

    async def drive():
        dut.uart_rx.value = 1
        while True:
            if not to_board:
                line["sending"] = False
                queued.clear()
                await queued.wait()
                continue
            line["sending"] = True
            byte = to_board.popleft()
            for bit in [0] + [(byte >> i) & 1 for i in range(8)] + [1]:
                dut.uart_rx.value = bit
                await Timer(bit_ns, "ns")

    async def listen():
        while True:
            await FallingEdge(dut.uart_tx)
            await Timer((spec["clocks_per_bit"] // 2 + 0.5) * CLOCK_PERIOD_NS, "ns")
            if int(dut.uart_tx.value):
                continue                              # a glitch
            byte = 0
            for i in range(8):
                await Timer(bit_ns, "ns")
                byte |= int(dut.uart_tx.value) << i
            await Timer(bit_ns, "ns")                 # the stop bit; a missing one is the host's to notice
            received.append(byte)

    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(spec["socket"])
        requests = connection.makefile("rwb")
        cocotb.start_soon(Clock(dut.clk, CLOCK_PERIOD_NS, unit="ns").start())
        dut.rst.value = 1
        dut.uart_rx.value = 1
        await FallingEdge(dut.clk)
        dut.rst.value = 0
        cocotb.start_soon(drive())
        cocotb.start_soon(listen())
        while True:
            request = requests.readline()          # blocks the simulator: time stands still
            if not request:
                break
            request = json.loads(request)
            if request.get("stop"):
                break
            if request["send"]:
                to_board.extend(request["send"])
                queued.set()
            cycles = max(1, int(request["cycles"]))
            await Timer(cycles * CLOCK_PERIOD_NS, "ns")
            outcome["cycles"] += cycles
            answer = {"received": received[:], "sending": bool(to_board) or line["sending"]}
            received.clear()
            requests.write(json.dumps(answer).encode() + b"\n")
            requests.flush()
    except (OSError, ValueError, KeyError, AttributeError) as error:
        outcome["error"] = f"{type(error).__name__}: {error}"
    finally:
        connection.close()
    _write_result(result_file, outcome)


def _write_result(result_file: str, outcome: dict) -> None:
    # Atomic, so the calling process never reads half a result.
    artefacts.write_text(result_file, json.dumps(outcome))
