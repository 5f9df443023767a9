"""The fuzzer generates approximate units, per call (``hls.approx``) and per kernel (``approx=``),
so that the differential runs cover them (issue 12)."""

import ast

import pytest

from sim import fuzz

# Single kernels: what these tests read is one kernel's decorator (chains are tested in
# tests/sim/test_fuzz_streams.py).
KERNELS = fuzz.FuzzConfig(features=fuzz.FEATURES - {"chains"})


def _kernel_approx(source: str) -> dict:
    (function,) = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)]
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "approx":
                    return ast.literal_eval(keyword.value)
    return {}


def _calls(source: str) -> list[str]:
    return [ast.unparse(node.func) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Call) and ast.unparse(node.func).startswith("hls.approx.")]


def test_programs_use_units_per_call_and_per_kernel():
    programs = [fuzz.generate(9, index, KERNELS) for index in range(120)]
    per_kernel = [_kernel_approx(program.source) for program in programs]
    calls = [_calls(program.source) for program in programs]
    assert 10 <= sum(map(bool, per_kernel)) <= 60
    assert sum(map(bool, calls)) >= 20
    assert {call for found in calls for call in found} == {"hls.approx.mul", "hls.approx.add", "hls.approx.sub",
                                                           "hls.approx.div", "hls.approx.mod"}
    assert {kind for mapping in per_kernel for kind in mapping} == {"mul", "add", "sub", "div", "mod"}
    for mapping in per_kernel:
        for kind, (unit, params) in mapping.items():
            assert (unit, params) in fuzz.APPROX_UNITS[kind]
    without = fuzz.FuzzConfig(features=fuzz.FEATURES - {"approx", "chains"})
    assert not any(_calls(fuzz.generate(9, index, without).source) for index in range(40))


def test_kernels_with_units_match_python(tmp_path):
    programs = [fuzz.generate(9, index, KERNELS) for index in range(120)]
    chosen = ([p for p in programs if _kernel_approx(p.source)][:2]
              + [p for p in programs if _calls(p.source) and not _kernel_approx(p.source)][:2])
    assert len(chosen) == 4
    for program in chosen:
        verdict = fuzz.check(program, directory=tmp_path)
        assert verdict.kind == "pass", (program.source, verdict.detail)


# -- the error-bound oracle (issue 20) ------------------------------------------------------------

SMUL = '''import hls
from amaranth import signed, unsigned


@hls.kernel(approx={"mul": ("drum", {"k": 5})})
def smul(x: signed(12), h: unsigned(9)) -> signed(21):
    return x * h
'''

WIDE = '''import hls
from amaranth import signed, unsigned


@hls.kernel
def wide(x: signed(16), y: signed(16)) -> signed(32):
    return hls.approx.mul(x, y, unit="drum", k=4) + hls.approx.mul(x, y, unit="mitchell")
'''


def _unit_caches():
    from hls import unit_operators
    return (unit_operators.approx_unit, unit_operators.approx_golden, unit_operators.approx_plan,
            unit_operators.approx_error_bound)


@pytest.fixture
def wrapping_units(monkeypatch):
    """The units as they were before issue 20's fix: a magnitude too large for the product's
    shape wraps (and turns a negative product positive)."""
    from hls import unit_operators
    for cache in _unit_caches():
        cache.cache_clear()
    monkeypatch.setattr(unit_operators, "_saturated_magnitude", lambda ops, magnitude, negative, result: magnitude)
    yield
    monkeypatch.undo()
    for cache in _unit_caches():
        cache.cache_clear()


def _never_simulated(kernel, args, backend):
    raise AssertionError("an operation out of bound needs no simulation")


def test_oracle_flags_a_product_outside_its_unit_bound(tmp_path, wrapping_units):
    # Hardware and Python agree on the wrapped product, so only the bound can see it.
    program = fuzz.Program("smul", SMUL, {"x": -2048, "h": 511}, 0, 0)
    verdict = fuzz.check(program, directory=tmp_path, runner=_never_simulated)
    assert verdict.kind == "out_of_bound"
    assert verdict.detail == ("drum(k=5) on signed(12) and unsigned(9): -2048 * 511 gave 1017856, exact -1046528; "
                              "bound (exhaustive at 12x9 bits): WCE 124928, WCRE 0.12890625")
    assert verdict.approx.checked == 1 and not verdict.same_failure(fuzz.Verdict("mismatch"))
    text = fuzz.write_regression(program, verdict, tmp_path).read_text()
    assert "out_of_bound: drum(k=5)" in text and "approx_bound_check(smul" in text


def test_oracle_passes_the_fixed_product_and_counts_what_it_cannot_bound(tmp_path):
    program = fuzz.Program("smul", SMUL, {"x": -2048, "h": 511}, 0, 0)
    verdict = fuzz.check(program, directory=tmp_path)
    assert verdict.kind == "pass" and (verdict.approx.checked, verdict.approx.unbounded) == (1, 0)
    # At 16 x 16 bits drum has no known bound (2**32 pairs is past the exhaustive limit),
    # mitchell keeps Mitchell's 1/9 at every width.
    kernel = fuzz.load_program(fuzz.Program("wide", WIDE, {}, 0, 0), tmp_path)
    found = fuzz.approx_bound_check(kernel, {"x": -32768, "y": 32767})
    assert (found.checked, found.unbounded, found.outside) == (1, 1, ())
