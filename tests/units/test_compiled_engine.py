"""The compiled error engine against the numpy model: bit for bit, and ErrorStats field by field.

Every library unit (signed and unsigned, dividers at several quotient
formats) exhaustively at 4, 6 and 8 bits and on random pairs at 12, 16 and 32
bits; third-party Verilog circuits through their bit-sliced kernels (approx_units.bitsliced).
The kernels are cached on disk, so only a first run pays for the compiler.
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import approx_units
from approx_units import compiled
from approx_units import evaluate as ev
from approx_units.metrics import ErrorStats
from approx_units.numpy_backend import evaluate as numpy_evaluate
from approx_units.registry import spec
from tests.foreground import axhls_command

pytestmark = pytest.mark.skipif(not compiled.available(), reason="no C compiler for the compiled engine")

#: Integer fields and maxima: the same operations per pair, so identical.
EXACT_FIELDS = ("count", "errors", "nonzero", "excluded", "max_abs", "max_rel")


def assert_same_stats(got, expected, integer_reference=True):
    for name in EXACT_FIELDS:
        assert getattr(got, name) == getattr(expected, name), name
    # Sums of the same terms in another order. Signed sums can cancel to ~0, so their
    # tolerance is relative to the sum of the magnitudes.
    scale_abs = max(1.0, expected.sum_abs)
    scale_rel = max(1.0, expected.sum_rel)
    if integer_reference and abs(expected.sum_abs) < 2 ** 53 and abs(expected.sum_err) < 2 ** 53:
        # numpy's sums are exact integers here; the compiled ones always are.
        assert got.sum_abs == expected.sum_abs and got.sum_err == expected.sum_err
    else:
        assert got.sum_abs == pytest.approx(expected.sum_abs, rel=1e-12, abs=1e-12)
        assert abs(got.sum_err - expected.sum_err) <= 1e-12 * scale_abs
    assert got.sum_sq == pytest.approx(expected.sum_sq, rel=1e-12, abs=1e-12)
    assert got.sum_rel == pytest.approx(expected.sum_rel, rel=1e-12, abs=1e-12)
    assert got.sum_rel_sq == pytest.approx(expected.sum_rel_sq, rel=1e-12, abs=1e-12)
    assert abs(got.sum_signed_rel - expected.sum_signed_rel) <= 1e-12 * scale_rel


def assert_same_parts(got: dict, expected: dict):
    assert set(got) == set(expected)
    for name in got:
        assert_same_stats(got[name], expected[name], integer_reference=name != "quotient")


def configurations():
    """(name, params) of every unit, signed and unsigned, dividers at three quotient formats."""
    for name in approx_units.names():
        unit_spec = spec(name)
        for signed in (False, True) if unit_spec.signed_variant else (False,):
            params = {"signed": signed}
            if unit_spec.kind == "div":
                for frac_bits in (None, 0, 3):
                    yield name, params if frac_bits is None else {**params, "frac_bits": frac_bits}
            else:
                yield name, params


CONFIGURATIONS = list(configurations())


def ids(configuration):
    name, params = configuration
    return name + "".join(f"-{k}={v}" for k, v in params.items())


def build(name, width, params):
    try:
        return approx_units.get(name, width=width, **params)
    except ValueError as error:     # a format this width does not allow (frac_bits bounds)
        pytest.skip(str(error))


@pytest.mark.parametrize("width", [4, 6, 8])
@pytest.mark.parametrize("configuration", CONFIGURATIONS, ids=ids)
def test_exhaustive_matches_the_numpy_model(configuration, width):
    name, params = configuration
    unit = build(name, width, params)
    evaluator = compiled.evaluator_for(unit)
    (a_lo, a_hi), (b_lo, b_hi) = unit.operand_range("a"), unit.operand_range("b")
    a = np.arange(a_lo, a_hi + 1)[:, None]
    b = np.arange(b_lo, b_hi + 1)[None, :]
    patterns = dict(zip("ab", unit.to_patterns(*np.broadcast_arrays(a, b))))
    assert np.array_equal(evaluator.model(patterns["a"], patterns["b"]),
                          numpy_evaluate(unit.graph, patterns))
    expected, count = ev._exhaustive_task(unit, a_lo, a_hi + 1, (b_lo, b_hi + 1))
    assert count == a.size * b.size
    # Several tasks and threads, merged: the same as one pass.
    got = evaluator.range_stats((a_lo, a_hi + 1), (b_lo, b_hi + 1), workers=2, rows_per_task=3)
    assert_same_parts(got, expected.parts)
    assert_same_parts(evaluator.pair_stats(*(x.ravel() for x in np.broadcast_arrays(a, b))), expected.parts)


def edge_and_random_pairs(unit, count, seed):
    rng = np.random.default_rng(seed)
    (a_lo, a_hi), (b_lo, b_hi) = unit.operand_range("a"), unit.operand_range("b")
    edges_a = np.array([a_lo, a_hi, 0, 1, a_hi - 1, max(a_lo, -1)], dtype=np.int64)
    edges_b = np.array([b_lo, b_hi, 0, 1, b_hi - 1, max(b_lo, -1)], dtype=np.int64)
    a = np.concatenate([np.repeat(edges_a, edges_b.size), rng.integers(a_lo, a_hi, count, endpoint=True)])
    b = np.concatenate([np.tile(edges_b, edges_a.size), rng.integers(b_lo, b_hi, count, endpoint=True)])
    return a, b


@pytest.mark.parametrize("width", [12, 16, 32])
@pytest.mark.parametrize("configuration", CONFIGURATIONS, ids=ids)
def test_random_pairs_match_the_numpy_model(configuration, width):
    name, params = configuration
    unit = build(name, width, params)
    evaluator = compiled.evaluator_for(unit)
    a, b = edge_and_random_pairs(unit, 20_000, seed=width)
    pa, pb = unit.to_patterns(a, b)
    assert np.array_equal(evaluator.model(pa, pb), numpy_evaluate(unit.graph, {"a": pa, "b": pb}))
    assert_same_parts(evaluator.pair_stats(a, b), ev._stats_of(unit, a, b).parts)


def test_non_square_multiplier_exhaustive():
    unit = approx_units.get("drum", width=8, width_b=5, k=4, signed=True)
    evaluator = compiled.evaluator_for(unit)
    (a_lo, a_hi), (b_lo, b_hi) = unit.operand_range("a"), unit.operand_range("b")
    expected, _ = ev._exhaustive_task(unit, a_lo, a_hi + 1, (b_lo, b_hi + 1))
    assert_same_parts(evaluator.range_stats((a_lo, a_hi + 1), (b_lo, b_hi + 1)), expected.parts)


@pytest.mark.parametrize("subject, params", [
    ("mitchell", (("signed", False),)),
    ("loa", (("l", 5), ("signed", True))),
    ("mitchell_div_refined", (("frac_bits", 4), ("index_bits", 4), ("signed", False))),
])
def test_evaluate_gives_the_same_metrics_with_either_engine(subject, params):
    recipe = ev.LibraryUnit(subject, 11, 0, params)
    results = {engine: ev.evaluate(recipe, exhaustive=True, engine=engine, workers=2, progress=False)
               for engine in ("compiled", "numpy")}
    numpy_metrics, compiled_metrics = results["numpy"].metrics, results["compiled"].metrics
    assert set(numpy_metrics) == set(compiled_metrics)
    for name, value in numpy_metrics.items():
        if name in ("wce", "wcre", "wce_pct", "er", "int_er", "int_wce", "excluded_division_by_zero"):
            assert compiled_metrics[name] == value, name
        else:
            assert compiled_metrics[name] == pytest.approx(value, rel=1e-11, abs=1e-15), name
    sampled = {engine: ev.evaluate(recipe, samples=50_000, seed=3, engine=engine, progress=False)
               for engine in ("compiled", "numpy")}
    assert sampled["compiled"].metrics["wce"] == sampled["numpy"].metrics["wce"]
    assert sampled["compiled"].metrics["mred"] == pytest.approx(sampled["numpy"].metrics["mred"], rel=1e-11)
    assert set(sampled["compiled"].ci95) == set(sampled["numpy"].ci95)


def test_without_a_compiler_auto_falls_back_and_compiled_refuses(monkeypatch, capsys):
    monkeypatch.setattr(compiled, "_COMPILER", [None])
    monkeypatch.setattr(ev, "_FALLBACK_SAID", [])
    monkeypatch.setattr(ev, "_COMPILED_THRESHOLD", 1)
    recipe = ev.LibraryUnit("loa", 6, 0, (("l", 2), ("signed", False)))
    result = ev.evaluate(recipe, progress=False)
    assert result.exhaustive and result.metrics["er"] == pytest.approx(1 - 0.75 ** 2)
    message = capsys.readouterr().err.strip().splitlines()
    assert len(message) == 1 and "no C compiler found" in message[0] and "numpy" in message[0]
    with pytest.raises(compiled.CompilerUnavailable, match="no C compiler found"):
        ev.evaluate(recipe, engine="compiled", progress=False)
    with pytest.raises(ValueError, match="engine must be one of"):
        ev.evaluate(recipe, engine="fast")


def test_graphs_wider_than_64_bits_are_refused():
    from approx_units.dataflow import Ops
    ops = Ops()
    a, b = ops.input("a", 40), ops.input("b", 40)
    ops.graph.output = ops.mul(a, b)
    with pytest.raises(ValueError, match="at most 64-bit"):
        compiled.c_source(ops.graph, compiled.KernelSpec("mul", 40, 40, 80))


def test_every_form_of_look_up_matches_the_numpy_model():
    # Tables the kernel packs into one word (shifted per pair), into several (chosen by a
    # select tree), into one word per entry, keeps as arrays, or specialises to each row of a
    # (an index of a's bits and b's bits, in either order, with a constant part), and repeated
    # sub-expressions that become one value; exhaustively, model and statistics.
    from approx_units.dataflow import Ops
    rng = np.random.default_rng(24)
    ops = Ops()
    a, b = ops.input("a", 6), ops.input("b", 6)

    def table(index, bits, low=0):
        return ops.lookup(index, [int(v) for v in rng.integers(low, 1 << bits, 1 << index.width)], bits)

    lookups = [
        table(ops.cat(ops.slice(a, 0, 2), ops.slice(b, 0, 2)), 4),              # a row's word
        table(ops.cat(ops.slice(a, 0, 3), ops.slice(b, 1, 4)), 3),              # 8 entries x 4 bits
        table(ops.cat(ops.slice(b, 0, 4), ops.slice(a, 2, 4)), 5),              # b's bits first
        table(ops.cat(ops.slice(a, 4, 5), ops.const(1, 1), ops.slice(b, 4, 6)), 2),
        table(ops.cat(ops.slice(a, 0, 2), ops.slice(b, 0, 2)), 20),             # too wide for a row
        table(ops.slice(ops.mul(a, b), 3, 8), 2),                               # 2 packed words
        table(ops.slice(ops.xor(a, b), 0, 6), 1),                               # 64 x 1 bit
        table(ops.slice(ops.add(a, b), 0, 4), 40, low=1 << 33),                 # a 64-bit array
        table(ops.slice(ops.or_(a, b), 0, 2), 30),                              # a word per entry
        table(ops.slice(ops.and_(a, b), 0, 5), 7),                              # an array
        table(ops.slice(a, 1, 4), 9), table(ops.slice(b, 2, 5), 9),             # hoisted
        ops.lookup(ops.slice(ops.add(a, b), 2, 5), [5] * 8, 3),                 # a constant
        table(ops.cat(ops.slice(a, 0, 2), ops.slice(b, 0, 2)), 4),              # a repeat's twin
    ]
    output = lookups[0]
    for node in lookups[1:]:
        output = ops.xor(ops.zext(output, 40), ops.zext(node, 40))
    ops.graph.output = output
    graph = ops.graph
    evaluator = compiled.Evaluator(graph, compiled.KernelSpec("mul", 6, 6, 40))
    a_values, b_values = (v.ravel() for v in np.meshgrid(np.arange(64), np.arange(64), indexing="ij"))
    approx = numpy_evaluate(graph, {"a": a_values, "b": b_values})
    assert np.array_equal(evaluator.model(a_values, b_values), approx)
    expected = ErrorStats.of(a_values * b_values, approx.astype(np.int64))
    assert_same_stats(evaluator.range_stats((0, 64), (0, 64), workers=1)["exact"], expected)
    source = evaluator.source
    assert "rows" in source and "static const uint64_t table" in source and "? " in source


# --- third-party Verilog -------------------------------------------------------------------------

CIRCUITS = """
// 16-bit lower-part-OR adder: low 6 bits ORed, the rest a gate-level ripple-carry adder.
module loa16(input [15:0] A, input [15:0] B, output [16:0] O);
  wire [16:6] c;
  assign O[5:0] = A[5:0] | B[5:0];
  assign c[6] = A[5] & B[5];
  genvar i;
  generate for (i = 6; i < 16; i = i + 1) begin : fa
    assign O[i] = A[i] ^ B[i] ^ c[i];
    assign c[i + 1] = (A[i] & B[i]) | (c[i] & (A[i] ^ B[i]));
  end endgenerate
  assign O[16] = c[16];
