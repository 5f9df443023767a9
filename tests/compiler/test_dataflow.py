"""``@hls.dataflow`` (issue 22): chains of stream kernels through FIFOs, their golden model, their
hardware under random stalls, their throughput, and the chains they refuse."""

import random
import re
import textwrap

import pytest
from amaranth.hdl import signed, unsigned
from amaranth.lib import stream
from amaranth.lib.wiring import In, Out

import dataflow_kernels as chains
from axhls.loading import import_file
from hls.errors import KernelRuntimeError, KernelSyntaxError
from sim.kernel import run
from sim_helpers import require_simulator


def _tokens(rng, n, lo, hi):
    return [rng.randint(lo, hi) for _ in range(n)]


def _detector(rng):
    n = rng.randint(0, 60)
    return {"s": _tokens(rng, n, -2048, 2047), "n": n}


def _rates(rng):
    n = rng.randint(0, 20)
    return {"s": _tokens(rng, 2 * n, 0, 255), "n": n, "m": 2 * n}


def _two_paths(rng):
    n, m = rng.randint(0, 30), rng.randint(0, 30)
    return {"a": _tokens(rng, n, -2048, 2047), "b": _tokens(rng, m, -2048, 2047), "n": n, "m": m}


CASES = {"detector": _detector, "rates": _rates, "two_paths": _two_paths}


def test_the_golden_model_runs_the_stages_in_order():
    rng = random.Random(1)
    tokens = _tokens(rng, 50, -2048, 2047)
    smoothed, magnitudes, expected, got = [], [], [], []
    chains.smooth(s=tokens, o=smoothed, n=50)
    chains.magnitude(s=smoothed, o=magnitudes, n=50)
    chains.runs(s=magnitudes, o=expected, n=50, level=chains.LEVEL)
    assert chains.detector(s=iter(tokens), o=got, n=50) is None
    assert got == expected and expected and chains.detector.tokens_read == {"s": 50}


def test_the_compiled_model_of_a_chain_runs_its_stages_compiled_models():
    model = chains.detector.compiled_model()
    assert model.compiled and model.fallback_reason is None
    assert all(stage.kernel.compiled_model().compiled for stage in chains.detector.stages)
    tokens = _tokens(random.Random(2), 40, -2048, 2047)
    expected, got = [], []
    chains.detector(s=tokens, o=expected, n=40)
    model(s=tokens, o=got, n=40)
    assert got == expected and model.tokens_read == chains.detector.tokens_read == {"s": 40}
    with pytest.raises(KernelRuntimeError, match="read 11 of stream 's', which gave only 10"):
        model(s=tokens[:10], o=[], n=40)
    assert model.tokens_read == {"s": 10}


def test_the_chain_is_one_component_with_the_stream_ports_of_its_ends():
    signature = chains.detector.signature()
    assert signature.members["s"] == In(stream.Signature(signed(12)))
    assert signature.members["o"] == Out(stream.Signature(unsigned(8)))
    assert signature.scalars == {"n": unsigned(10)} and not signature.arrays and not signature.results
    assert [(p.name, p.direction) for p in chains.two_paths.params if p.kind == "stream"] == [
        ("a", "in"), ("b", "in"), ("o", "out"), ("p", "out")]


def test_the_report_gives_each_stage_and_fifo():
    text = chains.rates.report()
    assert "dataflow rates: 2 stages run at once, 1 FIFO(s)" in text
    assert "stage pairs (line " in text and "II 2" in text
    assert "FIFO half (line " in text and "unsigned(9), depth 1 (given; needs 1), pairs -> spread" in text
    assert "depth 2, moving_sum -> magnitude" in chains.detector.report()


@pytest.mark.parametrize("name", sorted(CASES))
def test_tokens_under_random_stalls_equal_the_golden_model(name):
    chain = getattr(chains, name)
    rng = random.Random(f"dataflow-{name}")
    for trial in range(2):
        args = CASES[name](rng)
        for probability in (0.0, 0.3):
            result = run(chain, args, stall_probability=probability, stall_seed=trial)
            assert result.match, (name, args, probability, result.differences)


@pytest.mark.cocotb
def test_a_chain_under_stalls_in_icarus_equals_the_golden_model():
    require_simulator("icarus")
    args = _detector(random.Random(5))
    verilog = run(chains.detector, args, backend="icarus", stall_probability=0.3, stall_seed=2)
    assert verilog.match, verilog.differences
    assert verilog.cycles == run(chains.detector, args, stall_probability=0.3, stall_seed=2).cycles


