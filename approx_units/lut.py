"""Lookup tables of 8-bit units, in the formats DNN frameworks load approximate multipliers from.

Two frameworks emulate an approximate multiplier in a neural network by
looking its products up in a 256 x 256 table:

``tfapprox`` (TFApprox, ehw-fit/tf-approximate)
    A raw binary file of 65,536 native-endian ``uint16`` values; the entry of
    unsigned 8-bit operands ``a`` and ``b`` is at index ``(a << 8) | b``.
    Unsigned operands only.
``adapt`` (AdaPT, dimdano/adapt)
    A C header declaring ``const int16_t lut[256][256]``; the entry of signed
    8-bit operands ``a`` and ``b`` is ``lut[(uint8_t)a][(uint8_t)b]``.
    Signed operands only.

:func:`lookup_table` computes the table of any subject with a bit-exact
``model(a, b)`` (a library :class:`~approx_units.registry.Unit`, or a third-party
circuit from :func:`approx_units.verilog_eval.load_verilog`); the writers
refuse what a format cannot hold, with a one-line :class:`LutError`, and the
readers turn a file back into the table, so that a file can be checked entry
by entry against the model.
"""

from __future__ import annotations

import re

import numpy as np

__all__ = ["FORMATS", "OPERAND_WIDTH", "LutError", "operands_signed", "lookup_table", "check_subject", "to_tfapprox",
           "to_adapt", "encode", "read_tfapprox", "read_adapt", "decode"]

#: The operand width both formats are defined for.
OPERAND_WIDTH = 8

#: Format -> (operands signed, numpy type of an entry, what it is for).
FORMATS = {
    "tfapprox": (False, np.uint16, "TFApprox: raw native-endian uint16[65536], index (a << 8) | b, unsigned"),
    "adapt": (True, np.int16, "AdaPT: C header const int16_t lut[256][256], index [(uint8_t)a][(uint8_t)b], signed"),
}


class LutError(ValueError):
    """A subject that a lookup-table format cannot hold; the message is one line."""


def operands_signed(subject) -> bool:
    """Whether ``subject`` (a unit or a Verilog netlist) takes two's complement operands."""
    params = getattr(subject, "params", None) or {}
    return bool(params.get("signed", getattr(subject, "signed", False)))


def _widths(subject) -> tuple[int, int]:
    width = subject.width
    width_b = getattr(subject, "width_b", None) or width
    return width, width_b


def _label(subject) -> str:
    return getattr(subject, "description", None) or getattr(subject, "name", None) or repr(subject)


def check_subject(subject, format: str) -> None:
    """Check that ``subject``'s operands suit ``format`` (before any work is done).

    Raises
    ------
    LutError
        An unknown format, operands that are not 8 bits wide, or the wrong signedness.
    """
    if format not in FORMATS:
        raise LutError(f"unknown lookup-table format {format!r}; choose from {', '.join(FORMATS)}")
    signed = FORMATS[format][0]
    width, width_b = _widths(subject)
    if (width, width_b) != (OPERAND_WIDTH, OPERAND_WIDTH):
        raise LutError(f"{format} tables are for {OPERAND_WIDTH} x {OPERAND_WIDTH}-bit operands "
                       f"(256 x 256 entries), not {width} x {width_b} bits")
    if operands_signed(subject) != signed:
        wanted = "signed (two's complement)" if signed else "unsigned"
        name = getattr(subject, "name", None) or _label(subject)
        raise LutError(f"{format} tables take {wanted} operands, but {name!r} takes "
                       f"{'signed' if operands_signed(subject) else 'unsigned'} ones")


def lookup_table(subject) -> np.ndarray:
    """The 256 x 256 table of ``subject``'s outputs, ``table[i][j] = model(op(i), op(j))``.

    ``op(i)`` is ``i`` for unsigned subjects and the two's complement value of
    the byte ``i`` (``i - 256`` from 128 on) for signed ones, so the index is
    the operand's byte, as ``(uint8_t)a`` is in C.

    Returns
    -------
    numpy.ndarray
        ``int64``, shape ``(256, 256)``.
    """
    width, width_b = _widths(subject)
    if (width, width_b) != (OPERAND_WIDTH, OPERAND_WIDTH):
        raise LutError(f"lookup tables are for {OPERAND_WIDTH} x {OPERAND_WIDTH}-bit operands, "
                       f"not {width} x {width_b} bits")
    index = np.arange(1 << OPERAND_WIDTH, dtype=np.int64)
    operand = np.where(index >= 128, index - 256, index) if operands_signed(subject) else index
    a = np.repeat(operand, 256)
    b = np.tile(operand, 256)
    return np.asarray(subject.model(a, b), dtype=np.int64).reshape(256, 256)


