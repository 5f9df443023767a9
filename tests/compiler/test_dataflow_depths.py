"""FIFO depths from the stages' schedules (issue 22): the token-level model of
:mod:`hls.dataflow_timing` against Amaranth's simulator cycle for cycle, the depths it derives,
a hand-given depth too small refused, and, with the check bypassed, the stall it predicts."""

import random
import re
import textwrap

import pytest
from amaranth.sim import Simulator

import dataflow_kernels as chains
from axhls.loading import import_file
from hls.dataflow import DataflowComponent
from hls.dataflow_timing import UNBOUNDED, iterations, simulate
from hls.errors import KernelSyntaxError
from sim.kernel import run


def _trace(chain, args, depths=None, max_cycles=2000):
    """The chain's hardware with every input always valid and every output always ready: the
    cycles each port's tokens moved, the tokens out, and the cycle of ``done``."""
    dut = DataflowComponent(chain, depths=depths)
    inputs = {p.name: list(args[p.name]) for p in chain.params if p.kind == "stream" and p.direction == "in"}
    outputs = [p.name for p in chain.params if p.kind == "stream" and p.direction == "out"]
    times = {name: [] for name in [*inputs, *outputs]}
    tokens = {name: [] for name in outputs}
    result = {}

    async def bench(ctx):
        for param in chain.params:
            if param.kind == "scalar":
                ctx.set(getattr(dut, param.name), args[param.name])
        ctx.set(dut.ctrl.start, 1)
        for name in outputs:
            ctx.set(getattr(dut, name).ready, 1)
        for cycle in range(max_cycles):
            for name, left in inputs.items():
                port = getattr(dut, name)
                ctx.set(port.valid, bool(left))
                if left:
                    ctx.set(port.payload, left[0])
            if cycle and ctx.get(dut.ctrl.done):
                result["done"] = cycle
                return
            for name, left in inputs.items():
                if left and ctx.get(getattr(dut, name).ready):
                    times[name].append(cycle)
                    left.pop(0)
            for name in outputs:
                port = getattr(dut, name)
                if ctx.get(port.valid):
                    times[name].append(cycle)
                    tokens[name].append(ctx.get(port.payload))
            await ctx.tick()
            ctx.set(dut.ctrl.start, 0)
        result["done"] = None

    simulator = Simulator(dut)
    simulator.add_clock(1e-6)
    simulator.add_testbench(bench)
    simulator.run()
    return times, tokens, result["done"]


def _model(chain, depths, sources):
    plan = chain.plan(check=False)
    trace = simulate(plan.models, plan.links, depths, iterations(plan.models, plan.links, sources), 20000)
    ports = {source: trace.transfers[(index, name)] for index, stage in enumerate(chain.stages)
             for name, (kind, source) in stage.streams.items() if kind == "param"}
    return trace, ports


def _lagging_args(n, seed=1):
    rng = random.Random(seed)
    return {"s": [rng.randint(-2048, 2047) for _ in range(n)], "n": n}


def _random_args(name, n, rng):
    """Arguments of chain ``name`` over ``n`` tokens (``rates``: 2n in, its second stage m = 2n)."""
    if name == "rates":
        return {"s": [rng.randint(0, 255) for _ in range(2 * n)], "n": n, "m": 2 * n}
    return {"s": [rng.randint(-2048, 2047) for _ in range(n)], "n": n}


def test_derived_depths():
    """II-1 stages in step need 2 (a one-token FIFO takes a write only when empty); a reader
    that starts 24 iterations late needs what the writer makes meanwhile; a writer faster than
    its reader (pairs: a token a cycle, spread: one in two) needs only what keeps the reader fed."""
    assert [(f.name, f.needed, f.outpaced) for f in chains.detector.fifos.values() if chains.detector.plan()] == [
        ("mid", 2, False), ("mag", 2, False)]
    chains.lagging.plan()
    assert (chains.lagging.fifos["mid"].needed, chains.lagging.fifos["mid"].depth) == (26, 26)
    chains.rates.plan()
    assert (chains.rates.fifos["half"].needed, chains.rates.fifos["half"].outpaced) == (1, True)


@pytest.mark.parametrize("name, depths", [("lagging", None), ("lagging", {"mid": 25}), ("lagging", {"mid": 3}),
                                          ("rates", None), ("rates", {"half": 4}), ("detector", {"mid": 1})])
def test_the_model_moves_tokens_in_the_cycles_the_hardware_does(name, depths):
    chain = getattr(chains, name)
    rng = random.Random(name)
    n = 30
    if name == "rates":
        args = {"s": [rng.randint(0, 255) for _ in range(2 * n)], "n": n, "m": 2 * n}
    else:
        args = _lagging_args(n, seed=3)
    chain.plan()
    built = {item.name: item.depth for item in chain.fifos.values()} | (depths or {})
    trace, ports = _model(chain, built, n)
    times, _, done = _trace(chain, args, depths)
    exact = {name: when for name, when in ports.items()
             if not any(stage_stream in model.conditional for stage, model in zip(chain.stages, chain.plan().models)
                        for stage_stream, (kind, source) in stage.streams.items() if source == name)}
    assert exact and all(times[port] == when for port, when in exact.items()), (times, ports)
    if len(exact) == len(ports):
        assert trace.cycles == done
    else:
        assert done <= trace.cycles     # conditional writes taken as done: an upper bound


