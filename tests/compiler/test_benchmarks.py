"""Every benchmark kernel, in Amaranth's simulator, against its Python run; and its schedules."""

import statistics

import pytest

from benchmarks.kernels import KERNEL_NAMES, load
from hls.compiler import compile_kernel
from hls.ir import PipelinedLoop
from hls.schedule import verify
from sim.kernel import run

#: Issue 4's targets: the only recurrences are single adds, subtracts or selects.
II_ONE = ("vsum", "dot16", "gsumif", "if_loop", "argmax", "fir", "stream_proc")
#: Kernels whose whole run is one pipelined loop: cycles <= (trip - 1) * II + depth + 8.
SINGLE_LOOP = ("vsum", "dot16", "gsumif", "if_loop", "argmax", "stream_proc")

_compiled = {}


def compiled(name):
    if name not in _compiled:
        kernel, examples = load(name)
        _compiled[name] = (kernel, examples, compile_kernel(kernel))
    return _compiled[name]


@pytest.mark.parametrize("name", KERNEL_NAMES)
@pytest.mark.parametrize("example", range(3))
def test_hardware_matches_python(name, example):
    kernel, examples, _ = compiled(name)
    result = run(kernel, examples[example], max_cycles=20_000)
    assert result.match, result.differences
    assert result.outputs == result.expected


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_every_schedule_passes_the_verifier(name):
    _, _, kernel = compiled(name)
    assert kernel.schedules
    for scheduled in kernel.schedules.values():
        verify(scheduled.problem.problem, scheduled.schedule)


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_pipelined_loops_reach_the_mii(name):
    _, _, kernel = compiled(name)
    for loop in kernel.report.to_json()["loops"]:
        if loop["pipelined"] and loop["target_ii"] is None:
            assert loop["ii"] == loop["mii"] == max(loop["res_mii"], loop["rec_mii"])
            assert loop["bound"]["kind"] in ("resource", "recurrence", "memory", "exit")


@pytest.mark.parametrize("name", II_ONE)
def test_ii_one_where_recurrences_are_single_operations(name):
    _, _, kernel = compiled(name)
    pipelined = [loop for loop in kernel.report.to_json()["loops"] if loop["pipelined"]]
    assert pipelined and all(loop["ii"] == 1 for loop in pipelined)


@pytest.mark.parametrize("name", SINGLE_LOOP)
def test_cycles_within_pipeline_bound(name):
    kernel, examples, compiled_kernel = compiled(name)
    (node,) = [n for n in compiled_kernel.ir.nodes if isinstance(n, PipelinedLoop)]
    scheduled = compiled_kernel.schedule_of(node.body)
    for args in examples[:3]:
        trip = int(args["n"])
        result = run(kernel, args, max_cycles=20_000)
        assert result.match
        assert result.cycles <= max(trip - 1, 0) * scheduled.ii + scheduled.length + 8


@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_sequential_baseline_matches_and_is_not_faster(name):
    kernel, examples, _ = compiled(name)
    pipelined = run(kernel, examples[0], max_cycles=50_000)
    sequential = run(kernel, examples[0], max_cycles=50_000, pipelining=False)
    assert sequential.match, sequential.differences
    assert pipelined.cycles <= sequential.cycles


def test_conv3x3_with_line_buffers_streams_one_pixel_per_cycle():
    """Issue 11: the 16x16 convolution with line buffers at II 1 in <= 1.2 * (pixels + depth) cycles."""
    kernel, examples, compiled_kernel = compiled("conv3x3_linebuf")
    (node,) = [n for n in compiled_kernel.ir.nodes if isinstance(n, PipelinedLoop)]
    scheduled = compiled_kernel.schedule_of(node.body)
    assert scheduled.ii == 1
    for args in examples[:2]:
        result = run(kernel, args, max_cycles=20_000)
        assert result.match, result.differences
        assert result.cycles <= 1.2 * (256 + scheduled.length)


def test_the_clock_sweep_covers_benchmarks_units_and_every_application_kernel():
    # benchmarks/run.py --fmax (issue 12): every benchmark kernel, the 32-bit multiply and
    # divide kernels, each application's whole chain exact, and the approximate
    # configuration's kernels wherever it replaces an operation.
    from benchmarks import fmax_sweep
    from benchmarks.apps import app_module
    from benchmarks.fmax_kernels import FMAX_KERNELS

    names = list(fmax_sweep.kernels())
    assert len(names) == len(set(names))
    assert set(KERNEL_NAMES) | set(FMAX_KERNELS) <= set(names)
    for app in fmax_sweep.APPS:
        chain = [kernel.name for kernel in app_module(app).KERNELS]
        assert {f"{app}.{kernel}" for kernel in chain} <= set(names)
        approximate = [name for name in names if name.startswith(f"{app}.") and "@" in name]
        assert approximate and all(name.endswith("@" + fmax_sweep.APP_CONFIG) for name in approximate)
    # A kernel the configuration leaves exact (the band-pass filter multiplies by constants)
    # is not swept twice.
    assert "ecg.bandpass@" + fmax_sweep.APP_CONFIG not in names
    assert "image.sobel@" + fmax_sweep.APP_CONFIG in names
    with pytest.raises(KeyError, match="unknown kernel"):
        fmax_sweep.kernels(["image.nothing"])


