"""Stream ports (issue 22): ``hls.Stream`` parameters in the golden model, the scheduler and the
hardware, whose tokens under random ``valid``/``ready`` stalls equal the golden model's."""

import copy
import random

import pytest
from amaranth.hdl import Module, signed, unsigned
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

import stream_kernels as kernels
from hls.backend import kernel_signature
from hls.compiler import compile_kernel
from hls.errors import KernelRuntimeError
from hls.kernel import Kernel
from sim.kernel import run
from sim_helpers import require_simulator


def _tokens(rng, n, lo, hi):
    return [rng.randint(lo, hi) for _ in range(n)]


def _row_sums(rng):
    rows, cols = rng.randint(0, 6), rng.choice((0, 1, rng.randint(0, 7)))
    return {"s": _tokens(rng, rows * cols, -128, 127), "rows": rows, "cols": cols}


def _until_zero(rng):
    return {"s": _tokens(rng, rng.randint(0, 20), 1, 255) + [0] + _tokens(rng, 3, 0, 255)}


def _framed(rng):
    n = rng.randint(0, 12)
    return {"s": [n] + _tokens(rng, n, 0, 255) + _tokens(rng, 2, 0, 255)}


def _merge(rng):
    n = rng.randint(0, 20)
    return {"flags": _tokens(rng, n, 0, 1), "a": _tokens(rng, n, -128, 127), "b": _tokens(rng, n, -128, 127), "n": n}


def _bursts(rng):
    m, tokens = rng.randint(0, 5), []
    for _ in range(m):
        n = rng.randint(0, 4)
        tokens += [n] + _tokens(rng, n, 0, 15)
    return {"s": tokens, "m": m}


def _sized(make, most):
    """Arguments ``make(rng, n)`` for a random count ``n`` up to ``most``."""
    return lambda rng: make(rng, rng.randint(0, most))


#: Arguments of each kernel of stream_kernels.py, from a seeded generator.
CASES = {
    "copy": _sized(lambda r, n: {"s": _tokens(r, n, -2 ** 15, 2 ** 15 - 1), "n": n}, 40),
    "filter_positive": _sized(lambda r, n: {"s": _tokens(r, n, -2048, 2047), "n": n}, 40),
    "merge": _merge,
    "row_sums": _row_sums,
    "pairs": _sized(lambda r, n: {"s": _tokens(r, 2 * n, 0, 255), "n": n}, 20),
    "lookup": _sized(lambda r, n: {"s": _tokens(r, n, 0, 15), "table": _tokens(r, 16, -999, 999), "n": n}, 30),
    "until_zero": _until_zero,
    "framed": _framed,
    "histogram": _sized(lambda r, n: {"s": _tokens(r, n, 0, 7), "h": _tokens(r, 8, 0, 9), "n": n}, 40),
    "bursts": _bursts,
    "local_counts": _sized(lambda r, n: {"s": _tokens(r, n, 0, 1) + _tokens(r, n, 0, 3), "n": 2 * n}, 20),
    "reverse": _sized(lambda r, n: {"s": _tokens(r, n, -128, 127), "n": n}, 16),
    "products": _sized(lambda r, n: {"a": _tokens(r, n, -2 ** 15, 2 ** 15 - 1), "b": _tokens(r, n, -2 ** 15, 2 ** 15 - 1),
                                     "n": n}, 20),
    "divide": _sized(lambda r, n: {"s": _tokens(r, n, -2048, 2047), "d": r.choice([-32, -7, -1, 0, 1, 3, 31]), "n": n},
                     20),
}


# -- the golden model -----------------------------------------------------------------------

def test_the_golden_model_reads_an_iterable_and_appends_to_a_list():
    out = []
    assert kernels.filter_positive(s=iter([5, -3, 0, 2047, -2048, 7]), o=out, n=6) == 3
    assert out == [5, 2047, 7]
    out = []
    kernels.row_sums(s=(x for x in [1, 2, 3, 4, 5, 6]), o=out, rows=2, cols=3)
    assert out == [1 + 4 + 9, 4 + 10 + 18]
    model = kernels.pairs.golden_model()
    out = []
    kernels.pairs(s=[200, 100, 255, 255], o=out, n=2)
    assert out == [300, 100, 510, 0] and model.tokens_read == {"s": 4}


