"""Helpers of the exhaustive unit-operator tests (test_approx_sign.py, test_approx_sub_mod.py): every
value of a small shape, a unit at either end of each parameter's range, and a unit operation's
traced graph run by numpy over every operand pair."""

import numpy as np

from approx_units.numpy_backend import evaluate
from approx_units.registry import spec
from hls.approx import FIXED_PARAMETERS, UnitChoice
from hls.unit_operators import UnitWidthError, approx_unit


def value_range(shape):
    """Every value of ``shape``, in order."""
    return range(-(1 << (shape.width - 1)), 1 << (shape.width - 1)) if shape.signed else range(1 << shape.width)


def parameter_ends(kind, unit, a, b, *, signed_bounds=None):
    """The unit with its defaults, and with each parameter at either end of its range at these widths
    (the ranges of the signed variant when ``signed_bounds``, of the unit as built when ``None``)."""
    built = approx_unit(UnitChoice(kind, unit), a, b).unit
    signed = built.signed if signed_bounds is None else signed_bounds
    choices = [UnitChoice(kind, unit)]
    for param in spec(unit).params:
        if param.name in FIXED_PARAMETERS:
            continue
        for value in param.bounds(built.width, built.width_b, signed):
            choice = UnitChoice(kind, unit, ((param.name, value),))
            try:
                approx_unit(choice, a, b)
            except UnitWidthError:          # a cross-parameter rule (index_bits <= mantissa_bits)
                continue
            choices.append(choice)
    return list(dict.fromkeys(choices))


def operation_values(choice, a, b):
    """``(x, y, value)`` arrays over every operand pair: the traced operation run by numpy."""
    operation = approx_unit(choice, a, b)
    x, y = (np.array(value_range(shape), dtype=np.int64) for shape in (a, b))
    x, y = np.repeat(x, len(y)), np.tile(y, len(x))
    patterns = evaluate(operation.graph, {"a": (x % (1 << a.width)).astype(np.uint64),
                                          "b": (y % (1 << b.width)).astype(np.uint64)}).astype(np.int64)
    width = operation.result.width
    if operation.result.signed:
        patterns = np.where(patterns >> (width - 1) & 1, patterns - (1 << width), patterns)
    return x, y, patterns