def _fit(table: np.ndarray, format: str, subject) -> np.ndarray:
    _, dtype, _ = FORMATS[format]
    info = np.iinfo(dtype)
    low, high = int(table.min()), int(table.max())
    if low < info.min or high > info.max:
        raise LutError(f"{_label(subject)} outputs {low}..{high}, outside the {np.dtype(dtype).name} "
                       f"entries ({info.min}..{info.max}) that {format} tables hold")
    return table.astype(dtype)


def to_tfapprox(subject) -> bytes:
    """The TFApprox file of ``subject``: 65,536 native-endian ``uint16``, index ``(a << 8) | b``.

    Raises
    ------
    LutError
        The subject is signed, not 8 x 8 bits, or has outputs outside ``uint16``.
    """
    check_subject(subject, "tfapprox")
    # numpy's uint16 is the machine's own byte order, as TFApprox reads the file.
    return _fit(lookup_table(subject), "tfapprox", subject).tobytes()


def to_adapt(subject, *, name: str = "lut") -> str:
    """The AdaPT header of ``subject``: ``const int16_t lut[256][256]``, index ``[(uint8_t)a][(uint8_t)b]``.

    Raises
    ------
    LutError
        The subject is unsigned, not 8 x 8 bits, or has outputs outside ``int16``.
    """
    check_subject(subject, "adapt")
    table = _fit(lookup_table(subject), "adapt", subject)
    rows = ",\n".join("    {" + ", ".join(str(int(v)) for v in row) + "}" for row in table)
    guard = re.sub(r"\W", "_", name).upper() + "_H"
    return (f"/* {_label(subject)}: products of signed 8-bit operands a, b at "
            f"{name}[(uint8_t)a][(uint8_t)b]. Generated by axhls. */\n"
            f"#ifndef {guard}\n#define {guard}\n\n#include <stdint.h>\n\n"
            f"const int16_t {name}[256][256] = {{\n{rows}\n}};\n\n#endif\n")


def encode(subject, format: str) -> bytes:
    """The file contents of ``subject``'s table in ``format`` (``tfapprox`` or ``adapt``)."""
    check_subject(subject, format)
    if format == "tfapprox":
        return to_tfapprox(subject)
    return to_adapt(subject).encode("ascii")


def read_tfapprox(data: bytes) -> np.ndarray:
    """A TFApprox file as its 256 x 256 ``uint16`` table (``table[a][b]``)."""
    if len(data) != 65536 * 2:
        raise LutError(f"a tfapprox table has 131072 bytes (65,536 uint16), not {len(data)}")
    return np.frombuffer(data, dtype=np.uint16).reshape(256, 256).copy()


def read_adapt(text: str) -> np.ndarray:
    """An AdaPT header as its 256 x 256 ``int16`` table (``table[(uint8_t)a][(uint8_t)b]``)."""
    match = re.search(r"int16_t\s+\w+\s*\[\s*256\s*\]\s*\[\s*256\s*\]\s*=\s*\{(.*)\}\s*;", text, re.DOTALL)
    if match is None:
        raise LutError("no 'int16_t NAME[256][256] = {...};' declaration in the header")
    values = [int(v) for v in re.findall(r"-?\d+", match.group(1))]
    if len(values) != 65536:
        raise LutError(f"the table has {len(values)} entries, not 65,536")
    return np.array(values, dtype=np.int16).reshape(256, 256)


def decode(data: bytes, format: str) -> np.ndarray:
    """The table in a file of ``format``, as ``int64`` (256 x 256)."""
    if format == "tfapprox":
        return read_tfapprox(data).astype(np.int64)
    if format == "adapt":
        return read_adapt(data.decode("ascii")).astype(np.int64)
    raise LutError(f"unknown lookup-table format {format!r}; choose from {', '.join(FORMATS)}")
