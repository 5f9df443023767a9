"""Registers sized by their ranges (issue 20, Deliver 5): the narrowed hardware gives the Python
run's results bit for bit, its register bits shrink where the ranges are known, and the report
gives the bits before and after."""

import random

import pytest

import narrowing_kernels as kernels
from benchmarks.kernels import load
from hls.backend.component import register_bits
from hls.compiler import compile_kernel
from sim.kernel import run


def _scale_args(rng, zero_at=None):
    a = [rng.randint(1, 4095) for _ in range(kernels.N)]
    if zero_at is not None:
        a[zero_at] = 0
    return {"a": a, "out": [0] * kernels.N, "peak": 4095, "n": 13}


@pytest.mark.parametrize("name", ["vsum", "argmax", "find_first_break", "matvec", "trmv"])
def test_narrowed_benchmark_kernels_match_python(name):
    # vsum and argmax carry variables, find_first_break squashes, matvec and trmv are flattened nests.
    kernel, examples = load(name)
    result = run(kernel, examples[0], max_cycles=20_000, narrowing=True)
    assert result.match, result.differences


@pytest.mark.parametrize("zero_at", [None, 0, 5, 12])
def test_late_induction_counts_match_python(zero_at):
    rng = random.Random(zero_at)
    kernel = kernels.scale if zero_at is None else kernels.scale_until
    args = _scale_args(rng, zero_at)
    args["peak"] = rng.randint(1, 4095)
    result = run(kernel, args, max_cycles=20_000, narrowing=True)
    assert result.match, result.differences


def test_known_range_shrinks_registers():
    narrowed = register_bits(compile_kernel(kernels.sum16))
    declared = register_bits(compile_kernel(kernels.sum16, narrowing=False))
    assert narrowed["variables"]["s"] == [32, 12]          # 16 * 255 = 4080 < 2 ** 12
    assert declared["variables"] == {}
    assert narrowed["bits"] < declared["bits"]
    # The divider's late stages read the store's index from a counter, not a 13-stage delay line.
    assert "induction_at" in compile_kernel(kernels.scale).verilog()
    assert register_bits(compile_kernel(kernels.scale))["bits"] \
        < register_bits(compile_kernel(kernels.scale, narrowing=False))["bits"] - 3 * 5


def test_report_gives_register_bits_before_and_after():
    compiled = compile_kernel(kernels.sum16)
    bits = compiled.report.to_json()["resources"]["register_bits"]
    assert bits == {"before": register_bits(compile_kernel(kernels.sum16, narrowing=False))["bits"],
                    "after": register_bits(compiled)["bits"]}
    assert f"registers: {bits['before']} bits at declared shapes, {bits['after']} sized by their ranges" \
        in compiled.report.to_text()
    off = compile_kernel(kernels.sum16, narrowing=False).report.to_json()["resources"]["register_bits"]
    assert off == {"before": bits["before"], "after": bits["before"]}
