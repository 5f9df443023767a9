"""Loop pragmas: ``hls.pipeline`` and ``hls.sequential``.

In the golden (Python) run they return the range they wrap, so the loop runs
as written; the front end recognises them and records a
:class:`~hls.frontend.typed.LoopPragma` on the loop.
"""

from __future__ import annotations

__all__ = ["pipeline", "sequential"]


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