def test_a_write_wraps_to_the_stream_shape_and_a_read_past_the_end_names_the_line():
    out = []
    kernels.framed(s=[2, 255, 255], o=out)
    assert out == [255, 255, 510]
    with pytest.raises(KernelRuntimeError, match=r"stream_kernels\.py:\d+: read 3 of stream 's', which gave only 2"):
        kernels.framed(s=[5, 1], o=[])


def _outcome(model, args: dict):
    """A run's result, arguments (output streams included) and token counts, or its error."""
    arguments = copy.deepcopy(args)
    for param in model.typed.params:
        if param.kind == "stream" and param.direction == "out":
            arguments.setdefault(param.name, [])
    try:
        result = model.call((), arguments)
    except Exception as error:
        return "raised", type(error), str(error), arguments, model.tokens_read
    return result, arguments, model.tokens_read


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_compiled_model_of_a_stream_kernel_is_the_python_run(name):
    kernel = getattr(kernels, name)
    model = kernel.compiled_model()
    assert model.compiled, model.fallback_reason
    rng = random.Random(f"compiled-{name}")
    for _ in range(8):
        args = CASES[name](rng)
        assert _outcome(model, args) == _outcome(kernel.golden_model(), args)
        # Too few tokens: the Python run's error, after the same writes.
        short = {key: value[:len(value) // 2] if key in model.tokens_read and isinstance(value, list) else value
                 for key, value in args.items()}
        assert _outcome(model, short) == _outcome(kernel.golden_model(), short)


def test_the_compiled_model_reads_an_iterator_token_by_token_and_raises_the_python_runs_errors():
    model = kernels.pairs.compiled_model()
    tokens = iter([200, 100, 255, 255, 9, 9])
    out = [7]
    model(s=tokens, o=out, n=2)
    assert out == [7, 300, 100, 510, 0] and model.tokens_read == {"s": 4} and list(tokens) == [9, 9]
    with pytest.raises(KernelRuntimeError, match=r"stream_kernels\.py:\d+: read 3 of stream 's', which gave only 2"):
        kernels.framed.compiled_model()(s=iter([5, 1]), o=[])
    assert kernels.framed.compiled_model().tokens_read == {"s": 2}
    with pytest.raises(ValueError, match="token 2 of stream 's' = 256 does not fit unsigned"):
        model(s=iter([1, 2, 256, 3]), o=[], n=2)
    with pytest.raises(ValueError, match="token 2 of stream 's' = 256 does not fit unsigned"):
        model(s=[1, 2, 256, 3], o=[], n=2)
    # More tokens than a buffer holds are handed to the list as it fills.
    out = []
    kernels.copy.compiled_model()(s=list(range(600)), o=out, n=255)
    assert out == list(range(255))


def test_stream_directions_are_inferred_from_use():
    params = {param.name: param for param in kernels.merge.params}
    assert [params[name].direction for name in ("flags", "a", "b", "o")] == ["in", "in", "in", "out"]
    assert params["n"].direction is None and params["o"].kind == "stream" and params["o"].shape == signed(9)


# -- ports and schedule ---------------------------------------------------------------------

def test_stream_ports_have_amaranth_stream_signatures():
    signature = kernel_signature(compile_kernel(kernels.copy).ir)
    assert signature.members["s"] == In(stream.Signature(signed(16)))
    assert signature.members["o"] == Out(stream.Signature(signed(16)))
    assert signature.streams == {"s": (signed(16), "in"), "o": (signed(16), "out")}


# Amaranth FIFOs attached with wiring.connect: examples/streams.py (tests/frontend/test_examples.py).


def test_the_report_explains_an_ii_bounded_by_a_stream_in_the_users_lines():
    loop = kernels.pairs.report().data["loops"][0]
    assert loop["ii"] == 2 and loop["bound"]["kind"] == "resource"
    assert loop["bound"]["detail"] == "2 uses of stream `s` (limit 1)"
    source = kernels.pairs.report().source_lines
    assert [source[line - 1].strip() for line in loop["bound"]["lines"]] == ["x = s.read()", "y = s.read()"]


def test_streams_inside_a_flattened_nest_and_a_pipelined_loop_at_ii_1():
    report = kernels.row_sums.report().data["loops"]
    assert len(report) == 1 and report[0]["flattened"] and report[0]["ii"] == 1
    # The inner runs of `bursts` overlap the outer code, which reads the same stream.
    assert "inner runs overlapped" in kernels.bursts.report().to_text()
    for kernel in (kernels.copy, kernels.filter_positive, kernels.merge, kernels.lookup):
        assert [loop["ii"] for loop in kernel.report().data["loops"]] == [1], kernel.name


def _stream_operations(compiled):
    """``(op, its predicate's ready time, its start cycle)`` of every predicated stream operation."""
    for node in compiled.ir.nodes:
        block = getattr(node, "body", node)
        if id(block) not in compiled.schedules:
            continue
        scheduled = compiled.schedule_of(block)
        problem, schedule = scheduled.problem.problem, scheduled.schedule
        for op in block.ops:
            if op.kind in ("stream_read", "stream_write") and op.predicate is not None:
                yield op, schedule.ready(problem, op.predicate.name), schedule.start[op.name]


def _for_clock(kernel, clock_mhz):
    """``kernel`` compiled for ``clock_mhz`` as the clock sweep builds it (not retargeted)."""
    return compile_kernel(Kernel(kernel.fn, target=kernel.target.replace(clock_mhz=clock_mhz)), retarget=False)


@pytest.mark.parametrize("clock_mhz", [100.0, 150.0, 200.0])
def test_a_stream_operations_predicate_leaves_the_stall_its_time(clock_mhz):
    """A stream operation's predicate decides the stall, which reaches every register's enable:
    it chains into the operation only where the stall's logic (``stream_stall``) fits the rest
    of the cycle after it, and otherwise comes from a register (ready at a cycle's start)."""
    from examples.apps import ecg, image
    chosen = [getattr(kernels, name) for name in sorted(CASES)] + [image.blur_stream, image.sobel_stream,
                                                                   ecg.bandpass_stream, ecg.detect_stream]
    seen = chained = 0
    for kernel in chosen:
        compiled = _for_clock(kernel, clock_mhz)
        room = compiled.target.usable_period_ns - compiled.target.delay_model.stream_stall
        for op, (cycle, offset), start in _stream_operations(compiled):
            assert cycle < start or (cycle == start and (offset == 0.0 or offset <= room + 1e-9)), \
                (kernel.name, op.name, cycle, offset, start)
            seen += 1
            chained += cycle == start and offset > 0
    assert seen >= 10 and (chained > 0) == (clock_mhz == 100.0)
    # Sobel's `if k < pixels: v = b.read()`: the 14-bit comparison takes 2.29 ns, which leaves
    # the stall its 5.7 ns in a 100 MHz cycle (8 ns after the registers' 2), not at 150 or 200 MHz:
    # there the read waits for the next cycle.
    sobel = _for_clock(image.sobel_stream, clock_mhz)
    (read, (cycle, offset), start), = [found for found in _stream_operations(sobel) if found[0].kind == "stream_read"]
    assert read.predicate.kind == "lt" and cycle == 0 and offset == pytest.approx(2.29, abs=0.01)
    assert start == (0 if clock_mhz == 100.0 else 1)


def test_a_block_run_once_starts_its_stream_operations_after_its_go_cycle():
    """Cycle 0 of a block run once is its `go` pulse, late from the node before (a loop's `done`
    logic): its stream operations start at cycle 1 or later, where the valid bit is a register."""
    from examples.apps import image
    blocks = 0
    for kernel in [getattr(kernels, name) for name in sorted(CASES)] + [image.sobel_stream]:
        compiled = _for_clock(kernel, 150.0)
        for node in compiled.ir.nodes:
            if hasattr(node, "body") or id(node) not in compiled.schedules:
                continue
            starts = compiled.schedule_of(node).start
            streamed = [starts[op.name] for op in node.ops if op.kind in ("stream_read", "stream_write")]
            assert all(start >= 1 for start in streamed), (kernel.name, node.name, streamed)
            blocks += bool(streamed)
    assert blocks >= 4      # framed, bursts, threshold-like writes after loops, sobel's `peak.write(top)`


@pytest.mark.parametrize("clock_mhz", [100.0, 200.0])
def test_stream_kernels_with_registered_predicates_under_random_stalls_equal_the_golden_model(clock_mhz):
    """Kernels whose stream operations wait a cycle for their predicate at 200 MHz (a comparison
    of the token read: `filter_positive`, `until_zero`; of another stream's token: `merge`), and
    the same at 100 MHz, where they may chain on it."""
    for name in ("filter_positive", "merge", "until_zero", "framed"):
        kernel = getattr(kernels, name)
        kernel = Kernel(kernel.fn, target=kernel.target.replace(clock_mhz=clock_mhz))
        waiting = [start > cycle for _, (cycle, _), start in _stream_operations(_for_clock(kernel, clock_mhz))]
        assert name == "framed" or clock_mhz == 100.0 or any(waiting), name
        rng = random.Random(f"registered-{name}-{clock_mhz}")
        for trial in range(2):
            args = CASES[name](rng)
            result = run(kernel, args, stall_probability=0.3, stall_seed=trial)
            assert result.match, (name, args, result.differences)
            assert result.outputs["streams"] == result.expected["streams"]


def test_a_kernel_without_streams_has_no_stall():
    from flatten_kernels import perfect
    assert "stall" not in compile_kernel(perfect).verilog("perfect")
    assert "stall" in compile_kernel(kernels.copy).verilog("copy")


# -- hardware against the golden model ------------------------------------------------------

@pytest.mark.parametrize("name", sorted(CASES))
def test_tokens_under_random_stalls_equal_the_golden_model(name):
    kernel = getattr(kernels, name)
    rng = random.Random(f"streams-{name}")
    for trial in range(3):
        args = CASES[name](rng)
        for probability in (0.0, 0.3):
            result = run(kernel, args, stall_probability=probability, stall_seed=trial)
            assert result.match, (name, args, probability, result.differences)
            assert result.outputs["streams"] == result.expected["streams"]
            assert result.outputs["tokens_read"] == result.expected["tokens_read"]


@pytest.mark.cocotb
@pytest.mark.parametrize("name", ["merge", "row_sums", "lookup", "until_zero", "bursts", "local_counts"])
def test_tokens_under_random_stalls_in_icarus_equal_the_golden_model(name):
    """The generated Verilog under cocotb and Icarus: the same stalls for a seed as in Amaranth's
    simulator, so the same cycle count too."""
    require_simulator("icarus")
    kernel = getattr(kernels, name)
    args = CASES[name](random.Random(f"icarus-{name}"))
    verilog = run(kernel, args, backend="icarus", stall_probability=0.3, stall_seed=11)
    assert verilog.match, (name, args, verilog.differences)
    assert verilog.cycles == run(kernel, args, stall_probability=0.3, stall_seed=11).cycles


def test_stalls_cost_cycles_but_the_same_seed_gives_the_same_run():
    args = {"s": list(range(100)), "n": 100}
    free = run(kernels.copy, args)
    stalled = run(kernels.copy, args, stall_probability=0.3, stall_seed=7)
    again = run(kernels.copy, args, stall_probability=0.3, stall_seed=7)
    assert free.match and stalled.match and stalled.to_json() == again.to_json()
    assert stalled.cycles > free.cycles + 30       # about 1 / (0.7 * 0.7) cycles per token


def test_an_ii_1_streaming_loop_moves_a_token_every_cycle():
    n = 200
    result = run(kernels.copy, {"s": list(range(n)), "n": n})
    assert result.match and result.outputs["streams"]["o"] == list(range(n))
    # The handshake, the loop's start and its depth, and the output buffer: a few cycles beyond N.
    assert n <= result.cycles <= n + 6, result.cycles


def test_no_combinational_path_from_ready_to_valid():
    """In every cycle of a stalled run, flipping a consumer's ``ready`` or a producer's ``valid``
    does not move any output ``valid`` or ``payload`` within the cycle: outputs are registered."""
    m = Module()
    m.submodules.kernel = dut = compile_kernel(kernels.merge).component()
    rng = random.Random(3)
    n = 40
    tokens = {"flags": _tokens(rng, n, 0, 1), "a": _tokens(rng, n, -128, 127), "b": _tokens(rng, n, -128, 127)}
    checked = []

    async def testbench(ctx):
        ctx.set(dut.n, n)
        ctx.set(dut.ctrl.start, 1)
        await ctx.tick()
        ctx.set(dut.ctrl.start, 0)
        taken = {name: 0 for name in tokens}
        for _ in range(400):
            for name, values in tokens.items():
                port = getattr(dut, name)
                ctx.set(port.valid, taken[name] < n and rng.random() < 0.7)
                ctx.set(port.payload, values[min(taken[name], n - 1)])
            ctx.set(dut.o.ready, rng.random() < 0.7)
            seen = (ctx.get(dut.o.valid), ctx.get(dut.o.payload))
            for flip in [dut.o.ready] + [getattr(dut, name).valid for name in tokens]:
                before = ctx.get(flip)
                ctx.set(flip, 1 - before)
                assert (ctx.get(dut.o.valid), ctx.get(dut.o.payload)) == seen
                ctx.set(flip, before)
            checked.append(seen[0])
            fired = [name for name in tokens if ctx.get(getattr(dut, name).valid) and ctx.get(getattr(dut, name).ready)]
            await ctx.tick()
            for name in fired:
                taken[name] += 1

    simulator = Simulator(m)
    simulator.add_clock(1e-8)
    simulator.add_testbench(testbench)
    simulator.run()
    assert any(checked) and not all(checked)


def test_sim_run_checks_its_stall_options():
    for bad in (-0.1, 1, 1.5, "0.3", True):
        with pytest.raises(ValueError, match="stall_probability must be a number in"):
            run(kernels.copy, {"s": [1], "n": 1}, stall_probability=bad)


def test_an_output_stream_argument_may_be_left_out_of_sim_run():
    result = run(kernels.filter_positive, {"s": [3, -1, 4], "n": 3})
    assert result.match and result.outputs["streams"] == {"o": [3, 4]} and result.outputs["return"] == 2
    assert result.outputs["tokens_read"] == {"s": 3}


def test_axhls_sim_takes_stream_lists_and_stalls(tmp_path, monkeypatch, capsys):
    import json
    import shutil
    from pathlib import Path
    from axhls.cli import main
    shutil.copy(Path(kernels.__file__), tmp_path / "k.py")
    (tmp_path / "args.json").write_text('{"s": [3, -1, 4, 5, -9, 2], "n": 6}')
    monkeypatch.chdir(tmp_path)
    assert main(["sim", "k.py:filter_positive", "--args", "args.json", "--json", "--stall-probability", "0.3",
                 "--stall-seed", "4"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["match"] and result["outputs"]["streams"] == {"o": [3, 4, 5, 2]}
    assert result["outputs"]["tokens_read"] == {"s": 6} and result["outputs"]["return"] == 4
    assert main(["sim", "k.py:filter_positive", "--args", "args.json"]) == 0
    assert "stream o: 4 tokens: [3, 4, 5, 2]" in capsys.readouterr().out
