"""The host side of the link: ``hls.board.connect(port, kernel)`` calls the kernel on a board.

::

    import hls.board
    run = hls.board.connect("/dev/ttyUSB1", gsumif)       # HELLO: refuses another kernel's bitstream
    outcome = run(a=[3, -4] + [0] * 62, n=2)               # the kernel's own signature
    outcome.result, outcome.cycles                         # 13, and the cycles counted on the board

A call writes every array (its banks, when partitioned) and the scalars,
starts the kernel, polls ``STATUS`` until it is done, reads the results and the
arrays the kernel stores to, and returns a :class:`BoardRun`. Arrays passed as
lists (or numpy arrays) are updated in place, as the kernel's Python call does.

``port`` is a device name, opened with pyserial (the ``board`` extra), or any
object with ``read(n)``, ``write(data)`` and ``timeout``, such as a
``serial.Serial`` already open or :class:`sim.board_link.SimulatedPort`.

Every failure on the link is a :class:`LinkError` with a one-line message.
After one, the next call first drains what the board still sends (it waits until
the line has been quiet for the port's timeout), says ``HELLO`` again, and goes on:
the board never needs a reset.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from amaranth.hdl import Shape

from ..compiler import compile_kernel
from ..types import Partition
from .protocol import (ARRAY_HEADER_BYTES, CYCLE_BYTES, REPLY_SYNC, VERSION, Command, Status, crc16,
                       decode_value, encode_value, kernel_signature_word, memory_map, request)

__all__ = ["connect", "BoardLink", "BoardRun", "LinkError", "LinkTimeout", "CrcError", "SignatureMismatch",
           "BoardError", "DEFAULT_BAUD", "CHUNK_BYTES"]

#: The baud rate of ``connect`` and of the boards' tops unless told otherwise: every USB-serial bridge has it.
DEFAULT_BAUD = 115200
#: Array data per ``WRITE_ARRAY``/``READ_ARRAY`` frame, at most.
CHUNK_BYTES = 4096


class LinkError(Exception):
    """A failure on the host link; its message is one line."""


class LinkTimeout(LinkError):
    """The board did not answer in time (or the kernel did not finish in ``run_timeout``)."""


class CrcError(LinkError):
    """A reply from the board failed its CRC."""


class SignatureMismatch(LinkError):
    """The board's bitstream is of another kernel, or speaks another protocol version."""


class BoardError(LinkError):
    """The board answered with an error status.

    Attributes
    ----------
    status : hls.board.protocol.Status
    """

    def __init__(self, message: str, status: Status):
        super().__init__(message)
        self.status = status


@dataclass
class BoardRun:
    """One call of a kernel on the board.

    Attributes
    ----------
    result : None, int or tuple of int
        What the kernel returns, as its Python call returns it.
    arrays : dict of str to list of int
        Every array after the run (those the kernel never stores to as they went in).
    cycles : int
        The run's length in the board's clock cycles, counted on the board (as
        :func:`sim.run` counts them).
    """

    result: object
    arrays: dict
    cycles: int

    def to_json(self) -> dict:
        """``{"return": ..., "arrays": {...}, "cycles": N}`` (a tuple result as a list)."""
        result = list(self.result) if isinstance(self.result, tuple) else self.result
        return {"return": result, "arrays": self.arrays, "cycles": self.cycles}


