"""Types of kernel parameters: Amaranth shapes for scalars, :class:`Array` for memories.

Also the small integer helpers both the golden model and the back end need to
agree on: the range of values a shape holds, and wrapping a Python integer to
a shape exactly as assigning it to an Amaranth signal of that shape would.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from amaranth.hdl import Shape, signed, unsigned

__all__ = ["Array", "ArrayType", "Stream", "StreamType", "Partition", "partition", "shape_range", "fits", "wrap",
           "format_shape", "bare_shape_function"]

#: The ways an array can be split into banks.
PARTITION_KINDS = ("cyclic", "block", "complete")


def _is_power_of_two(value: int) -> bool:
    return value >= 1 and value & (value - 1) == 0


@dataclass(frozen=True)
class Partition:
    """How an array is split into banks, each with its own ports: ``hls.partition(kind, factor)``.

    * ``cyclic`` with factor ``k``: element ``i`` is in bank ``i % k`` at offset ``i // k``;
    * ``block`` with factor ``k``: blocks of ``depth // k`` consecutive elements, element
      ``i`` in bank ``i // (depth // k)`` at offset ``i % (depth // k)``;
    * ``complete``: every element is a bank of its own.

    Bank and offset are bit fields of the index (no divider in hardware), so a cyclic
    factor must be a power of two, and a block partition needs ``depth // k`` a power of
    two that divides the depth.

    Attributes
    ----------
    kind : str
        ``"cyclic"``, ``"block"`` or ``"complete"``.
    factor : int or None
        Number of banks; ``None`` for ``complete`` (one bank per element).
    """

    kind: str
    factor: int | None = None

    def banks(self, depth: int) -> int:
        """Number of banks of an array of ``depth`` elements."""
        return depth if self.kind == "complete" else self.factor

    def bank_depth(self, depth: int) -> int:
        """Elements per bank."""
        if self.kind == "complete":
            return 1
        return -(-depth // self.factor)

    def locate(self, index: int, depth: int) -> tuple[int, int]:
        """``(bank, offset)`` of element ``index``."""
        if self.kind == "complete":
            return index, 0
        if self.kind == "cyclic":
            return index % self.factor, index // self.factor
        size = self.bank_depth(depth)
        return index // size, index % size

    def split(self, values: list[int], depth: int) -> list[list[int]]:
        """The contents of each bank of an array holding ``values`` (padded with 0)."""
        banks = [[0] * self.bank_depth(depth) for _ in range(self.banks(depth))]
        for index, value in enumerate(values):
            bank, offset = self.locate(index, depth)
            banks[bank][offset] = value
        return banks

    def join(self, banks: list[list[int]], depth: int) -> list[int]:
        """The array's ``depth`` elements from the contents of its banks (inverse of :meth:`split`)."""
        out = []
        for index in range(depth):
            bank, offset = self.locate(index, depth)
            out.append(banks[bank][offset])
        return out

    def check(self, depth: int) -> str | None:
        """Why this partition cannot split an array of ``depth`` elements, or ``None``."""
        if self.kind == "complete":
            return None
        if self.factor > depth:
            return f"{self.kind} partition factor {self.factor} is larger than the depth {depth}"
        if self.kind == "cyclic" and not _is_power_of_two(self.factor):
            return (f"cyclic partition factor must be a power of two (the bank is the index's low "
                    f"bits), not {self.factor}")
        if self.kind == "block" and (depth % self.factor or not _is_power_of_two(depth // self.factor)):
            return (f"block partition of depth {depth} by {self.factor}: the block size depth // factor "
                    f"must be a whole power of two (the bank is the index's high bits)")
        return None

    def __repr__(self) -> str:
        if self.kind == "complete":
            return 'hls.partition("complete")'
        return f"hls.partition({self.kind!r}, {self.factor})"


def partition(kind: str, factor: int | None = None) -> Partition:
    """A partition of an array into banks, each with its own read and write port.

    ``hls.Array[signed(16), 64, hls.partition("cyclic", 4)]`` makes four banks
    (``a_read_0`` ... ``a_read_3``); ``hls.partition("block", 2)`` two halves;
    ``hls.partition("complete")`` one bank per element.

    Parameters
    ----------
    kind : str
        ``"cyclic"``, ``"block"`` or ``"complete"``.
    factor : int or None
        Number of banks, a positive integer (``cyclic`` and ``block``); not given for ``complete``.

    Raises
    ------
    ValueError
        An unknown kind, a factor missing, given for ``complete``, or not a positive integer.
    """
    if kind not in PARTITION_KINDS:
        raise ValueError(f"partition kind must be one of {', '.join(map(repr, PARTITION_KINDS))}, not {kind!r}")
    if kind == "complete":
        if factor is not None:
            raise ValueError('hls.partition("complete") takes no factor (every element is a bank)')
        return Partition(kind)
    if isinstance(factor, bool) or not isinstance(factor, numbers.Integral) or factor < 1:
        raise ValueError(f"hls.partition({kind!r}, factor): factor must be a positive integer, not {factor!r}")
    return Partition(kind, int(factor))


@dataclass(frozen=True)
class ArrayType:
    """The type of an array parameter: ``hls.Array[shape, depth]`` or
    ``hls.Array[shape, depth, hls.partition(...)]``.

    Attributes
    ----------
    shape : Shape
        Shape of one element.
    depth : int or None
        Number of elements; ``None`` when the annotation left it out, which the
        front end reports as an error.
    partition : Partition or None
        How the array is split into banks; ``None`` for one memory.
    """

    shape: Shape
    depth: int | None
    partition: Partition | None = None

    def __repr__(self) -> str:
        if self.depth is None:
            return f"hls.Array[{format_shape(self.shape)}]"
        if self.partition is not None:
            return f"hls.Array[{format_shape(self.shape)}, {self.depth}, {self.partition!r}]"
        return f"hls.Array[{format_shape(self.shape)}, {self.depth}]"


class Array:
    """Annotation of an array parameter, read and written by the kernel as a memory.

    ``hls.Array[signed(16), 64]`` is an array of 64 elements of shape
    ``signed(16)``. The kernel's writes are visible to the caller afterwards,
    as through a C pointer. ``hls.Array[signed(16), 64, hls.partition("cyclic", 4)]``
    splits it into banks, each with its own ports.

    Raises
    ------
    TypeError
        If the element shape is not an Amaranth :class:`Shape`, the depth is
        not a positive integer, or the third item is not an ``hls.partition``.
    ValueError
        If the partition cannot split an array of that depth (:meth:`Partition.check`).
    """

    def __init__(self):
        raise TypeError("hls.Array is an annotation; write hls.Array[shape, depth]")

    def __class_getitem__(cls, item) -> ArrayType:
        layout = None
        if isinstance(item, tuple):
            if len(item) == 3:
                shape, depth, layout = item
                if not isinstance(layout, Partition):
                    raise TypeError(f"hls.Array takes [shape, depth, hls.partition(...)]: the third item is {layout!r}")
            elif len(item) == 2:
                shape, depth = item
            else:
                raise TypeError(f"hls.Array takes [shape, depth] or [shape, depth, hls.partition(...)], "
                                f"not {len(item)} items")
        else:
            shape, depth = item, None
        if not isinstance(shape, Shape):
            bare = bare_shape_function(shape)
            given = f"{bare} without a width (write {bare}(N))" if bare else repr(shape)
            raise TypeError(f"hls.Array element shape must be an Amaranth shape such as "
                            f"signed(16), not {given}")
        if depth is not None:
            if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
                raise TypeError(f"hls.Array depth must be a positive integer, not {depth!r}")
            depth = int(depth)  # also numpy integers
            if layout is not None and layout.check(depth) is not None:
                raise ValueError(layout.check(depth))
        return ArrayType(shape, depth, layout)


@dataclass(frozen=True)
class StreamType:
    """The type of a stream parameter: ``hls.Stream[shape]``.

    Whether the stream is an input or an output is not part of the type: the front end
    infers it from the body (``s.read()`` makes an input, ``s.write(v)`` an output).

    Attributes
    ----------
    shape : Shape
        Shape of one token (the payload of ``amaranth.lib.stream.Signature(shape)``).
    """

    shape: Shape

    def __repr__(self) -> str:
        return f"hls.Stream[{format_shape(self.shape)}]"


class Stream:
    """Annotation of a stream parameter: tokens read (``x = s.read()``) or written (``s.write(v)``).

    ``hls.Stream[signed(16)]`` carries tokens of shape ``signed(16)``. A stream the
    body reads is an input port with the flipped signature of
    ``amaranth.lib.stream.Signature(shape)``; one it writes is an output port with
    that signature. The golden model reads an input from any Python iterable and
    appends an output's tokens to a list.

    Raises
    ------
    TypeError
        If the token shape is not an Amaranth :class:`Shape` (or more than one item is given).
    """

    def __init__(self):
        raise TypeError("hls.Stream is an annotation; write hls.Stream[shape], e.g. hls.Stream[signed(16)]")

    def __class_getitem__(cls, item) -> StreamType:
        if isinstance(item, tuple):
            raise TypeError(f"hls.Stream takes one item, the token shape (hls.Stream[signed(16)]), "
                            f"not {len(item)} items")
        if not isinstance(item, Shape):
            bare = bare_shape_function(item)
            given = f"{bare} without a width (write {bare}(N))" if bare else repr(item)
            raise TypeError(f"hls.Stream token shape must be an Amaranth shape such as signed(16), not {given}")
        return StreamType(item)


def bare_shape_function(value) -> str | None:
    """``"unsigned"`` or ``"signed"`` when ``value`` is Amaranth's function itself, written where
    a shape was meant (``n: unsigned`` for ``n: unsigned(8)``); otherwise ``None``."""
    if value is unsigned or value is signed:
        return value.__name__
    return None


def format_shape(shape: Shape) -> str:
    """``signed(16)`` / ``unsigned(8)``, as the user writes it."""
    return f"{'signed' if shape.signed else 'unsigned'}({shape.width})"


def shape_range(shape: Shape) -> tuple[int, int]:
    """The smallest and largest value ``shape`` holds, inclusive."""
    if shape.signed:
        if shape.width == 0:
            return 0, 0
        return -(1 << (shape.width - 1)), (1 << (shape.width - 1)) - 1
    return 0, (1 << shape.width) - 1


def fits(value: int, shape: Shape) -> bool:
    """Whether ``value`` is representable in ``shape`` without wrapping."""
    low, high = shape_range(shape)
    return low <= value <= high


def wrap(value: int, shape: Shape) -> int:
    """``value`` reduced to ``shape`` as Amaranth does on assignment (two's complement)."""
    width = shape.width
    value &= (1 << width) - 1
    if shape.signed and width and value >> (width - 1):
        value -= 1 << width
    return value