def test_a_hand_given_depth_too_small_is_refused(tmp_path):
    path = tmp_path / "short_fifo.py"
    path.write_text(textwrap.dedent("""\
        import hls
        from amaranth import signed, unsigned
        from dataflow_kernels import smooth, late_copy


        @hls.dataflow
        def chain(s: hls.Stream[signed(12)], o: hls.Stream[signed(14)], n: unsigned(10)):
            mid = hls.fifo(signed(14), depth=4)
            smooth(s, mid, n)
            late_copy(mid, o, n)
        """))
    chain = import_file(str(path)).chain
    message = ("short_fifo.py:8:5: FIFO 'mid': depth=4 is too small for the schedules of moving_sum -> late_copy, "
               "which need depth 26 (else the writer stalls) (hint: leave depth out for 26")
    for build in (chain.to_amaranth, chain.report, lambda: run(chain, _lagging_args(4))):
        with pytest.raises(KernelSyntaxError, match=re.escape(message)) as error:
            build()
        assert "\n" not in str(error.value)


def test_with_the_check_bypassed_the_writer_stalls_as_predicted():
    """One token short of the figure, the writer is held: the chain takes its input later than
    its schedule, by the cycles the model predicts; the tokens are still the golden model's."""
    n = 40
    args = _lagging_args(n, seed=4)
    expected = []
    chains.lagging(s=args["s"], o=expected, n=n)
    needed = chains.lagging.plan().chain.fifos["mid"].needed
    full, full_tokens, full_done = _trace(chains.lagging, args)
    short, short_tokens, short_done = _trace(chains.lagging, args, {"mid": needed - 1})
    model, ports = _model(chains.lagging, {"mid": needed - 1}, n)
    free, _ = _model(chains.lagging, {"mid": UNBOUNDED}, n)
    assert full["s"] == list(range(3, 3 + n))           # at full depth: a token every cycle from cycle 3
    assert free.blocked["mid"] == 0 and model.blocked["mid"] > 0
    assert short["s"] == ports["s"] and short["s"] != full["s"]
    assert sum(a != b for a, b in zip(short["s"], full["s"])) > 0
    assert short_tokens["o"] == expected
    assert full_tokens == short_tokens


@pytest.mark.parametrize("name", ["lagging", "rates"])
def test_derived_depths_under_random_stalls_equal_the_golden_model(name):
    chain = getattr(chains, name)
    rng = random.Random(f"depths-{name}")
    for trial in range(2):
        args = _random_args(name, rng.randint(1, 25), rng)
        result = run(chain, args, stall_probability=0.3, stall_seed=trial)
        assert result.match, (name, args, result.differences)


def test_the_report_gives_throughput_and_latency():
    data = chains.lagging.report_data(100)
    assert [(s["name"], s["ii"], s["depth"], s["tokens_per_call"]) for s in data["stages"]] == [
        ("moving_sum", 1, 1, {"s": 100, "o": 100}), ("late_copy", 1, 1, {"s": 100, "o": 100})]
    assert [(f["name"], f["depth"], f["needed"], f["given"], f["bits"]) for f in data["fifos"]] == [
        ("mid", 26, 26, None, 26 * 14)]
    figures = data["figures"]
    times, _, done = _trace(chains.lagging, _lagging_args(100))
    assert figures["cycles"] == done and figures["first_token_in"] == times["s"][0]
    assert figures["first_token_out"] == times["o"][0]
    assert figures["latency"] == times["o"][0] - times["s"][0]
    assert figures["bound"] == pytest.approx(1.05 * (100 + 2 + 1)) == chains.lagging.plan().bound(100)
    text = chains.lagging.report(100)
    assert "FIFO mid (line " in text and "depth 26" in text and f"{done} cycles" in text
    with pytest.raises(ValueError, match="tokens must be an integer of at least 1, not 0"):
        chains.lagging.report_data(0)


def _diamond_args(n, seed):
    rng = random.Random(seed)
    return {"s": [rng.randint(-2048, 2047) for _ in range(n)], "n": n}


def test_a_fork_that_joins_again_deadlocks_when_its_short_branch_is_too_shallow():
    """``diamond``: the long branch (``delay4``) reads five tokens before it writes one, so the
    short branch's FIFO holds what the fork writes meanwhile. The figure (9) keeps the fork from
    stalling; shallower costs cycles; below 3 (3 + the fork's two-token buffer = the 5 tokens
    ``delay4`` needs) the chain deadlocks. The model predicts each, cycle for cycle."""
    chain = chains.diamond
    chain.plan()
    short = chain.fifos["short"]
    assert (short.needed, short.deadlock_below) == (9, 3)
    n = 30
    args = _diamond_args(n, 1)
    expected = []
    chain(s=args["s"], o=expected, n=n)
    cycles = {}
    for depth in (9, 4, 2):
        depths = {item.name: item.depth for item in chain.fifos.values()} | {"short": depth}
        model, ports = _model(chain, depths, n)
        times, tokens, done = _trace(chain, args, {"short": depth}, max_cycles=400)
        assert done == model.cycles and times == ports, depth
        if done is not None:
            assert tokens["o"] == expected
        cycles[depth] = done
    assert cycles[9] < cycles[4] and cycles[2] is None


