"""Loop pragmas ``hls.pipeline``, ``hls.sequential`` and ``hls.unroll``, and local arrays ``hls.local``.

In the golden (Python) run the loop pragmas return the range they wrap, so the
loop runs as written; the front end recognises them and records a
:class:`~hls.frontend.typed.LoopPragma` on the loop (or, for ``hls.unroll``,
copies the body). ``hls.local`` gives a zero-initialised list, which is what
the golden model makes of a local array.
"""

from __future__ import annotations

import numbers

from ..types import Partition

__all__ = ["pipeline", "sequential", "unroll", "local", "MAX_UNROLL"]

#: Most copies of a loop body ``hls.unroll`` makes (the front end rejects more).
MAX_UNROLL = 256


def pipeline(iterable: range, ii: int | None = None) -> range:
    """Pipeline this loop, at initiation interval ``ii`` if given (else the minimum).

    Parameters
    ----------
    iterable : range
        The loop's ``range(...)``.
    ii : int or None
        Target initiation interval, a positive integer constant.

    Raises
    ------
    TypeError
        If ``iterable`` is not a ``range``.
    ValueError
        If ``ii`` is not a positive integer.
    """
    if not isinstance(iterable, range):
        raise TypeError(f"hls.pipeline wraps a range(...), not {iterable!r}")
    if ii is not None and (isinstance(ii, bool) or not isinstance(ii, int) or ii < 1):
        raise ValueError(f"hls.pipeline ii must be a positive integer, not {ii!r}")
    return iterable


def sequential(iterable: range) -> range:
    """Run this loop without pipelining: one iteration finishes before the next starts.

    Raises
    ------
    TypeError
        If ``iterable`` is not a ``range``.
    """
    if not isinstance(iterable, range):
        raise TypeError(f"hls.sequential wraps a range(...), not {iterable!r}")
    return iterable


def unroll(iterable: range, factor: int | None = None) -> range:
    """Unroll this loop: fully (constant bounds), or ``factor`` copies of the body per iteration.

    Parameters
    ----------
    iterable : range
        The loop's ``range(...)``.
    factor : int or None
        Copies per iteration of the unrolled loop, 1 to :data:`MAX_UNROLL`; a
        remainder loop runs the last ``trip % factor`` iterations.

    Raises
    ------
    TypeError
        If ``iterable`` is not a ``range``.
    ValueError
        If ``factor`` is not an integer from 1 to :data:`MAX_UNROLL`.
    """
    if not isinstance(iterable, range):
        raise TypeError(f"hls.unroll wraps a range(...), not {iterable!r}")
    if factor is not None and (isinstance(factor, bool) or not isinstance(factor, int)
                               or not 1 <= factor <= MAX_UNROLL):
        raise ValueError(f"hls.unroll factor must be an integer from 1 to {MAX_UNROLL}, not {factor!r}")
    return iterable


def local(shape, depth: int, partition: Partition | None = None) -> list[int]:
    """A local array of ``depth`` elements of ``shape``, zero-initialised.

    In hardware an on-chip :class:`amaranth.lib.memory.Memory` per bank (synchronous
    read, one read and one write port each), or registers when ``partition`` is
    ``hls.partition("complete")``.

    Raises
    ------
    ValueError
        If ``depth`` is not a positive integer.
    """
    if isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1:
        raise ValueError(f"hls.local depth must be a positive integer, not {depth!r}")
    return [0] * int(depth)
