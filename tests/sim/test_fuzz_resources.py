"""The fuzzer limits the operators some of its kernels use, so that the
differential runs cover shared instances (``resources=``)."""

import ast

from sim import fuzz

# Single kernels: what these tests read is one kernel's decorator (chains are tested in
# tests/sim/test_fuzz_streams.py).
KERNELS = fuzz.FuzzConfig(features=fuzz.FEATURES - {"chains"})


def _limits(source: str) -> dict:
    tree = ast.parse(source)
    (function,) = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    for decorator in function.decorator_list:
        if isinstance(decorator, ast.Call):
            # resources= and, for some kernels, approx= (tests/sim/test_fuzz_approx.py).
            assert {keyword.arg for keyword in decorator.keywords} <= {"resources", "approx"}
            for keyword in decorator.keywords:
                if keyword.arg == "resources":
                    return ast.literal_eval(keyword.value)
    return {}


def _operators(source: str) -> set:
    return {type(node.op) for node in ast.walk(ast.parse(source)) if isinstance(node, (ast.BinOp, ast.AugAssign))}


def test_limits_name_only_operators_the_kernel_uses():
    limited = 0
    for index in range(80):
        source = fuzz.generate(4, index, KERNELS).source
        limits = _limits(source)
        used = _operators(source)
        for name, count in limits.items():
            assert count in (1, 2)
            assert {"mul": {ast.Mult}, "div": {ast.FloorDiv, ast.Mod}, "floordiv": {ast.FloorDiv},
                    "mod": {ast.Mod}}[name] & used, (name, source)
        limited += bool(limits)
    assert 10 <= limited <= 70


def test_limits_leave_the_program_body_unchanged():
    without = fuzz.FuzzConfig(features=fuzz.FEATURES - {"resources", "chains"})
    for index in range(30):
        limited, plain = fuzz.generate(4, index, KERNELS), fuzz.generate(4, index, without)
        assert _limits(plain.source) == {}
        strip = lambda text: [line for line in text.splitlines() if not line.startswith("@hls.kernel")]  # noqa: E731
        assert strip(limited.source) == strip(plain.source) and limited.args == plain.args


def test_kernels_with_one_multiplier_match_python(tmp_path):
    programs = [program for program in (fuzz.generate(4, index, KERNELS) for index in range(80))
                if _limits(program.source).get("mul") == 1][:4]
    assert len(programs) == 4
    for program in programs:
        verdict = fuzz.check(program, directory=tmp_path)
        assert verdict.kind == "pass", (program.source, verdict.detail)
