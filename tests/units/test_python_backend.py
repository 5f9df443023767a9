"""The scalar Python-integer interpreter of a unit's graph against the numpy model, bit for bit."""

import numpy as np
import pytest

import approx_units
from approx_units.numpy_backend import evaluate
from approx_units.python_backend import compile_scalar


@pytest.mark.parametrize("name", approx_units.names())
@pytest.mark.parametrize("width, signed", [(4, False), (8, True), (16, False), (32, True)])
def test_scalar_interpreter_is_the_numpy_model(name, width, signed):
    try:
        unit = approx_units.get(name, width=width, signed=signed)
    except ValueError:
        pytest.skip("no such variant")
    rng = np.random.default_rng(width)
    a = rng.integers(0, 1 << width, 400, dtype=np.uint64)
    b = rng.integers(0, 1 << width, 400, dtype=np.uint64)
    a[:4], b[4:8] = 0, 0
    a[8], b[8] = (1 << width) - 1, (1 << width) - 1
    function = compile_scalar(unit.graph)
    expected = evaluate(unit.graph, {"a": a, "b": b})
    assert [function(int(x), int(y)) for x, y in zip(a, b)] == [int(v) for v in expected]