class BoardLink:
    """A kernel on a board, callable with the kernel's own signature (see :func:`connect`).

    Parameters
    ----------
    port : object with ``read``, ``write`` and ``timeout``
    kernel : hls.Kernel
    compiled : hls.compiler.CompiledKernel
        The kernel compiled for its target: the memory map and the signature word come from it.
    run_timeout : float
        Seconds (on the host's clock) a run may take before :class:`LinkTimeout`.
    close_port : bool
        Whether :meth:`close` closes ``port`` (it does when :func:`connect` opened it).

    Attributes
    ----------
    memory_map : dict
    signature_word : int
    """

    def __init__(self, port, kernel, compiled, *, run_timeout: float = 60.0, close_port: bool = False):
        self.port = port
        self.kernel = kernel
        self.memory_map = memory_map(compiled)
        self.signature_word = kernel_signature_word(compiled)
        self.run_timeout = run_timeout
        self._close_port = close_port
        self._stale = False
        self._shapes = {array["name"]: Shape(array["width"], array["signed"])
                        for array in self.memory_map["arrays"]}

    # --- frames ------------------------------------------------------------------------------

    def _read(self, count: int, what: str) -> bytes:
        data = bytearray()
        while len(data) < count:
            # pyserial's timeout bounds a whole read: 256 bytes take 2560 bit times, well inside
            # the default timeout of 6000 bit times (or 1 s) at any baud rate.
            asked = min(count - len(data), 256)
            chunk = self.port.read(asked)
            data += chunk
            if len(chunk) < asked:
                raise LinkTimeout(f"no reply from the board within {self.port.timeout:g} s ({what}: "
                                  f"{len(data)} of {count} bytes)")
        return bytes(data)

    def transact(self, command: int, payload: bytes = b"") -> bytes:
        """Send one request and return its reply's payload.

        Raises
        ------
        LinkError
            (its subclasses) no reply, a reply that fails its CRC or answers another
            command, or an error status from the board.
        """
        self.port.write(request(command, payload))
        name = command.name if isinstance(command, Command) else f"command 0x{command:02x}"
        what = f"reply to {name}"
        sync = self._read(1, what)[0]
        if sync != REPLY_SYNC:
            raise LinkError(f"{what}: the board sent 0x{sync:02x} where a reply starts with 0x{REPLY_SYNC:02x}")
        header = self._read(4, what)
        length = int.from_bytes(header[2:4], "little")
        rest = self._read(length + 2, what)
        if crc16(header + rest) != 0:
            raise CrcError(f"{what}: the reply failed its CRC (corrupted on the line)")
        if header[1] != Status.OK:
            try:
                status = Status(header[1])
            except ValueError:
                raise LinkError(f"{what}: unknown status 0x{header[1]:02x}") from None
            raise BoardError(f"the board refused {name}: {status.name} ({status.meaning})", status)
        if header[0] != command:
            # An error reply echoes the command as the board received it; a good one must be ours.
            raise LinkError(f"{what}: the board answered command 0x{header[0]:02x} (out of step)")
        return rest[:length]

    def hello(self) -> None:
        """The handshake: the board's protocol version and kernel signature word must be this host's.

        Raises
        ------
        SignatureMismatch
            Another version, or another kernel's bitstream.
        LinkError
            No (good) reply.
        """
        payload = self.transact(Command.HELLO)
        if len(payload) != 5:
            raise LinkError(f"reply to HELLO: {len(payload)} bytes, expected 5")
        version, word = payload[0], int.from_bytes(payload[1:5], "little")
        if version != VERSION:
            raise SignatureMismatch(f"the board speaks protocol version {version}; this host speaks {VERSION}")
        if word != self.signature_word:
            raise SignatureMismatch(f"the board's bitstream is not kernel {self.memory_map['kernel']}: its "
                                    f"signature is 0x{word:08x}, the kernel's 0x{self.signature_word:08x}")

    def resynchronise(self) -> None:
        """Drop what the board still sends (until the line is quiet for the port's timeout), then ``HELLO``."""
        reset = getattr(self.port, "reset_input_buffer", None)
        if reset is not None:
            reset()
        while self.port.read(4096):
            pass
        self.hello()
        self._stale = False

    # --- arrays ------------------------------------------------------------------------------

    def write_memory(self, memory_id: int, first: int, values: list[int], shape) -> None:
        """``WRITE_ARRAY`` frames putting ``values`` at elements ``first...`` of memory ``memory_id``."""
        size = len(encode_value(0, shape))
        per_frame = max(1, CHUNK_BYTES // size)
        for start in range(0, len(values), per_frame):
            part = values[start:start + per_frame]
            header = (bytes([memory_id]) + (first + start).to_bytes(2, "little")
                      + len(part).to_bytes(2, "little"))
            self.transact(Command.WRITE_ARRAY, header + b"".join(encode_value(v, shape) for v in part))

    def read_memory(self, memory_id: int, first: int, count: int, shape) -> list[int]:
        """``READ_ARRAY`` frames reading ``count`` elements from ``first`` of memory ``memory_id``."""
        size = len(encode_value(0, shape))
        per_frame = max(1, CHUNK_BYTES // size)
        values = []
        for start in range(0, count, per_frame):
            part = min(per_frame, count - start)
            header = bytes([memory_id]) + (first + start).to_bytes(2, "little") + part.to_bytes(2, "little")
            assert len(header) == ARRAY_HEADER_BYTES
            raw = self.transact(Command.READ_ARRAY, header)
            if len(raw) != part * size:
                raise LinkError(f"reply to READ_ARRAY: {len(raw)} bytes, expected {part * size}")
            values += [decode_value(raw[i:i + size], shape) for i in range(0, len(raw), size)]
        return values

    @staticmethod
    def _partition(array: dict) -> Partition | None:
        return None if array["partition"] is None else Partition(**array["partition"])

    def _banks(self, array: dict, values: list[int]) -> list[list[int]]:
        partition = self._partition(array)
        return [list(values)] if partition is None else partition.split(values, array["depth"])

    # --- a run -------------------------------------------------------------------------------

    def status(self) -> tuple[bool, bool, int]:
        """``(running, done, cycles)`` from a ``STATUS`` request."""
        payload = self.transact(Command.STATUS)
        if len(payload) != 1 + CYCLE_BYTES:
            raise LinkError(f"reply to STATUS: {len(payload)} bytes, expected {1 + CYCLE_BYTES}")
        return bool(payload[0] & 1), bool(payload[0] & 2), int.from_bytes(payload[1:], "little")

    def __call__(self, *args, **kwargs) -> BoardRun:
        """Run the kernel on the board with the arguments of its Python call.

        Raises
        ------
        TypeError, ValueError
            Arguments that do not fit the kernel's parameters (as its Python call), before
            anything is sent.
        LinkError
            A failure on the link, or a run longer than ``run_timeout``.
        """
        bound = self.kernel.golden_model().bind(args, kwargs)
        values = {array["name"]: [int(v) for v in bound[array["name"]]] for array in self.memory_map["arrays"]}
        if self._stale:
            self.resynchronise()
        self._stale = True          # until the run's last reply came in whole (a Ctrl-C too)
        outcome = self._run(bound, values)
        self._stale = False
        for name, contents in outcome.arrays.items():
            bound[name][:] = contents
        return outcome

    def _run(self, bound: dict, values: dict) -> BoardRun:
        for array in self.memory_map["arrays"]:
            shape = self._shapes[array["name"]]
            for bank, contents in zip(array["banks"], self._banks(array, values[array["name"]])):
                self.write_memory(bank["id"], 0, contents, shape)
        if self.memory_map["scalars"]:
            self.transact(Command.WRITE_SCALARS, b"".join(
                encode_value(int(bound[entry["name"]]), Shape(entry["width"], entry["signed"]))
                for entry in self.memory_map["scalars"]))
        self.transact(Command.START)
        deadline = time.monotonic() + self.run_timeout
        while True:
            _, done, cycles = self.status()
            if done:
                break
            if time.monotonic() > deadline:
                raise LinkTimeout(f"the kernel did not finish within {self.run_timeout:g} s "
                                  f"({cycles} cycles so far); it runs on until the board is reset")
        results = []
        if self.memory_map["results"]:
            raw = self.transact(Command.READ_RESULTS)
            for entry in self.memory_map["results"]:
                results.append(decode_value(raw[entry["offset"]:entry["offset"] + entry["bytes"]],
                                            Shape(entry["width"], entry["signed"])))
        arrays = {}
        for array in self.memory_map["arrays"]:
            if not array["written"]:
                arrays[array["name"]] = values[array["name"]]
                continue
            shape = self._shapes[array["name"]]
            banks = [self.read_memory(bank["id"], 0, bank["depth"], shape) for bank in array["banks"]]
            partition = self._partition(array)
            arrays[array["name"]] = banks[0] if partition is None else partition.join(banks, array["depth"])
        result = None if not results else results[0] if len(results) == 1 else tuple(results)
        return BoardRun(result, arrays, cycles)

    def close(self) -> None:
        """Close the port if :func:`connect` opened it."""
        if self._close_port:
            self.port.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _open_serial(port: str, baud: int, timeout: float):
    try:
        import serial    # optional: pyserial, the `board` extra, only for a device name
    except ModuleNotFoundError:
        raise LinkError(f"{port}: opening a serial port needs pyserial (pip install 'axhls[board]')") from None
    try:
        return serial.Serial(port, baudrate=baud, timeout=timeout)
    except (serial.SerialException, ValueError, OSError) as error:
        message = " ".join(str(error).splitlines())
        raise LinkError(f"{port}: cannot open the serial port: {message}") from None


def connect(port, kernel, *, baud: int = DEFAULT_BAUD, timeout: float | None = None,
            run_timeout: float = 60.0) -> BoardLink:
    """A callable running ``kernel`` on the board behind ``port``, after a handshake.

    Parameters
    ----------
    port : str or object with ``read``, ``write`` and ``timeout``
        A serial device (``"/dev/ttyUSB1"``, ``"COM3"``), opened with pyserial at ``baud``;
        or a port already open (``serial.Serial``, :class:`sim.board_link.SimulatedPort`),
        used as it is (``baud`` and ``timeout`` then do not apply).
    kernel : hls.Kernel
        Compiled here for its own target, as ``axhls build`` compiles it.
    baud : int
        The board's baud rate (its top's, see the build's manifest).
    timeout : float, optional
        Seconds without a byte before a reply counts as lost; by default the larger of 1 s
        and 600 byte times (above the board's stall timeout).
    run_timeout : float
        Seconds a run may take.

    Returns
    -------
    BoardLink
        Call it as the kernel: ``link(a=[...], n=4)`` returns a :class:`BoardRun`.

    Raises
    ------
    LinkError
        The port cannot be opened, the board does not answer, or it holds another kernel
        (:class:`SignatureMismatch`); one line.
    hls.errors.KernelSyntaxError
        A kernel outside the language.
    """
    compiled = compile_kernel(kernel)
    opened = isinstance(port, str)
    if opened:
        if isinstance(baud, bool) or not isinstance(baud, int) or baud <= 0:
            raise ValueError(f"baud must be a positive integer, not {baud!r}")
        port = _open_serial(port, baud, timeout if timeout is not None else max(1.0, 6000 / baud))
    link = BoardLink(port, kernel, compiled, run_timeout=run_timeout, close_port=opened)
    try:
        link.hello()
    except BaseException:
        link.close()
        raise
    return link