def test_a_hand_given_depth_that_deadlocks_is_refused(tmp_path):
    path = tmp_path / "shallow.py"
    path.write_text(textwrap.dedent("""\
        import hls
        from amaranth import signed, unsigned
        from dataflow_kernels import fork, delay4, join


        @hls.dataflow
        def chain(s: hls.Stream[signed(12)], o: hls.Stream[signed(13)], n: unsigned(10)):
            long = hls.fifo(signed(12))
            short = hls.fifo(signed(12), depth=2)
            late = hls.fifo(signed(12))
            fork(s, long, short, n)
            delay4(long, late, n)
            join(late, short, o, n)
        """))
    with pytest.raises(KernelSyntaxError, match=re.escape(
            "shallow.py:9:5: FIFO 'short': depth=2 is too small for the schedules of fork -> join, which need "
            "depth 9 (below 3 the chain deadlocks)")):
        import_file(str(path)).chain.to_amaranth()


def test_a_fork_that_joins_again_under_random_stalls_equals_the_golden_model():
    for trial in range(2):
        args = _diamond_args(random.Random(trial).randint(4, 30), trial + 10)
        result = run(chains.diamond, args, stall_probability=0.3, stall_seed=trial)
        assert result.match, (args, result.differences)


def test_a_fifo_whose_tokens_depend_on_the_data_keeps_its_given_depth(tmp_path):
    """``filter_positive`` writes its FIFO under a condition: the schedules do not bound the
    depth, so a hand-given one is taken as it is, a missing one is 2, and the report says why."""
    path = tmp_path / "filtered.py"
    path.write_text(textwrap.dedent("""\
        import hls
        from amaranth import signed, unsigned
        from stream_kernels import filter_positive, copy


        @hls.dataflow
        def chain(s: hls.Stream[signed(12)], o: hls.Stream[signed(12)], p: hls.Stream[signed(16)],
                  n: unsigned(8)):
            kept = hls.fifo(signed(12), depth=1)
            filter_positive(s, kept, n)
            copy(s=kept, o=o, n=n)
        """))
    chain = import_file(str(path)).chain
    # ``copy`` takes signed(16): the chain is refused before any depth matters.
    with pytest.raises(KernelSyntaxError, match="'kept' carries signed\\(12\\) tokens but stream 's' of copy"):
        chain.analyze()
    path.write_text(path.read_text().replace("copy(s=kept, o=o, n=n)", "filter_positive(s=kept, o=o, n=n)")
                    .replace(", p: hls.Stream[signed(16)]", ""))
    chain = import_file(str(path)).chain
    data = chain.report_data(10)
    assert data["fifos"][0]["depth"] == 1 and data["fifos"][0]["needed"] is None
    assert data["fifos"][0]["rule"].startswith("not derived (stage filter_positive is not modelled: line ")
    assert "stream 'o' is written under a condition" in data["fifos"][0]["rule"]
    assert data["figures"] is None and "filter_positive" in data["figures_reason"]
    # The throughput bound needs only the schedules: the stages' pipelined loops of depth 1, one FIFO.
    assert [[loop["depth"] for loop in stage["loops"]] for stage in data["stages"]] == [[1], [1]]
    assert chain.plan().bound(10) == pytest.approx(1.05 * (10 + 2 + 1))
    args = {"s": [3, 1, 4, 1, 5, 9, 2, 6], "n": 8}      # all kept: the second stage reads n of them
    assert run(chain, args, stall_probability=0.3, stall_seed=1).match


def test_the_bypass_takes_only_fifos_of_the_chain():
    with pytest.raises(ValueError, match=r"depths: 'nowhere': 3 is not a FIFO of lagging"):
        DataflowComponent(chains.lagging, depths={"nowhere": 3})
    with pytest.raises(ValueError, match=r"depths: 'mid': 0 is not a FIFO of lagging with a depth of 1 or more"):
        DataflowComponent(chains.lagging, depths={"mid": 0})


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lagging", "diamond", "detector", "rates"])
def test_at_random_depths_the_model_moves_tokens_in_the_hardware_s_cycles(name):
    """Random depths (stalls, lost cycles, deadlocks): the model's cycles are the hardware's."""
    chain = getattr(chains, name)
    chain.plan()
    rng = random.Random(f"random-depths-{name}")
    for trial in range(4):
        n = rng.randint(5, 30)
        args = _random_args(name, n, rng)
        depths = {item.name: rng.randint(1, item.depth + 2) for item in chain.fifos.values()}
        model, ports = _model(chain, depths, n)
        times, _, done = _trace(chain, args, depths, max_cycles=600)
        exact = {port: when for port, when in ports.items() if port != "o" or name != "detector"}
        assert all(times[port] == when for port, when in exact.items()), (depths, times, ports)
        if name != "detector":
            assert done == model.cycles, depths
