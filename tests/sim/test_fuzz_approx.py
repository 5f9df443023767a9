"""The fuzzer generates approximate units, per call (``hls.approx``) and per kernel (``approx=``),
so that the differential runs cover them (issue 12)."""

import ast

from sim import fuzz


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
    programs = [fuzz.generate(9, index) for index in range(120)]
    per_kernel = [_kernel_approx(program.source) for program in programs]
    calls = [_calls(program.source) for program in programs]
    assert 10 <= sum(map(bool, per_kernel)) <= 60
    assert sum(map(bool, calls)) >= 20
    assert {call for found in calls for call in found} == {"hls.approx.mul", "hls.approx.add", "hls.approx.div"}
    for mapping in per_kernel:
        for kind, (unit, params) in mapping.items():
            assert (unit, params) in fuzz.APPROX_UNITS[kind]
    without = fuzz.FuzzConfig(features=fuzz.FEATURES - {"approx"})
    assert not any(_calls(fuzz.generate(9, index, without).source) for index in range(40))


def test_kernels_with_units_match_python(tmp_path):
    programs = [fuzz.generate(9, index) for index in range(120)]
    chosen = ([p for p in programs if _kernel_approx(p.source)][:2]
              + [p for p in programs if _calls(p.source) and not _kernel_approx(p.source)][:2])
    assert len(chosen) == 4
    for program in chosen:
        verdict = fuzz.check(program, directory=tmp_path)
        assert verdict.kind == "pass", (program.source, verdict.detail)
