"""``KernelTop``: a compiled kernel with its arrays in block RAM and the host link, as one component.

The top holds

* the kernel's component;
* one :class:`amaranth.lib.memory.Memory` per array (per bank of a partitioned
  array), with one read and one write port each, as the kernel's port groups
  expect: block RAM on an FPGA;
* a register per scalar argument, driving the kernel's inputs;
* a cycle counter: the run's length in the board's clock cycles, counted as
  :func:`sim.run` counts them (the edge that sees ``start`` is cycle 1, the
  last is the first edge after which ``done`` is high);
* the link controller (:class:`LinkController`, this module): the UART, the frame parser of
  :mod:`hls.board.protocol`, and the reply sender.

The memories' ports belong to the kernel from the cycle it is started until its
``done``; the link reaches them only while the kernel is idle, through a
multiplexer in front of each port. Every output is a register, and nothing
goes from ``uart_rx`` to ``uart_tx`` without passing through registers.
"""

from __future__ import annotations

import contextlib

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import memory, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from .protocol import (ARRAY_HEADER_BYTES, CYCLE_BYTES, MAX_DEPTH, MAX_MEMORIES, REPLY_SYNC, REQUEST_SYNC,
                       VERSION, Command, Status, kernel_signature_word, memory_map)
from .uart import UARTReceiver, UARTTransmitter, _check_clocks_per_bit

__all__ = ["KernelTop", "crc16_step", "DEFAULT_TIMEOUT_BYTES"]

#: The board's stall timeout, by default: this many byte times without a byte ends a frame.
DEFAULT_TIMEOUT_BYTES = 256


def _crc16_byte_terms() -> list[tuple[frozenset, frozenset]]:
    """For each bit of the CRC after one byte: the CRC bits and byte bits it is the XOR of."""
    # Symbolic bitwise CRC-16/CCITT-FALSE: each bit is a set of ("c", i) and ("d", i) terms.
    bits = [frozenset({("c", i)}) for i in range(16)]
    for i in reversed(range(8)):
        feedback = bits[15] ^ {("d", i)}
        shifted = [frozenset()] + bits[:15]
        bits = [shifted[k] ^ feedback if (0x1021 >> k) & 1 else shifted[k] for k in range(16)]
    return [(frozenset(i for kind, i in terms if kind == "c"), frozenset(i for kind, i in terms if kind == "d"))
            for terms in bits]


_CRC16_BYTE_TERMS = _crc16_byte_terms()


def crc16_step(crc, byte):
    """CRC-16/CCITT-FALSE of ``crc`` followed by the 8-bit value ``byte``, as an Amaranth value:
    one byte per cycle, each bit an XOR of at most a dozen input bits."""
    out = []
    for crc_bits, byte_bits in _CRC16_BYTE_TERMS:
        terms = [crc[i] for i in sorted(crc_bits)] + [byte[i] for i in sorted(byte_bits)]
        value = terms[0]
        for term in terms[1:]:
            value = value ^ term
        out.append(value)
    return Cat(*out)


