"""Kernels at the places where Python and hardware could differ, simulated on seeded random inputs."""

import random

import pytest

import semantics_kernels as kernels
from sim.kernel import run


def _array(rng, lo, hi, n=16):
    return [rng.randint(lo, hi) for _ in range(n)]


CASES = {
    # floor division and modulo of negative values, division by zero, arithmetic >>, << widening
    "arith": lambda r: {"a": _array(r, -128, 127), "b": _array(r, -128, 127)[:15] + [0], "out": [0] * 16,
                        "n": 16},
    # ~ of unsigned, min/max/abs, wrap at assignment
    "bits": lambda r: {"a": _array(r, 0, 63), "n": r.randint(0, 16)},
    # and/or/not, truthiness of an integer, chained comparisons, conditional expressions, tuples
    "logic": lambda r: {"a": _array(r, -20, 20), "n": r.randint(0, 16)},
    # while with break and continue (sequential)
    "control": lambda r: {"a": _array(r, 0, 3, 4) + _array(r, 0, 255, 12), "n": r.randint(0, 16),
                          "limit": r.randint(0, 3000)},
    # an if whose branches hold loops; hls.sequential with a step
    "branchy_loops": lambda r: {"a": _array(r, 0, 255), "mode": r.randint(0, 1)},
    # hls.pipeline(..., ii=2)
    "pragma_ii": lambda r: {"a": _array(r, 0, 255), "b": [0] * 16, "n": r.randint(0, 16)},
    # resources={"mul": 1}: two multiplications share one multiplier
    "one_multiplier": lambda r: {"a": _array(r, -128, 127), "b": _array(r, -128, 127), "n": r.randint(0, 16)},
    # affine distance-1 accesses: a[i] and a[i - 1]
    "shift_window": lambda r: {"a": _array(r, -30000, 30000), "b": [0] * 16},
    "in_place": lambda r: {"a": _array(r, 0, 255)},
    # stores on both sides of an if, sharing a port
    "exclusive_stores": lambda r: {"a": _array(r, -128, 127), "pos": _array(r, -5, 5), "neg": _array(r, -5, 5)},
    # a value of the previous iteration used after the variable is overwritten
    "later_use": lambda r: {"a": _array(r, -30000, 30000), "out": [0] * 16},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_hardware_matches_python(name):
    rng = random.Random(name)
    kernel = getattr(kernels, name)
    for _ in range(4):
        result = run(kernel, CASES[name](rng), max_cycles=5000)
        assert result.match, result.differences


def test_zero_trip_loops_leave_everything_unchanged():
    for n in (0, 1):
        args = {"a": list(range(16)), "b": [7] * 16, "n": n}
        result = run(kernels.pragma_ii, args)
        assert result.match
        assert result.outputs["arrays"]["b"][1:] == [7] * 15


def test_target_ii_is_honoured_and_reported():
    (loop,) = kernels.pragma_ii.report().to_json()["loops"]
    assert loop["target_ii"] == 2 and loop["ii"] == 2 and loop["mii"] == 1


def test_resource_limit_sets_the_ii_and_is_shared_in_hardware():
    (loop,) = kernels.one_multiplier.report().to_json()["loops"]
    assert (loop["ii"], loop["res_mii"], loop["bound"]["kind"]) == (2, 2, "resource")
    verilog = kernels.one_multiplier.to_verilog()
    assert sum(" * " in line for line in verilog.splitlines()) == 1


def test_exclusive_stores_share_the_write_port_at_ii_one():
    (loop,) = kernels.exclusive_stores.report().to_json()["loops"]
    assert loop["ii"] == 1


def test_report_says_why_a_loop_is_not_pipelined():
    loops = {loop["line"]: loop for loop in kernels.branchy_loops.report().to_json()["loops"]}
    pipelined = [loop for loop in loops.values() if loop["pipelined"]]
    sequential = [loop for loop in loops.values() if not loop["pipelined"]]
    assert len(pipelined) == 1 and len(sequential) == 1
    assert sequential[0]["reason"] == "hls.sequential" and sequential[0]["ii"] is None
    assert sequential[0]["trip_count"] == 8          # range(0, 16, 2)