def _place_in_cache(cache, verilog, top, clock, placements):
    """Seeds 1, 2, ... of ``verilog`` placed at ``placements`` MHz, as
    :func:`approx_units.synth.synthesize_kernel_seeds` caches them, each with a critical path
    naming its seed."""
    from approx_units import synth
    for seed, fmax in enumerate(placements, 1):
        report = synth.AreaReport.from_cells("ecp5", {"LUT4": 7, "CCU2C": 2, "TRELLIS_FF": 3}, fmax)
        cache.put(synth.kernel_result_key(verilog, top, clock, seed),
                  {**report.to_dict(), "critical_path": [["logic", 1.0, f"seed{seed}", "b", ""]]})


@pytest.mark.parametrize("placements, seeds_run", [
    ((125.0, 90.0, 91.0), 1),        # seed 1 more than 10 % above the claim: settled
    ((105.0, 90.0, 99.0), 3),        # a close call: the median of three
    ((80.0, 121.9, 132.1), 3),       # far below: a miss is judged on the median too
])
def test_the_sweep_runs_more_seeds_unless_seed_one_is_comfortably_above(placements, seeds_run, tmp_path,
                                                                       monkeypatch):
    # The sweep reads the placements synthesize_kernel_seeds cached (one flow, one cache key):
    # with every seed cached no tool runs, and only the seeds the policy asks for are read.
    from approx_units import synth
    from benchmarks import fmax_sweep
    from benchmarks.kernels import load

    cache = synth.ResultCache(tmp_path)
    kernel = load("vsum")[0]
    verilog, top, _, _ = fmax_sweep._build(kernel, 100.0)
    _place_in_cache(cache, verilog, top, 100.0, placements)
    monkeypatch.setattr(synth, "_run", lambda *args, **kwargs: pytest.fail("a tool ran for a cached seed"))
    row = fmax_sweep.measure(kernel, 100.0, 3, cache)
    assert row["claimed_mhz"] == 100
    assert list(row["fmax_mhz"]) == list(range(1, seeds_run + 1))
    median = statistics.median(placements[:seeds_run])
    assert row["median_mhz"] == median
    assert row["reaches_claim"] == (median >= 100) and row["lut4"] == 7 and row["ff"] == 3
    # The path kept is the median seed's.
    assert placements[row["path_seed"] - 1] == median and row["path"][0][2] == f"seed{row['path_seed']}"


def test_the_sweep_with_cached_only_reads_the_cached_seeds_and_runs_no_tool(tmp_path, monkeypatch):
    from approx_units import synth
    from benchmarks import fmax_sweep
    from benchmarks.kernels import load

    cache = synth.ResultCache(tmp_path)
    kernel = load("vsum")[0]
    monkeypatch.setattr(synth, "_run", lambda *args, **kwargs: pytest.fail("a tool ran with cached_only"))
    assert fmax_sweep.measure(kernel, 100.0, 3, cache, cached_only=True) is None
    verilog, top, _, _ = fmax_sweep._build(kernel, 100.0)
    _place_in_cache(cache, verilog, top, 100.0, (101.0, 99.0))      # seed 3 not placed
    row = fmax_sweep.measure(kernel, 100.0, 3, cache, cached_only=True)
    assert row["fmax_mhz"] == {1: 101.0, 2: 99.0} and row["median_mhz"] == 100.0


def test_the_sweep_and_the_applications_place_through_one_flow(tmp_path, monkeypatch):
    """``run.py --fmax`` and ``apps.py`` measure a design by the same function, on the same
    Verilog, top and clock; a chain is one design, every stage and FIFO inside its module."""
    from approx_units import synth
    from benchmarks import apps, fmax_sweep

    names = list(fmax_sweep.kernels())
    assert {"streams.moving_sum", "streams.detector", "ecg.detect_stream", "ecg.detector", "image.blur_stream",
            "image.edges"} <= set(names)
    assert names.index("ecg.detect_stream") < names.index("ecg.detector")
    calls = []

    def placed(verilog, top, *, clock_mhz, seeds, cache=None, target="ecp5", cached_only=False):
        calls.append((top, verilog, clock_mhz, tuple(seeds)))
        return [synth.AreaReport.from_cells("ecp5", {"LUT4": 70}, 140.0) for _ in seeds]
    monkeypatch.setattr(synth, "synthesize_kernel_seeds", placed)
    chain = fmax_sweep.kernels(["streams.detector"])["streams.detector"]
    row = fmax_sweep.measure(chain, 100.0, 3, synth.ResultCache(tmp_path))
    stages = [stage.kernel.report().data for stage in chain.stages]
    assert row["claimed_mhz"] == min(report["claimed_clock_mhz"] for report in stages) == 100
    assert row["ii"] == 1 and row["depth"] == sum(report["loops"][0]["depth"] for report in stages)
    assert row["reaches_claim"] and list(row["fmax_mhz"]) == [1] and row["lut4"] == 70
    [(top, verilog, clock, seeds)] = calls
    assert top == "detector" and "module detector" in verilog and "fifo_smoothed" in verilog
    assert (clock, seeds) == (100.0, (1,))
    # The applications' script places the same chain through the same function.
    monkeypatch.setattr(apps, "simulate", lambda unit, verilog, args, cache: {"cycles": 10, "match": True})

    class Progress:
        def set_description(self, text):
            pass

        def update(self, count):
            pass
    measured = apps.measure_trace("streams", "chain", [(chain, {})], synth=True,
                                  cache=synth.ResultCache(tmp_path), progress=Progress(), seeds=3)
    assert calls[1] == ("detector", verilog, 100.0, (1, 2, 3))
    assert measured["fmax_mhz"] == 140.0 and measured["luts"] == 70