class KernelTop(wiring.Component):
    """A compiled kernel behind the host link of :mod:`hls.board.protocol`.

    Parameters
    ----------
    compiled_kernel : hls.compiler.CompiledKernel
    clocks_per_bit : int
        The UART's clock cycles per bit (``clock_hz / baud``, see
        :func:`hls.board.uart.clocks_per_bit`); at least 4.
    timeout_cycles : int, optional
        The stall timeout: a frame whose next byte does not come within this many cycles
        is dropped with a ``TIMEOUT`` reply. Default :data:`DEFAULT_TIMEOUT_BYTES` byte times
        (``DEFAULT_TIMEOUT_BYTES * 10 * clocks_per_bit`` cycles); at least two byte times.

    Members
    -------
    uart_rx : In(1)
        From the host (idle high), asynchronous: it passes a two-flop synchroniser.
    uart_tx : Out(1)
        To the host (a register, idle high).
    busy : Out(1)
        The kernel is running (for an LED).

    Attributes
    ----------
    memory_map : dict
        :func:`hls.board.protocol.memory_map` of the kernel.
    signature_word : int
        :func:`hls.board.protocol.kernel_signature_word` of the kernel, the ``HELLO`` answer.

    Raises
    ------
    TypeError, ValueError
        ``clocks_per_bit`` or ``timeout_cycles`` out of range, or a kernel the protocol cannot
        reach: more than 256 memories, or a bank deeper than 65535 elements.
    """

    def __init__(self, compiled_kernel, *, clocks_per_bit: int, timeout_cycles: int | None = None):
        try:
            self._check(compiled_kernel, clocks_per_bit, timeout_cycles)
        except (TypeError, ValueError):
            # A top refused by its parameters was never meant to be used: no UnusedElaboratable.
            self._MustUse__used = True
            raise
        super().__init__({"uart_rx": In(1, init=1), "uart_tx": Out(1, init=1), "busy": Out(1)})

    def _check(self, compiled_kernel, clocks_per_bit, timeout_cycles):
        self.clocks_per_bit = _check_clocks_per_bit(clocks_per_bit)
        byte_time = 10 * self.clocks_per_bit
        if timeout_cycles is None:
            timeout_cycles = DEFAULT_TIMEOUT_BYTES * byte_time
        if isinstance(timeout_cycles, bool) or not isinstance(timeout_cycles, int):
            raise TypeError(f"timeout_cycles must be an integer, not {timeout_cycles!r}")
        if timeout_cycles < 2 * byte_time:
            raise ValueError(f"timeout_cycles must be at least two byte times ({2 * byte_time} cycles at "
                             f"{self.clocks_per_bit} clocks per bit), not {timeout_cycles}")
        self.timeout_cycles = timeout_cycles
        self.compiled = compiled_kernel
        self.memory_map = memory_map(compiled_kernel)
        self.signature_word = kernel_signature_word(compiled_kernel)
        name = self.memory_map["kernel"]
        if self.memory_map["memories"] > MAX_MEMORIES:
            raise ValueError(f"kernel {name}: {self.memory_map['memories']} memories (arrays and banks); "
                             f"the link addresses at most {MAX_MEMORIES}")
        for array in self.memory_map["arrays"]:
            for bank in array["banks"]:
                if bank["depth"] > MAX_DEPTH:
                    raise ValueError(f"kernel {name}: array {array['name']!r} has {bank['depth']} elements "
                                     f"in one memory; the link reaches at most {MAX_DEPTH}")

    def elaborate(self, platform):
        m = Module()
        kernel = self.compiled.component()
        m.submodules.kernel = kernel
        signature = kernel.signature
        link = LinkController(self.memory_map, self.signature_word, clocks_per_bit=self.clocks_per_bit,
                              timeout_cycles=self.timeout_cycles)
        m.submodules.link = link
        m.d.comb += [link.uart_rx.eq(self.uart_rx), self.uart_tx.eq(link.uart_tx)]

        control = getattr(kernel, signature.control)
        running = Signal()
        start = Signal()
        cycles = Signal(8 * CYCLE_BYTES)
        m.d.sync += start.eq(link.start)
        m.d.comb += control.start.eq(start)
        with m.If(start):
            m.d.sync += [running.eq(1), cycles.eq(1)]
        with m.Elif(running & control.done):
            m.d.sync += running.eq(0)
        with m.Elif(running):
            m.d.sync += cycles.eq(cycles + 1)
        finished = Signal()
        with m.If(start):
            m.d.sync += finished.eq(0)
        with m.Elif(running & control.done):
            m.d.sync += finished.eq(1)
        m.d.comb += [link.running.eq(running | start), link.finished.eq(finished), link.cycles.eq(cycles),
                     self.busy.eq(running)]

        kernel_owns = start | running
        for array in self.memory_map["arrays"]:
            shape = signature.arrays[array["name"]][0]
            for (read, write, depth), bank in zip(signature.bank_groups[array["name"]], array["banks"]):
                mem = memory.Memory(shape=shape, depth=depth, init=[])
                m.submodules[f"mem_{read}"] = mem
                read_port, write_port = mem.read_port(), mem.write_port()
                kernel_read, kernel_write = getattr(kernel, read), getattr(kernel, write)
                port = link.ports[bank["id"]]
                m.d.comb += [
                    read_port.addr.eq(Mux(kernel_owns, kernel_read.addr, port.addr)),
                    read_port.en.eq(Mux(kernel_owns, kernel_read.en, 1)),
                    kernel_read.data.eq(read_port.data),
                    port.read_data.eq(read_port.data.as_unsigned()),
                    write_port.addr.eq(Mux(kernel_owns, kernel_write.addr, port.addr)),
                    write_port.data.eq(Mux(kernel_owns, kernel_write.data, port.write_data)),
                    write_port.en.eq(Mux(kernel_owns, kernel_write.en, port.write_en)),
                ]

        scalars = {entry["name"]: entry for entry in self.memory_map["scalars"]}
        for name, shape in signature.scalars.items():
            register = Signal(shape, name=f"scalar_{name}")
            entry = scalars[name]
            with m.If(link.scalars_write):
                m.d.sync += register.eq(link.scalars[8 * entry["offset"]:8 * entry["offset"] + shape.width])
            m.d.comb += getattr(kernel, name).eq(register)
        results = [getattr(kernel, port).as_unsigned() for port, _ in signature.results]
        padded = [Cat(value, Const(0, 8 * entry["bytes"] - len(value)))
                  for value, entry in zip(results, self.memory_map["results"])]
        if padded:
            m.d.comb += link.results.eq(Cat(*padded))
        return m