endmodule

// 6x6 multiplier with the two lowest partial-product columns dropped, and a constant output bit.
module mul6t(input [5:0] A, input [5:0] B, output [11:0] O);
  wire [11:0] p = A * B;
  assign O = {p[11:2], 2'b01};
endmodule

// 8-bit divider (quotient of a 8-bit by a 8-bit value, all ones on division by zero).
module div8(input [7:0] A, input [7:0] B, output [7:0] O);
  assign O = (B == 0) ? 8'hff : A / B;
endmodule
"""


@pytest.fixture(scope="module")
def circuits(tmp_path_factory):
    from approx_units.verilog_eval import VerilogError, load_verilog
    path = tmp_path_factory.mktemp("verilog") / "circuits.v"
    path.write_text(CIRCUITS)
    loaded = {}
    try:
        for top, kind, width in (("loa16", "add", 16), ("mul6t", "mul", 6), ("div8", "div", 8)):
            loaded[top] = load_verilog(path, top, kind, width)
        example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "loa8.v")
        loaded["loa8"] = load_verilog(example, "loa8", "add", 8)
    except VerilogError as error:
        pytest.skip(f"Yosys unavailable: {error}")
    return loaded


@pytest.mark.parametrize("top", ["loa8", "loa16", "mul6t", "div8"])
def test_verilog_netlists_compile_bit_exactly(circuits, top):
    netlist = circuits[top]
    evaluator = compiled.evaluator_for(netlist)
    width = netlist.width
    rng = np.random.default_rng(7)
    if width <= 8:
        grid = np.broadcast_arrays(np.arange(1 << width)[:, None], np.arange(1 << width)[None, :])
        a, b = (x.ravel() for x in grid)
    else:
        a, b = (rng.integers(0, 1 << width, 50_000) for _ in range(2))
    expected_outputs = netlist.model(a, b).astype(np.uint64)
    assert np.array_equal(evaluator.model(a, b), expected_outputs)
    # The translated graph is a dataflow graph like any unit's: its numpy interpretation agrees too.
    assert np.array_equal(numpy_evaluate(netlist.graph, {"a": a, "b": b}), expected_outputs)
    assert_same_parts(evaluator.pair_stats(a, b), ev._stats_of(netlist, a, b).parts)
    if width <= 8:
        expected = ev._exhaustive_task(netlist, 0, 1 << width, (0, 1 << width))[0]
        assert_same_parts(evaluator.range_stats((0, 1 << width), (0, 1 << width), workers=2), expected.parts)


def test_loa16_verilog_equals_the_library_loa(circuits):
    # A hand-written 16-bit LOA (l = 6) measures as the library's LOA, bit-sliced and through
    # its graph (512 values of a times every b: 2^32 pairs would take the suite too long).
    # The kernels add the floating-point terms in other orders: those sums agree to 1e-12.
    netlist = compiled.evaluator_for(circuits["loa16"])
    library = compiled.evaluator_for(approx_units.get("loa", width=16, l=6))
    a_range, b_range = (1 << 14, (1 << 14) + 512), (0, 1 << 16)
    assert_same_parts(netlist.range_stats(a_range, b_range), library.range_stats(a_range, b_range))


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc to see the threads start")
def test_ctrl_c_stops_a_long_evaluation_cleanly():
    # The CLI on an exhaustive 16x16 run (tens of seconds), interrupted once its evaluation
    # threads run (one thread per BLAS library otherwise: the child's pool is then the only
    # source of extra threads): exit 130, one line, no traceback from any thread.
    environment = dict(os.environ, PYTHONPATH=os.getcwd(), OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                       MKL_NUM_THREADS="1")
    process = subprocess.Popen(axhls_command("units", "eval", "mitchell_refined", "--width", "16", "--exhaustive",
                                             "--workers", "2"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=environment)
    deadline = time.monotonic() + 240
    while process.poll() is None and time.monotonic() < deadline:
        if len(os.listdir(f"/proc/{process.pid}/task")) >= 3:
            break
        time.sleep(0.05)
    time.sleep(0.5)
    assert process.poll() is None, "the evaluation ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        raise
    assert process.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr
    assert "interrupted" in stderr


def test_pairs_out_of_range_are_refused_as_by_the_model():
    unit = approx_units.get("loa", width=6, l=2, signed=True)
    evaluator = compiled.evaluator_for(unit)
    with pytest.raises(ValueError, match="operand b value 32 is out of range .* allowed: -32..31"):
        evaluator.pair_stats([1, 2], [3, 32])
    with pytest.raises(ValueError, match="out of range"):
        ev.evaluate(ev.LibraryUnit("loa", 6, 0, (("l", 2), ("signed", True))),
                    distribution=ev.Pairs([0, -33], [1, 1]), engine="compiled")


def test_speed_benchmark_references_agree_with_the_models():
    # benchmarks/units_speed.py at 8 bits: its C references are checked against axhls's
    # models pair by pair and metric by metric (it exits non-zero on a mismatch).
    environment = dict(os.environ, PYTHONPATH=os.getcwd())
    result = subprocess.run([sys.executable, "benchmarks/units_speed.py", "--width", "8", "--skip-8bit"],
                            capture_output=True, text=True, env=environment, timeout=300)
    assert result.returncode == 0, result.stderr
    # A race for every library multiplier and for loa8, each timed on 1 and on 2 threads.
    multipliers = [name for name in approx_units.names() if spec(name).kind == "mul"]
    assert "not raced" not in result.stdout
    assert result.stdout.count("metrics agree with the C reference") == 2 * (len(multipliers) + 1)
    assert result.stdout.count("equals axhls's model on") == len(multipliers) + 1
    assert "summary (axhls on 2 threads / C on 1): exact_mul" in result.stdout
    assert "summary (axhls on 1 thread / C on 1): exact_mul" in result.stdout
    table = result.stdout.split("library multipliers 8x8, target")[1].splitlines()
    assert [line.split()[0].split("(")[0] for line in table[2:2 + len(multipliers)]] == multipliers
