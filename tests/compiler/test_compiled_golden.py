"""The compiled golden model (``hls.golden``) against the Python run, bit for bit.

Every benchmark kernel on its examples, every application kernel on the full
input (exact and approximate), the semantics kernels of this folder on random
arguments, fuzzed programs, and the error paths: out-of-range indices, loop
limits, bad arguments, a kernel the translation cannot hold (a stated fallback),
and a run watched by ``observe_approx``.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import random

import numpy as np
import pytest
from amaranth import signed, unsigned

import hls
import sim
from benchmarks.apps import CONFIGS, configure
from benchmarks.kernels import KERNEL_NAMES, load
from hls.golden import CompiledModel, CompiledModelUnsupported
from hls.types import shape_range
from hls.unit_operators import observe_approx
from sim import fuzz


def outcome(model, args: dict, limit: int | None = None):
    """What a run gives: the result and the final arguments, or the error and the arguments then."""
    arguments = copy.deepcopy(args)
    try:
        result = model.call((), arguments, max_loop_iterations=limit)
    except Exception as error:
        return "raised", type(error), str(error), arguments
    return result, arguments


def assert_bit_exact(kernel, args: dict, limit: int | None = None):
    compiled = kernel.compiled_model()
    assert compiled.compiled, compiled.fallback_reason
    assert outcome(compiled, args, limit) == outcome(kernel.golden_model(), args, limit)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_every_benchmark_kernel_on_its_examples(name):
    kernel, examples = load(name)
    for example in examples:
        assert_bit_exact(kernel, example)


@pytest.mark.parametrize("name", ("histogram", "insertion_sort", "collatz", "matmul_acc"))
def test_run_on_bound_arguments_leaves_them_alone(name):
    kernel, examples = load(name)
    for example in examples:
        bound = kernel.golden_model().bind((), copy.deepcopy(example))
        before = copy.deepcopy(bound)
        assert kernel.compiled_model().run(bound, max_loop_iterations=10_000) == \
            kernel.golden_model().run(bound, max_loop_iterations=10_000)
        assert bound == before


#: Approximate configurations of every non-slow run: each replaces both `*` and `//`.
FAST_CONFIGS = ("exact", "drum6+mitchell_div_refined", "mitchell_refined+mitchell_div")


def _check_application(name: str, config: str):
    pytest.importorskip("skimage")
    app = importlib.import_module(f"examples.apps.{name}")
    data = app.default_input()
    kernels = configure(app.KERNELS, dict(CONFIGS)[config])
    trace = []
    expected = app.run(kernels, data, trace)
    for kernel, args in trace:
        assert_bit_exact(kernel, args)
    # The chain through the compiled models, as the applications' own run calls them.
    output = app.run(tuple(kernel.compiled_model() for kernel in kernels), data)
    assert np.array_equal(output, expected)


@pytest.mark.parametrize("config", FAST_CONFIGS)
@pytest.mark.parametrize("name", ("image", "ecg", "tracking"))
def test_every_application_kernel_on_the_full_input(name, config):
    _check_application(name, config)


@pytest.mark.slow
@pytest.mark.parametrize("config", [name for name, _ in CONFIGS if name not in FAST_CONFIGS])
@pytest.mark.parametrize("name", ("image", "ecg", "tracking"))
def test_every_application_kernel_in_every_configuration(name, config):
    _check_application(name, config)


def _random_arguments(kernel, rng: random.Random) -> dict:
    """Arguments within the parameters' shapes, scalars often small (loop bounds, indices)."""
    args = {}
    for param in kernel.params:
        low, high = shape_range(param.shape)
        if param.kind == "scalar":
            small = rng.randint(max(low, -3), min(high, 20))
            args[param.name] = small if rng.random() < 0.7 else rng.randint(low, high)
        else:
            args[param.name] = [rng.randint(low, high) for _ in range(param.depth)]
    return args


def _kernels_of(module_name: str):
    module = importlib.import_module(module_name)
    return [value for _, value in inspect.getmembers(module) if isinstance(value, hls.Kernel)]


def _check_module_on_random_arguments(module_name: str, runs: int):
    rng = random.Random(module_name)
    kernels = _kernels_of(module_name)
    assert kernels
    for kernel in kernels:
        for _ in range(runs):
            assert_bit_exact(kernel, _random_arguments(kernel, rng), limit=3000)


@pytest.mark.parametrize("module_name", ("semantics_kernels", "division_kernels", "approx_sign_kernels"))
def test_semantics_kernels_on_random_arguments(module_name):
    _check_module_on_random_arguments(module_name, runs=6)


@pytest.mark.slow
@pytest.mark.parametrize("module_name", ("approx_kernels", "array_kernels", "flatten_kernels", "multiply_kernels",
                                         "overlap_kernels", "refinement_kernels", "retarget_kernels",
                                         "value_kernels"))
def test_every_test_kernel_on_random_arguments(module_name):
    _check_module_on_random_arguments(module_name, runs=6)


