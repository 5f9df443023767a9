"""The hardware of a kernel against its Python run, pipelined and with every loop sequential."""

import random

from sim.kernel import run


def assert_matches_python(kernel, name: str, arguments, runs: int = 3, max_cycles: int = 5_000):
    """``runs`` random runs of ``kernel`` pipelined and one with every loop sequential, each equal
    to the Python run; ``arguments(name, rng)`` draws a run's arguments (seeded by ``name``)."""
    rng = random.Random(name)
    for _ in range(runs):
        result = run(kernel, arguments(name, rng), max_cycles=max_cycles)
        assert result.match, result.differences
    result = run(kernel, arguments(name, rng), max_cycles=max_cycles, pipelining=False)
    assert result.match, result.differences
