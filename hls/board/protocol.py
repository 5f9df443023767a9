"""The host link's framed protocol, in pure Python: shared by the host, the board's top and the tests.

Frames
------
The host sends *requests*, the board answers each with exactly one *reply*::

    request:  0xA5  CMD  LEN_lo LEN_hi  PAYLOAD[LEN]          CRC_hi CRC_lo
    reply:    0x5A  CMD  STATUS  LEN_lo LEN_hi  PAYLOAD[LEN]  CRC_hi CRC_lo

``CRC`` is CRC-16/CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no
reflection, no final XOR) over every byte after the sync byte and before the
CRC; it is sent most significant byte first, so the CRC of a whole frame after
its sync byte is 0 (the board checks that). A reply echoes the request's
``CMD``; ``STATUS`` is 0 (:attr:`Status.OK`) or an error, and an error reply has
no payload. Numbers are little-endian; a value of ``w`` bits takes
``ceil(w / 8)`` bytes, two's complement when signed.

Commands (:class:`Command`)
---------------------------
``HELLO``          no payload; reply: protocol version (1 byte), kernel signature word (4 bytes).
``WRITE_ARRAY``    memory id (1), first element (2), count (2), then ``count`` elements.
``READ_ARRAY``     memory id (1), first element (2), count (2); reply: ``count`` elements.
``WRITE_SCALARS``  every scalar argument, in parameter order (see :func:`memory_map`).
``START``          no payload: starts the kernel (its scalars are latched now).
``STATUS``         no payload; reply: flags (1 byte: bit 0 running, bit 1 done since the last
                   start), cycle count of the last run (6 bytes).
``READ_RESULTS``   no payload; reply: every result, in order.

A *memory* is one array of the kernel, or one bank of a partitioned array; its
id, element width and depth are in the kernel's :func:`memory_map`. Arrays are
reached only while the kernel is idle (:attr:`Status.BUSY` otherwise).

The board discards a frame whose next byte does not come within its stall
timeout and replies :attr:`Status.TIMEOUT`; it never needs a reset. The array
elements of a ``WRITE_ARRAY`` are written as they arrive, before the CRC at the
end is checked: after an error reply the range's contents are unknown, and the
host writes them again (it writes every array before each run).
"""

from __future__ import annotations

import enum
import hashlib
import json

from amaranth.hdl import Shape

from ..backend.component import kernel_signature
from ..ir.ops import operator_of

__all__ = ["VERSION", "REQUEST_SYNC", "REPLY_SYNC", "Command", "Status", "crc16", "request",
           "reply", "value_bytes", "encode_value", "decode_value", "memory_map",
           "kernel_signature_word", "ARRAY_HEADER_BYTES", "STATUS_PAYLOAD_BYTES", "CYCLE_BYTES",
           "MAX_PAYLOAD", "MAX_MEMORIES", "MAX_DEPTH"]

#: The protocol version the board announces in its ``HELLO`` reply.
VERSION = 1
REQUEST_SYNC = 0xA5
REPLY_SYNC = 0x5A
#: Memory id, first element and count of ``WRITE_ARRAY`` and ``READ_ARRAY``.
ARRAY_HEADER_BYTES = 5
#: Bytes of the cycle count in a ``STATUS`` reply.
CYCLE_BYTES = 6
STATUS_PAYLOAD_BYTES = 1 + CYCLE_BYTES
#: The largest payload a 16-bit ``LEN`` holds.
MAX_PAYLOAD = 0xFFFF
#: Memory ids are one byte; first elements and counts two.
MAX_MEMORIES = 256
MAX_DEPTH = 0xFFFF


class Command(enum.IntEnum):
    HELLO = 0x01
    WRITE_ARRAY = 0x02
    READ_ARRAY = 0x03
    WRITE_SCALARS = 0x04
    START = 0x05
    STATUS = 0x06
    READ_RESULTS = 0x07


class Status(enum.IntEnum):
    """The ``STATUS`` byte of a reply; every value but ``OK`` is an error, with a one-line meaning."""

    OK = 0
    BAD_CRC = 1
    TIMEOUT = 2
    UNKNOWN_COMMAND = 3
    BAD_LENGTH = 4
    BAD_RANGE = 5
    BUSY = 6
    FRAMING = 7

    @property
    def meaning(self) -> str:
        return _MEANINGS[self]


_MEANINGS = {
    Status.OK: "ok",
    Status.BAD_CRC: "the request's CRC did not match (corrupted on the line)",
    Status.TIMEOUT: "the request stopped part-way (a byte did not come within the board's stall timeout)",
    Status.UNKNOWN_COMMAND: "unknown command",
    Status.BAD_LENGTH: "the payload length does not fit the command",
    Status.BAD_RANGE: "no such memory, or the element range is outside it",
    Status.BUSY: "the kernel is running",
    Status.FRAMING: "a byte of the request had no stop bit (wrong baud rate?)",
}


