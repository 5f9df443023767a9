"""Types of kernel parameters: Amaranth shapes for scalars, :class:`Array` for memories.

Also the small integer helpers both the golden model and the back end need to
agree on: the range of values a shape holds, and wrapping a Python integer to
a shape exactly as assigning it to an Amaranth signal of that shape would.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

from amaranth.hdl import Shape

__all__ = ["Array", "ArrayType", "shape_range", "fits", "wrap", "format_shape"]


@dataclass(frozen=True)
class ArrayType:
    """The type of an array parameter: ``hls.Array[shape, depth]``.

    Attributes
    ----------
    shape : Shape
        Shape of one element.
    depth : int or None
        Number of elements; ``None`` when the annotation left it out, which the
        front end reports as an error.
    """

    shape: Shape
    depth: int | None

    def __repr__(self) -> str:
        if self.depth is None:
            return f"hls.Array[{format_shape(self.shape)}]"
        return f"hls.Array[{format_shape(self.shape)}, {self.depth}]"


class Array:
    """Annotation of an array parameter, read and written by the kernel as a memory.

    ``hls.Array[signed(16), 64]`` is an array of 64 elements of shape
    ``signed(16)``. The kernel's writes are visible to the caller afterwards,
    as through a C pointer.

    Raises
    ------
    TypeError
        If the element shape is not an Amaranth :class:`Shape` or the depth is
        not a positive integer.
    """

    def __init__(self):
        raise TypeError("hls.Array is an annotation; write hls.Array[shape, depth]")

    def __class_getitem__(cls, item) -> ArrayType:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise TypeError(f"hls.Array takes [shape, depth], not {len(item)} items")
            shape, depth = item
        else:
            shape, depth = item, None
        if not isinstance(shape, Shape):
            raise TypeError(f"hls.Array element shape must be an Amaranth shape such as "
                            f"signed(16), not {shape!r}")
        if depth is not None:
            if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
                raise TypeError(f"hls.Array depth must be a positive integer, not {depth!r}")
            depth = int(depth)  # also numpy integers
        return ArrayType(shape, depth)


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