def _check_fuzzed(seed: int, indices, directory):
    failures = []
    for index in indices:
        program = fuzz.generate(seed, index)
        kernel = fuzz.load_program(program, directory)
        _, python = fuzz._observed_run(kernel, copy.deepcopy(program.args))
        difference = fuzz.compiled_difference(kernel, program.args, python)
        if difference:
            failures.append(f"index {index}: {difference}")
    assert not failures, "\n".join(failures)


def test_fuzzed_programs(tmp_path):
    _check_fuzzed(23, range(20), tmp_path)


@pytest.mark.slow
def test_many_fuzzed_programs(tmp_path):
    _check_fuzzed(2323, range(400), tmp_path)


# -- semantics and error paths, on kernels written here ---------------------------------------

@hls.kernel
def guarded(a: hls.Array[signed(8), 8], out: hls.Array[signed(16), 8], n: unsigned(4)) -> tuple[unsigned(4), signed(16)]:
    i: unsigned(4) = 0
    s: signed(16) = 0
    while i < n and a[i] != 0:          # the guard keeps a[8] unread
        x = a[i]
        out[i] = (x // -3) * 7 + (x % -5) - (~x >> 1) + (-x if x < 0 else x * 3)
        if x == 99:
            break
        s = s + x
        i = i + 1
    return i, s


def test_short_circuit_floor_division_and_break():
    for values in ([5, -7, 99, 3, 0, 0, 0, 0], [1, 2, 3, 4, 5, 6, 7, 8], [-128, 127, -1, 1, 0, 0, 0, 0]):
        for n in (0, 3, 8, 9):
            assert_bit_exact(guarded, {"a": values, "out": [0] * 8, "n": n})


@hls.kernel
def scatter(a: hls.Array[unsigned(8), 4], idx: hls.Array[unsigned(4), 4], n: unsigned(3)):
    for i in range(n):
        a[idx[i]] = a[i] + 1


def test_an_index_out_of_range_raises_the_same_error_after_the_same_writes():
    args = {"a": [1, 2, 3, 4], "idx": [3, 0, 9, 1], "n": 4}
    compiled = outcome(scatter.compiled_model(), args)
    assert compiled[0] == "raised" and compiled[1] is hls.KernelRuntimeError
    assert "index 9 out of range for a[4]" in compiled[2]
    assert compiled[3]["a"] == [3, 2, 3, 2]           # the writes before the error are kept
    assert compiled == outcome(scatter.golden_model(), args)


@hls.kernel
def forever(x: unsigned(8)) -> unsigned(8):
    while x != 1:
        x = x + 2
    return x


def test_a_loop_limit_raises_the_same_error():
    compiled = outcome(forever.compiled_model(), {"x": 2}, limit=500)
    assert compiled[1] is hls.errors.KernelLoopLimit and "500 iterations" in compiled[2]
    assert compiled == outcome(forever.golden_model(), {"x": 2}, limit=500)
    assert outcome(forever.compiled_model(), {"x": 3}, limit=500) == (1, {"x": 3})


@pytest.mark.parametrize("args", [
    {"a": [1, 2, True, 4], "idx": [0] * 4, "n": 1},            # bool is not an integer
    {"a": [1, 2, 3.0, 4], "idx": [0] * 4, "n": 1},
    {"a": [1, 2, 256, 4], "idx": [0] * 4, "n": 1},             # does not fit unsigned(8)
    {"a": [1, 2, 3], "idx": [0] * 4, "n": 1},
    {"a": (1, 2, 3, 4), "idx": [0] * 4, "n": 1},
    {"a": np.array([1, 2, 3, 4], dtype=np.int8), "idx": [0] * 4, "n": 1},   # too narrow a dtype
    {"a": [1, 2, 3, 4], "idx": [0] * 4, "n": 8},
    {"a": [1, 2, 3, 4], "idx": [0] * 4, "n": False},
    {"a": [1, 2, 3, 4], "idx": [0] * 4},
])
def test_bad_arguments_raise_as_the_python_run_does(args):
    compiled = outcome(scatter.compiled_model(), args)
    assert compiled[0] == "raised"
    assert compiled[:3] == outcome(scatter.golden_model(), args)[:3]


def test_numpy_arrays_and_numpy_elements_are_written_back():
    for a in (np.array([1, 2, 3, 4], dtype=np.uint16), [np.int64(1), 2, 3, np.uint8(4)]):
        args = {"a": a, "idx": np.array([3, 2, 1, 0]), "n": 4}
        compiled, python = copy.deepcopy(args), copy.deepcopy(args)
        scatter.compiled_model()(**compiled)
        scatter(**python)
        assert [int(v) for v in compiled["a"]] == [int(v) for v in python["a"]] == [3, 4, 3, 2]
        assert type(compiled["a"]) is type(python["a"])
        if isinstance(a, list):
            assert [type(v) for v in compiled["a"]] == [type(v) for v in python["a"]]


@hls.kernel
def wide(a: signed(40), b: signed(40), k: unsigned(6)) -> tuple[signed(64), signed(48)]:
    p: signed(64) = a * b + (a << k)
    return p, (p >> 20) // (b | 1)


def test_products_past_64_bits_compute_in_128():
    model = wide.compiled_model()
    assert model.compiled and "typedef __int128 V;" in model.source
    low, high = shape_range(signed(40))
    rng = random.Random(40)
    for _ in range(50):
        assert_bit_exact(wide, {"a": rng.randint(low, high), "b": rng.randint(low, high), "k": rng.randint(0, 63)})


@hls.kernel
def too_wide(x: unsigned(100)) -> unsigned(8):
    return x & 255


def test_a_kernel_it_cannot_hold_falls_back_with_a_reason():
    model = CompiledModel(too_wide)
    assert not model.compiled
    assert "unsigned(100)" in model.fallback_reason and "int64" in model.fallback_reason
    assert model(x=(1 << 99) + 77) == too_wide(x=(1 << 99) + 77) == 77
    with pytest.raises(CompiledModelUnsupported, match=r"too_wide: .*unsigned\(100\)"):
        CompiledModel(too_wide, fallback=False)


@hls.kernel(approx={"mul": ("drum", {"k": 4})})
def approx_dot(a: hls.Array[signed(8), 4], b: hls.Array[unsigned(8), 4]) -> signed(20):
    s: signed(20) = 0
    for i in range(4):
        s = s + a[i] * b[i]
    return s


def test_an_observed_run_is_the_python_run():
    args = {"a": [-100, 50, 3, -1], "b": [200, 17, 255, 9]}
    seen = []
    with observe_approx(lambda unit, x, y, value: seen.append((x, y, value))):
        value = approx_dot.compiled_model()(**args)
    assert len(seen) == 4 and value == approx_dot(**args) == sum(v for _, _, v in seen)
    assert_bit_exact(approx_dot, args)


def test_sim_run_compares_with_either_golden_model():
    args = {"a": [5, -7, 99, 3, 0, 0, 0, 0], "out": [0] * 8, "n": 8}
    compiled, python = sim.run(guarded, args), sim.run(guarded, args, golden="python")
    assert compiled.match and python.match and compiled.expected == python.expected
    with pytest.raises(ValueError, match="unknown golden model 'c'"):
        sim.run(guarded, args, golden="c")


def test_the_fuzzer_reports_a_compiled_model_that_differs(tmp_path, monkeypatch):
    program = fuzz.generate(23, 0)
    monkeypatch.setattr(CompiledModel, "call", lambda self, args, kwargs, **options: 12345)
    verdict = fuzz.check(program, directory=tmp_path)
    assert verdict.kind == "compiled_mismatch" and "compiled 12345" in verdict.detail


def test_the_shared_object_is_cached_by_its_source(tmp_path, monkeypatch):
    monkeypatch.setenv("AXHLS_CACHE_DIR", str(tmp_path))
    first = CompiledModel(guarded)
    files = sorted((tmp_path / "compiled").glob("kernel_*.so"))
    second = CompiledModel(guarded)
    assert first.source == second.source
    # One shared object, named by its hash: the second model loads it (the list helper was built earlier).
    assert sorted((tmp_path / "compiled").glob("kernel_*.so")) == files and len(files) == 1


@hls.kernel
def words(a: hls.Array[unsigned(64), 4], k: unsigned(64)) -> tuple[unsigned(64), signed(64)]:
    s: unsigned(64) = k
    t: signed(64) = 0
    for i in range(4):
        s = s + a[i]
        t = t - (a[i] >> 1)
        a[i] = ~a[i]
    return s, t


def test_unsigned_64_bit_values_pass_as_their_bit_patterns():
    rng = random.Random(64)
    for _ in range(20):
        values = [rng.choice([0, 1, (1 << 64) - 1, 1 << 63, rng.getrandbits(64)]) for _ in range(4)]
        assert_bit_exact(words, {"a": values, "k": rng.getrandbits(64)})
        compiled, python = np.array(values, dtype=np.uint64), np.array(values, dtype=np.uint64)
        assert words.compiled_model()(a=compiled, k=5) == words(a=python, k=5)
        assert compiled.tolist() == python.tolist()


def test_without_a_c_compiler_the_model_is_the_python_run(monkeypatch):
    import approx_units.compiled
    monkeypatch.setattr(approx_units.compiled, "unavailable_reason", lambda: "no C compiler found (looked for cc, gcc)")
    model = CompiledModel(guarded)
    assert not model.compiled and "no C compiler found" in model.fallback_reason
    args = {"a": [5, -7, 99, 3, 0, 0, 0, 0], "out": [0] * 8, "n": 8}
    assert outcome(model, args) == outcome(guarded.golden_model(), args)


def test_without_the_list_helper_arguments_go_through_numpy(monkeypatch):
    import hls.golden
    monkeypatch.setattr(hls.golden, "_lists_library", lambda: None)
    model = CompiledModel(scatter)
    for args in ({"a": [1, 2, 3, 4], "idx": [3, 2, 1, 0], "n": 4}, {"a": [1, 2, 300, 4], "idx": [0] * 4, "n": 1}):
        assert outcome(model, args) == outcome(scatter.golden_model(), args)