def _crc_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/CCITT-FALSE of ``data`` (``crc16(b"123456789") == 0x29B1``), continuing from ``crc``."""
    for byte in data:
        crc = ((crc << 8) & 0xFFFF) ^ _CRC_TABLE[(crc >> 8) ^ byte]
    return crc


def _framed(sync: int, body: bytes) -> bytes:
    return bytes([sync]) + body + crc16(body).to_bytes(2, "big")


def request(command: int, payload: bytes = b"") -> bytes:
    """The request frame of ``command`` with ``payload``.

    Raises
    ------
    ValueError
        A payload longer than :data:`MAX_PAYLOAD` bytes.
    """
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes; at most {MAX_PAYLOAD} fit a frame")
    return _framed(REQUEST_SYNC, bytes([int(command)]) + len(payload).to_bytes(2, "little") + bytes(payload))


def reply(command: int, status: int, payload: bytes = b"") -> bytes:
    """The reply frame the board sends (the model the tests compare the hardware with)."""
    return _framed(REPLY_SYNC, bytes([int(command), int(status)]) + len(payload).to_bytes(2, "little")
                   + bytes(payload))


def value_bytes(width: int) -> int:
    """Bytes on the wire of a ``width``-bit value (at least one)."""
    return max(1, -(-width // 8))


def encode_value(value: int, shape) -> bytes:
    """``value`` (which fits ``shape``) as its :func:`value_bytes`, little-endian two's complement."""
    shape = Shape.cast(shape)
    count = value_bytes(shape.width)
    return (int(value) & ((1 << (8 * count)) - 1)).to_bytes(count, "little")


def decode_value(raw: bytes, shape) -> int:
    """The value of ``shape`` in the low bits of ``raw`` (little-endian), sign-extended when signed."""
    shape = Shape.cast(shape)
    value = int.from_bytes(raw, "little") & ((1 << shape.width) - 1)
    if shape.signed and shape.width and value >> (shape.width - 1):
        value -= 1 << shape.width
    return value


def _value(name: str, shape: Shape, offset: int) -> dict:
    return {"name": name, "width": shape.width, "signed": shape.signed, "bytes": value_bytes(shape.width),
            "offset": offset}


def _written_arrays(ir) -> set[str]:
    """The arrays the kernel stores to (the others come back as they went in)."""
    return {op.attrs["array"] for block in ir.blocks() for op in block.ops
            if operator_of(op.kind).writes_memory}


class UnreachableKernel(ValueError):
    """A kernel whose interface the link cannot carry (stream ports)."""


def _interface(compiled) -> dict:
    ir = compiled.ir
    signature = kernel_signature(ir)
    if signature.streams:
        # The link carries arrays and scalars; a stream port left unconnected would hang the run.
        raise UnreachableKernel(f"kernel {ir.name!r} has stream ports ({', '.join(signature.streams)}), which the "
                         f"host link does not carry: only arrays and scalars reach a board")
    written = _written_arrays(ir)
    scalars, offset = [], 0
    for name, shape in signature.scalars.items():
        scalars.append(_value(name, shape, offset))
        offset += value_bytes(shape.width)
    results, offset = [], 0
    for name, shape in signature.results:
        results.append(_value(name, shape, offset))
        offset += value_bytes(shape.width)
    arrays, memory = [], 0
    for name, (shape, depth) in signature.arrays.items():
        partition = signature.partitions.get(name)
        banks = []
        for _, _, bank_depth in signature.bank_groups[name]:
            banks.append({"id": memory, "depth": bank_depth})
            memory += 1
        arrays.append({"name": name, "width": shape.width, "signed": shape.signed, "depth": depth,
                       "bytes": value_bytes(shape.width), "written": name in written,
                       "partition": None if partition is None else {"kind": partition.kind,
                                                                    "factor": partition.factor},
                       "banks": banks})
    return {"protocol": VERSION, "kernel": ir.name, "scalars": scalars, "results": results,
            "arrays": arrays, "memories": memory}


def kernel_signature_word(compiled) -> int:
    """A 32-bit word naming the kernel's interface: its name, scalars, results and arrays.

    The first four bytes (little-endian) of the SHA-256 of the canonical JSON of the
    :func:`memory_map` without its ``signature``, so it is the same on every machine and run.
    The board answers ``HELLO`` with it; a host whose kernel gives another word refuses
    to drive the board. Two kernels of the same name and interface whose bodies differ
    give the same word.
    """
    text = json.dumps(_interface(compiled), sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def memory_map(compiled) -> dict:
    """What the link reaches on the board, JSON-serialisable.

    ``{"protocol": VERSION, "kernel": NAME, "signature": "0x1234abcd", "memories": N,
    "scalars": [...], "results": [...], "arrays": [...]}``: each scalar and result is
    ``{"name", "width", "signed", "bytes", "offset"}`` (``offset``: its first byte in the
    ``WRITE_SCALARS`` or ``READ_RESULTS`` payload); each array is ``{"name", "width",
    "signed", "depth", "bytes" (per element), "written" (whether the kernel stores to it),
    "partition" (``None`` or ``{"kind", "factor"}``), "banks": [{"id", "depth"}, ...]}``,
    its memories in bank order (one for an array that is not partitioned).

    Raises
    ------
    UnreachableKernel
        The kernel has stream ports: the link carries only arrays and scalars.
    """
    interface = _interface(compiled)
    return {**interface, "signature": f"0x{kernel_signature_word(compiled):08x}"}