class _LinkPort(wiring.Signature):
    """The link's side of one memory's multiplexer."""

    def __init__(self, addr_width: int, width: int):
        super().__init__({"addr": Out(addr_width), "read_data": In(width), "write_data": Out(width),
                          "write_en": Out(1)})


class LinkController(wiring.Component):
    """The UART, the request parser and the reply sender of the host link (see :class:`KernelTop`).

    Parameters
    ----------
    memory_map : dict
        :func:`hls.board.protocol.memory_map` of the kernel.
    signature_word : int
    clocks_per_bit, timeout_cycles : int
        As :class:`KernelTop`.

    Members
    -------
    uart_rx : In(1), uart_tx : Out(1)
    start : Out(1)
        One cycle: start the kernel.
    running, finished : In(1)
        The kernel owns the memories; it has finished since the last start.
    cycles : In(48)
    scalars : Out(8 * scalar bytes)
        The last ``WRITE_SCALARS`` payload, valid when ``scalars_write`` is high.
    scalars_write : Out(1)
    results : In(8 * result bytes)
        Every result, padded to whole bytes, in order.
    mem<ID> : Out(_LinkPort)
        The link's side of memory ``ID``'s multiplexers (also in the list ``ports``).
    """

    def __init__(self, memory_map, signature_word, *, clocks_per_bit, timeout_cycles):
        self.map = memory_map
        self.signature_word = signature_word
        self.clocks_per_bit = clocks_per_bit
        self.timeout_cycles = timeout_cycles
        self.memories = [(array, bank) for array in memory_map["arrays"] for bank in array["banks"]]
        self.scalar_bytes = sum(entry["bytes"] for entry in memory_map["scalars"])
        self.result_bytes = sum(entry["bytes"] for entry in memory_map["results"])
        ports = [_LinkPort(ceil_log2(bank["depth"]), array["width"]) for array, bank in self.memories]
        members = {"uart_rx": In(1, init=1), "uart_tx": Out(1, init=1), "start": Out(1),
                   "running": In(1), "finished": In(1), "cycles": In(8 * CYCLE_BYTES),
                   "scalars": Out(max(8, 8 * self.scalar_bytes)), "scalars_write": Out(1),
                   "results": In(max(8, 8 * self.result_bytes))}
        members.update({f"mem{i}": Out(port) for i, port in enumerate(ports)})
        super().__init__(members)
        #: The link's side of each memory's multiplexer, by memory id.
        self.ports = [getattr(self, f"mem{i}") for i in range(len(ports))]

    def elaborate(self, platform):
        m = Module()
        m.submodules.rx = rx = UARTReceiver(self.clocks_per_bit)
        m.submodules.tx = tx = UARTTransmitter(self.clocks_per_bit)
        m.d.comb += [rx.rx.eq(self.uart_rx), self.uart_tx.eq(tx.tx)]
        got = rx.bytes.valid
        byte = rx.bytes.payload.data

        element_bytes = max([array["bytes"] for array, _ in self.memories], default=1)
        command = Signal(8)
        length = Signal(16)
        count = Signal(16)                 # payload bytes received
        crc = Signal(16)
        framing = Signal()                 # a byte of this frame had no stop bit
        header = Signal(8 * ARRAY_HEADER_BYTES)
        memory_id, first, elements = header[:8], header[8:24], header[24:40]
        header_done = Signal()             # the header's last byte came in the cycle before
        header_ok = Signal()               # the header names a memory and a range inside it
        header_length_ok = Signal()        # the frame's length fits the header
        header_seen = Signal()
        selected = Signal(8)
        selected_bytes = Signal(range(element_bytes + 1))
        range_bytes = Signal(17)           # the header's elements, in bytes
        addr = Signal(16)
        element = Signal(8 * element_bytes)
        element_byte = Signal(range(element_bytes))
        write_pulse = Signal()
        write_ok = Signal()
        scalars = Signal(len(self.scalars))
        stall = Signal(range(self.timeout_cycles + 1))
        status = Signal(8)

        # --- the memories: the link's address, write data and write enable --------------------
        read_data = Signal(8 * element_bytes)
        for index, (array, bank) in enumerate(self.memories):
            port = self.ports[index]
            shift = 8 * (element_bytes - array["bytes"])
            m.d.comb += [port.addr.eq(addr), port.write_data.eq(element[shift:shift + array["width"]]),
                         port.write_en.eq(write_pulse & (selected == index))]
        with m.Switch(selected):
            for index in range(len(self.memories)):
                with m.Case(index):
                    m.d.comb += read_data.eq(self.ports[index].read_data)
        m.d.comb += self.scalars.eq(scalars)

        # --- the header check, the cycle after its last byte -----------------------------------
        m.d.sync += [header_done.eq(0), write_pulse.eq(0), self.start.eq(0), self.scalars_write.eq(0)]
        with m.If(write_pulse):
            m.d.sync += addr.eq(addr + 1)          # after the element has gone in at addr
        with m.If(header_done):
            m.d.sync += [header_ok.eq(0), header_length_ok.eq(0), header_seen.eq(1), selected.eq(memory_id),
                         addr.eq(first), element_byte.eq(0)]
            with m.Switch(memory_id):
                for index, (array, bank) in enumerate(self.memories):
                    with m.Case(index):
                        in_bytes = elements * array["bytes"]       # times a constant: no multiplier
                        m.d.sync += [header_ok.eq(first + elements <= bank["depth"]),
                                     selected_bytes.eq(array["bytes"]), range_bytes.eq(in_bytes)]
                        expected = Mux(command == Command.WRITE_ARRAY,
                                       ARRAY_HEADER_BYTES + in_bytes, ARRAY_HEADER_BYTES)
                        m.d.sync += header_length_ok.eq(length == expected)
            m.d.sync += write_ok.eq(~self.running)

        # --- the reply: bytes to the transmitter -----------------------------------------------
        out_byte = Signal(8)
        out_valid = Signal()
        m.d.comb += [tx.bytes.payload.eq(out_byte), tx.bytes.valid.eq(out_valid)]
        with m.If(out_valid & tx.bytes.ready):
            m.d.sync += out_valid.eq(0)
        reply_crc = Signal(16)
        reply_length = Signal(16)
        left = Signal(16)                  # payload bytes still to send
        buffer_bytes = max(5, 1 + CYCLE_BYTES, self.result_bytes)
        buffer = Signal(8 * buffer_bytes)
        from_array = Signal()
        sent_of_element = Signal(range(element_bytes))
        outgoing = Signal(8 * element_bytes)

        def put(value, next_state, *, checked=True):
            with m.If(~out_valid):
                m.d.sync += [out_byte.eq(value), out_valid.eq(1)]
                if checked:
                    m.d.sync += reply_crc.eq(crc16_step(reply_crc, value))
                m.next = next_state

        in_frame = Signal()
        with m.If(in_frame & ~got):
            m.d.sync += stall.eq(stall + 1)
        with m.Else():
            m.d.sync += stall.eq(0)
        # Both registered, from registers: valid long before the next byte can come (a byte takes
        # 10 x clocks_per_bit cycles), and off the parser's critical path.
        timed_out = Signal()
        m.d.sync += timed_out.eq(stall == self.timeout_cycles - 1)
        last = Signal()                    # the next payload byte is the frame's last
        m.d.sync += last.eq(count + 1 == length)

        @contextlib.contextmanager
        def frame_byte(state):
            # A state inside a frame: the body runs on its next byte (taken into the CRC); a byte
            # that does not come within the stall timeout ends the frame.
            with m.State(state):
                m.d.comb += in_frame.eq(1)
                with m.If(got):
                    m.d.sync += crc.eq(crc16_step(crc, byte))
                    with m.If(rx.bytes.payload.framing_error):
                        m.d.sync += framing.eq(1)
                    yield
                with m.Elif(timed_out):
                    m.next = "timed_out"

        with m.FSM():
            with m.State("idle"):
                with m.If(got & (byte == REQUEST_SYNC) & ~rx.bytes.payload.framing_error):
                    m.d.sync += [crc.eq(0xFFFF), framing.eq(0), count.eq(0), header_seen.eq(0),
                                 command.eq(0)]
                    m.next = "command"
            with frame_byte("command"):
                m.d.sync += command.eq(byte)
                m.next = "length_low"
            with frame_byte("length_low"):
                m.d.sync += length[:8].eq(byte)
                m.next = "length_high"
            with frame_byte("length_high"):
                m.d.sync += length[8:].eq(byte)
                with m.If((byte == 0) & (length[:8] == 0)):
                    m.next = "crc_high"
                with m.Else():
                    m.next = "payload"
            with frame_byte("payload"):
                m.d.sync += count.eq(count + 1)
                is_array = (command == Command.WRITE_ARRAY) | (command == Command.READ_ARRAY)
                with m.If(is_array & (count < ARRAY_HEADER_BYTES)):
                    m.d.sync += header.eq(Cat(header[8:], byte))
                    with m.If(count == ARRAY_HEADER_BYTES - 1):
                        m.d.sync += header_done.eq(1)
                with m.Elif(command == Command.WRITE_ARRAY):
                    m.d.sync += [element.eq(Cat(element[8:], byte)), element_byte.eq(element_byte + 1)]
                    with m.If(element_byte == selected_bytes - 1):
                        m.d.sync += [element_byte.eq(0),
                                     write_pulse.eq(write_ok & header_ok & header_length_ok)]
                with m.Elif(command == Command.WRITE_SCALARS):
                    if self.scalar_bytes:
                        m.d.sync += scalars.eq(Cat(scalars[8:], byte))
                with m.If(last):
                    m.next = "crc_high"
            with frame_byte("crc_high"):
                m.next = "crc_low"
            with frame_byte("crc_low"):
                m.next = "check"
            self._execute(m, command, length, crc, framing, header_seen, header_ok, header_length_ok,
                          status, buffer, reply_length, from_array, range_bytes)
            with m.State("reply_sync"):
                m.d.sync += reply_crc.eq(0xFFFF)
                put(REPLY_SYNC, "reply_command", checked=False)
            with m.State("reply_command"):
                put(command, "reply_status")
            with m.State("reply_status"):
                put(status, "reply_length_low")
                m.d.sync += left.eq(reply_length)
            with m.State("reply_length_low"):
                put(reply_length[:8], "reply_length_high")
            with m.State("reply_length_high"):
                with m.If(reply_length == 0):
                    put(reply_length[8:], "reply_crc_high")
                with m.Elif(from_array):
                    put(reply_length[8:], "element_address")
                with m.Else():
                    put(reply_length[8:], "reply_buffer")
            with m.State("reply_buffer"):
                with m.If(~out_valid):
                    m.d.sync += [buffer.eq(buffer >> 8), left.eq(left - 1)]
                with m.If(left == 1):
                    put(buffer[:8], "reply_crc_high")
                with m.Else():
                    put(buffer[:8], "reply_buffer")
            with m.State("element_address"):
                m.next = "element_read"          # the address reaches the memory's read port
            with m.State("element_read"):
                m.d.sync += [outgoing.eq(read_data), sent_of_element.eq(0)]
                m.next = "element_bytes"
            with m.State("element_bytes"):
                with m.If(~out_valid):
                    m.d.sync += [outgoing.eq(outgoing >> 8), sent_of_element.eq(sent_of_element + 1),
                                 left.eq(left - 1)]
                    with m.If(sent_of_element == selected_bytes - 1):
                        m.d.sync += addr.eq(addr + 1)
                with m.If(left == 1):
                    put(outgoing[:8], "reply_crc_high")
                with m.Elif(sent_of_element == selected_bytes - 1):
                    put(outgoing[:8], "element_address")
                with m.Else():
                    put(outgoing[:8], "element_bytes")
            with m.State("reply_crc_high"):
                put(reply_crc[8:], "reply_crc_low", checked=False)
            with m.State("reply_crc_low"):
                put(reply_crc[:8], "reply_drain", checked=False)
            with m.State("reply_drain"):
                with m.If(~out_valid & tx.idle):
                    m.next = "idle"
            with m.State("timed_out"):
                m.d.sync += [status.eq(Status.TIMEOUT), reply_length.eq(0)]
                m.next = "reply_sync"
        return m

    def _execute(self, m, command, length, crc, framing, header_seen, header_ok, header_length_ok,
                 status, buffer, reply_length, from_array, range_bytes):
        """The states after a request's CRC: its status, its action, and its reply's payload.

        Three registered steps, so that no path from the parser's registers to the reply's is
        long: the command's checks one by one (``check``), their verdict in order of priority
        (``verdict``), and the action of a request that passed (``execute``).
        """
        known, length_ok, needs_idle, crc_ok, is_array = (Signal(name=name) for name in
                                                           ("known", "length_ok", "needs_idle", "crc_ok",
                                                            "is_array"))
        with m.State("check"):
            m.d.sync += [known.eq(0), length_ok.eq(0), needs_idle.eq(0), crc_ok.eq(crc == 0),
                         is_array.eq(0)]
            with m.Switch(command):
                for cmd in Command:
                    with m.Case(cmd):
                        m.d.sync += known.eq(1)
                        if cmd in (Command.WRITE_ARRAY, Command.READ_ARRAY):
                            # The header's own length check comes after its range check.
                            m.d.sync += [length_ok.eq(header_seen), is_array.eq(1)]
                        elif cmd == Command.WRITE_SCALARS:
                            m.d.sync += length_ok.eq(length == self.scalar_bytes)
                        else:
                            m.d.sync += length_ok.eq(length == 0)
                        if cmd not in (Command.HELLO, Command.STATUS):
                            m.d.sync += needs_idle.eq(1)
            m.next = "verdict"
        with m.State("verdict"):
            with m.If(framing):
                m.d.sync += status.eq(Status.FRAMING)
            with m.Elif(~crc_ok):
                m.d.sync += status.eq(Status.BAD_CRC)
            with m.Elif(~known):
                m.d.sync += status.eq(Status.UNKNOWN_COMMAND)
            with m.Elif(~length_ok):
                m.d.sync += status.eq(Status.BAD_LENGTH)
            with m.Elif(is_array & ~header_ok):
                m.d.sync += status.eq(Status.BAD_RANGE)
            with m.Elif(is_array & ~header_length_ok):
                m.d.sync += status.eq(Status.BAD_LENGTH)
            with m.Elif(needs_idle & self.running):
                m.d.sync += status.eq(Status.BUSY)
            with m.Else():
                m.d.sync += status.eq(Status.OK)
            m.next = "execute"
        with m.State("execute"):
            m.d.sync += [reply_length.eq(0), from_array.eq(0)]
            with m.If(status == Status.OK):
                with m.Switch(command):
                    with m.Case(Command.HELLO):
                        m.d.sync += [buffer.eq(Cat(Const(VERSION, 8), Const(self.signature_word, 32))),
                                     reply_length.eq(5)]
                    with m.Case(Command.STATUS):
                        m.d.sync += [buffer.eq(Cat(self.running, self.finished, Const(0, 6), self.cycles)),
                                     reply_length.eq(1 + CYCLE_BYTES)]
                    with m.Case(Command.READ_RESULTS):
                        m.d.sync += [buffer.eq(self.results), reply_length.eq(self.result_bytes)]
                    with m.Case(Command.READ_ARRAY):
                        m.d.sync += [reply_length.eq(range_bytes), from_array.eq(1)]
                    with m.Case(Command.WRITE_SCALARS):
                        m.d.sync += self.scalars_write.eq(1)
                    with m.Case(Command.START):
                        m.d.sync += self.start.eq(1)
            m.next = "reply_sync"
