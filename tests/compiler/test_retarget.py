"""A clock the kernel cannot reach: the compiler builds the fastest design it finds for a lower
clock, and says so (hls.compiler.compile_kernel(retarget=...))."""

import math
import random

import pytest

import retarget_kernels
from benchmarks.kernels import load
from hls.compiler import compile_kernel, cycles_per_pass
from hls.target import Target
from sim import run


def _microseconds(compiled):
    return cycles_per_pass(compiled) / compiled.report.to_json()["claimed_clock_mhz"]


def test_an_unreachable_clock_gives_a_design_no_slower_than_a_reachable_one():
    kernel = retarget_kernels.trsv
    stretched = compile_kernel(kernel, retarget=False)
    built = compile_kernel(kernel)
    reachable = compile_kernel(kernel, target=kernel.target.replace(clock_mhz=100))
    data = built.report.to_json()
    assert stretched.report.to_json()["claimed_clock_mhz"] < 150
    assert data["requested_clock_mhz"] == 150
    assert data["clock_mhz"] == built.target.clock_mhz <= data["claimed_clock_mhz"]
    assert _microseconds(built) <= _microseconds(reachable) < _microseconds(stretched)
    # II 73 stretched for 150 MHz, about half that for the clock the kernel reaches.
    (stretched_loop,), (loop,) = stretched.report.to_json()["loops"], data["loops"]
    assert loop["ii"] * 1.5 < stretched_loop["ii"]
    text = built.report.to_text()
    assert text.startswith(f"kernel trsv at {data['clock_mhz']:g} MHz (asked for 150)")
    assert "asked for 150 MHz" in data["timing"][0] and "the control of the loop on line" in data["timing"][1]


def test_the_retargeted_hardware_matches_the_python_run():
    kernel = retarget_kernels.trsv
    rng = random.Random(3)
    args = {"L": [rng.randrange(-40, 40) for _ in range(64)], "b": [rng.randrange(-300, 300) for _ in range(8)],
            "x": [0] * 8, "n": 5}
    result = run(kernel, args, max_cycles=2000)
    assert result.match, result.differences


def test_a_reachable_clock_is_built_as_asked():
    kernel = load("vsum")[0]
    built = compile_kernel(kernel)
    assert "requested_clock_mhz" not in built.report.to_json()
    assert built.verilog() == compile_kernel(kernel, retarget=False).verilog()


@pytest.mark.parametrize("name", ["fir", "gsumif", "matmul"])
def test_the_search_is_deterministic_and_its_choice_reaches_its_clock(name):
    kernel = load(name)[0]
    target = kernel.target.replace(clock_mhz=200)
    first, second = compile_kernel(kernel, target=target), compile_kernel(kernel, target=target)
    assert first.verilog() == second.verilog()
    assert first.report.to_json()["claimed_clock_mhz"] >= first.target.clock_mhz
    assert _microseconds(first) <= _microseconds(compile_kernel(kernel, target=target, retarget=False))


def test_a_claim_is_rounded_down():
    compiled = compile_kernel(load("vsum")[0], target=Target(clock_mhz=200), retarget=False)
    data = compiled.report.to_json()
    (node,) = [node for node in compiled.ir.nodes if hasattr(node, "counter_shape")]
    reach = compiled.target.delay_model.loop_control_fmax(node.counter_shape.width, compiled.ir.variables[node.stop_var].width,
                              max(1, compiled.schedule_of(node.body).length))
    assert data["claimed_clock_mhz"] == math.floor(reach * 10 + 1e-9) / 10 <= reach
