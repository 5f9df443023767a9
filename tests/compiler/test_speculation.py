"""Pipelined loops with early exits: iterations past the exit are squashed before they commit anything."""

import random

import pytest

import semantics_kernels as kernels
from benchmarks.kernels import load
from sim.kernel import run


def _loop(kernel):
    (loop,) = [entry for entry in kernel.report().to_json()["loops"] if entry["pipelined"]]
    return loop


@pytest.mark.parametrize("position", [0, 1, 7, 14, 15, None])
def test_break_at_every_position_squashes_younger_iterations(position):
    rng = random.Random(position)
    a = [rng.randrange(0, 200) for _ in range(16)]
    t = 250
    if position is not None:
        a[position] = t
    args = {"a": a, "b": [0] * 16, "t": t, "n": 16}
    result = run(kernels.first_match_store, args)
    assert result.match, result.differences
    stop = 16 if position is None else position
    assert result.outputs["arrays"]["b"][stop + 1:] == [0] * (16 - stop - 1)


def test_break_loop_is_pipelined_at_its_mii():
    loop = _loop(kernels.first_match_store)
    # Two stores to b per iteration share one write port; the exit itself costs nothing.
    assert loop["ii"] == loop["mii"] == 2 and loop["rec_mii"] == 1 and loop["bound"]["kind"] == "resource"


@pytest.mark.parametrize("x", [0, 3, 4, 10, 13, 100, 255])
def test_while_with_continue_and_stores(x):
    result = run(kernels.countdown, {"a": list(range(16)), "x": x})
    assert result.match, result.differences


def test_continue_only_predicates_the_rest_of_its_iteration():
    rng = random.Random(3)
    for n in (0, 1, 16):
        result = run(kernels.skip_odd, {"a": [rng.randrange(256) for _ in range(16)], "n": n})
        assert result.match
    assert _loop(kernels.skip_odd)["ii"] == 1


@pytest.mark.parametrize("name", ["find_first_while", "find_first_break"])
def test_find_first_reaches_ii_one_and_stops_early(name):
    kernel, examples = load(name)
    loop = _loop(kernel)
    assert loop["ii"] == 1
    for args in examples:
        result = run(kernel, args)
        assert result.match, result.differences
        exit_index = result.expected["return"]
        # cycles <= exit index + depth + 8 (issue 5's target), counting the element that ends it
        assert result.cycles <= min(exit_index, args["n"]) + loop["depth"] + 8