def test_a_chain_of_ii_1_stages_moves_a_token_every_cycle():
    """The issue's bound: at most 1.05 x (N + the stages' depths + a cycle per FIFO)."""
    n = 400
    args = {"s": _tokens(random.Random(2), n, -2048, 2047), "n": n}
    result = run(chains.detector, args)
    assert result.match
    depths = 1 + 1 + 1      # each stage's pipelined loop (the report's depth)
    assert result.cycles <= 1.05 * (n + depths + len(chains.detector.fifos)), result.cycles
    # The stages overlap: the chain takes about as long as one of them.
    alone = run(chains.smooth, {"s": args["s"], "n": n}).cycles
    assert result.cycles < alone + 10


def _chain(tmp_path, body: str, params: str = "s: hls.Stream[signed(12)], o: hls.Stream[unsigned(8)], "
                                             "p: hls.Stream[unsigned(8)], n: unsigned(10)"):
    source = ("import hls\nfrom amaranth import signed, unsigned\n"
              "from dataflow_kernels import smooth, magnitude, runs, spread, split\n"
              "from stream_kernels import lookup, merge, pairs\n\n\n"
              "@hls.kernel\ndef small(s: hls.Stream[unsigned(8)], o: hls.Stream[signed(8)], n: unsigned(8)):\n"
              "    for i in range(n):\n        x = s.read()\n        o.write(x >> 1)\n\n\n"
              "@hls.kernel\ndef small2(s: hls.Stream[signed(8)], o: hls.Stream[signed(8)], n: unsigned(8)):\n"
              "    for i in range(n):\n        x = s.read()\n        o.write(x)\n\n\n"
              f"@hls.dataflow\ndef chain({params}):\n" + textwrap.indent(textwrap.dedent(body).strip("\n"), "    ")
              + "\n")
    path = tmp_path / f"chain_{abs(hash(source))}.py"
    path.write_text(source)
    return import_file(str(path)).chain


BAD = [
    ("x = smooth(s, mid, n)", "the result of stage smooth cannot be kept in 'x': a scalar does not cross the stages"),
    ("mid = hls.fifo(signed(14), depth=0)\nsmooth(s, mid, n)\nmagnitude(mid, o, n)",
     "FIFO 'mid': depth=0 is too small or not an integer; a FIFO holds at least 1 token"),
    ("mid = hls.fifo(signed(14))\nmagnitude(mid, o, n)\nsmooth(s, mid, n)",
     "FIFO 'mid' is read by magnitude before a stage writes it"),
    ("mid = hls.fifo(signed(13))\nsmooth(s, mid, n)\nmagnitude(mid, o, n)",
     "'mid' carries signed(13) tokens but stream 'o' of moving_sum takes signed(14)"),
    ("mid = hls.fifo(signed(14))\nsmooth(s, mid, n)", "FIFO 'mid' is never read by a stage"),
    ("mid = hls.fifo(signed(14))\nsmooth(s, mid, n)\nmagnitude(mid, o, n)\nprint(n)",
     "print is not an @hls.kernel: a dataflow body calls kernels only"),
    ("mid = hls.fifo(signed(14))\nsmooth(s, mid, n)\nmagnitude(mid, o, n + 1)",
     "argument 'n' of magnitude must be a scalar parameter of the dataflow or an integer constant, not n + 1"),
    ("mid = hls.fifo(signed(14))\nsmooth(s, mid, n)\nmagnitude(mid, o, n)\nn = 3",
     "a dataflow body holds only FIFO declarations"),
    ("mid = hls.fifo(signed(14))\nsmooth(s, mid, n)\nmagnitude(mid, p, n)", "stream parameter 'o' is not given to any stage"),
]


@pytest.mark.parametrize("body, message", BAD, ids=[message.split(":")[0][:40] for _, message in BAD])
def test_a_chain_outside_the_rules_is_one_line_naming_the_place(tmp_path, body, message):
    with pytest.raises(KernelSyntaxError, match=r"chain_\d+\.py:\d+:\d+: " + re.escape(message)):
        _chain(tmp_path, body).analyze()


