"""Types for the numeric options of ``axhls``: each names its allowed range when a value is outside it.

argparse prints a rejected value as ``axhls units eval: error: argument
--workers: expected a positive integer, not 0`` (status 2), before
any work starts, naming the option as the user typed it.
"""

from __future__ import annotations

import argparse
import math

__all__ = ["integer", "positive_number"]


def integer(minimum: int, maximum: int | None = None):
    """An argparse ``type`` accepting the integers ``minimum..maximum`` (no upper bound if ``None``)."""
    if maximum is not None:
        allowed = f"an integer from {minimum} to {maximum}"
    else:
        allowed = {0: "a non-negative integer", 1: "a positive integer"}.get(minimum, f"an integer of at least {minimum}")

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {allowed}, not {text!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {allowed}, not {value}")
        return value

    parse.__name__ = "integer"          # argparse names the type in some of its messages
    return parse


def probability(text: str) -> float:
    """An argparse ``type`` accepting numbers in ``[0, 1)`` (a probability of stalling)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number from 0 up to (not including) 1, not {text!r}") from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"expected a number from 0 up to (not including) 1, not {text}")
    return value


def positive_number(text: str) -> float:
    """An argparse ``type`` accepting finite numbers above 0 (a time in seconds)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number above 0, not {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a number above 0, not {text}")
    return value