def test_forks_and_joins_of_data_dependent_stages_are_refused(tmp_path):
    """A fork whose token counts depend on the data (``split`` writes one branch or the other)
    has no depth the schedules can give: it is refused, naming the stage and why."""
    params = "s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(8)], p: hls.Stream[unsigned(8)], n: unsigned(6)"
    fork = _chain(tmp_path, "e = hls.fifo(unsigned(8))\nd = hls.fifo(unsigned(8))\nsplit(s, e, d, n)\n"
                            "runs(e, o, n, 3)\nruns(d, p, n, 3)", params)
    fork.analyze()
    with pytest.raises(KernelSyntaxError, match=r"chain_\d+\.py:\d+:1: stage split forks or joins FIFOs, so their "
                                                r"depths must come from the schedules of every stage it is connected "
                                                r"to, but stage split is not modelled: line \d+: stream '(odd|even)' is "
                                                r"written under a condition"):
        fork.to_amaranth()
    params = "f: hls.Stream[unsigned(1)], s: hls.Stream[unsigned(8)], o: hls.Stream[signed(9)], n: unsigned(8)"
    join = _chain(tmp_path, "a = hls.fifo(signed(8))\nb = hls.fifo(signed(8))\nsmall(s, a, n)\n"
                            "small2(a, b, n)\nmerge(f, a, b, o, n)", params)
    with pytest.raises(KernelSyntaxError, match="FIFO 'a' is read by two stages"):
        join.analyze()
    twice = _chain(tmp_path, "m = hls.fifo(unsigned(9))\npairs(s, m, n)\nspread(m, m, n)",
                   "s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(9)], n: unsigned(6)")
    with pytest.raises(KernelSyntaxError, match=r"FIFO 'm' is written by two stages \(pairs and spread\)"):
        twice.analyze()


def test_a_fifo_left_with_tokens_is_a_runtime_error(tmp_path):
    chain = _chain(tmp_path, "m = hls.fifo(unsigned(9))\npairs(s, m, n)\nspread(m, o, k)",
                   "s: hls.Stream[unsigned(8)], o: hls.Stream[unsigned(9)], n: unsigned(6), k: unsigned(6)")
    out = []
    chain(s=[1, 2, 3, 4, 5, 6, 7, 8], o=out, n=4, k=8)
    assert out == [3, 1, 1, 0, 7, 3, 1, 0, 11, 5, 1, 0, 15, 7, 1, 0]
    with pytest.raises(KernelRuntimeError, match=r"chain_\d+\.py:\d+: FIFO 'm': spread read 2 of the 8 tokens "
                                                 r"written to it; the 6 left would hold its writer for ever"):
        chain(s=[1, 2, 3, 4, 5, 6, 7, 8], o=[], n=4, k=2)


def test_a_stage_with_an_array_is_refused(tmp_path):
    chain = _chain(tmp_path, "lookup(s, [0] * 16, o, n)",
                   "s: hls.Stream[unsigned(4)], o: hls.Stream[signed(16)], n: unsigned(8)")
    with pytest.raises(KernelSyntaxError, match="stage lookup takes the array 'table': arrays do not cross the stages"):
        chain.analyze()


def test_stream_kernels_and_a_chain_lint_clean():
    require_simulator("verilator")
    from sim.lint import lint_verilog
    from stream_kernels import bursts, merge
    from hls.compiler import compile_kernel
    for name, verilog in (("merge", compile_kernel(merge).verilog("merge")),
                          ("bursts", compile_kernel(bursts).verilog("bursts")),
                          ("detector", chains.detector.verilog("detector"))):
        report = lint_verilog(verilog, name)
        assert report.clean, report.summary()


def test_text_annotations_are_evaluated_where_the_chain_is_defined(tmp_path):
    def chain(params):
        path = tmp_path / f"text_{abs(hash(params))}.py"
        path.write_text("from __future__ import annotations\n\nimport hls\nfrom amaranth import signed, unsigned\n"
                        "from dataflow_kernels import smooth, magnitude\n\n\n"
                        f"@hls.dataflow\ndef chain({params}):\n    mid = hls.fifo(signed(14))\n"
                        "    smooth(s, mid, n)\n    magnitude(mid, o, n)\n")
        return import_file(str(path)).chain

    good = chain("s: hls.Stream[signed(12)], o: hls.Stream[unsigned(8)], n: unsigned(10)")
    assert [(p.name, p.kind) for p in good.params] == [("s", "stream"), ("o", "stream"), ("n", "scalar")]
    with pytest.raises(KernelSyntaxError, match=r"text_\d+\.py:9:\d+: cannot evaluate annotation "
                                                r"'hls.Stream\[nowhere\]': name 'nowhere' is not defined"):
        chain("s: hls.Stream[nowhere], o: hls.Stream[unsigned(8)], n: unsigned(10)").analyze()
