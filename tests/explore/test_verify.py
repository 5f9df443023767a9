"""Verification of explored assignments (:mod:`hls.explore.verify`): each point compiled, simulated on the
arguments of its own Python run against that run, synthesised, placed and routed (Fmax the median of the
seeds), and the cycles estimate of the ADP objective (one simulation per distinct schedule).

The kernels are the two-kernel chain ``scale -> square`` of ``explore_kernels`` (4 elements, one ``*``
each), so a simulation is a few cycles and a synthesis a few seconds; synthesis results are kept in the
default cache, so a re-run places nothing.
"""

import copy
import statistics
from dataclasses import dataclass

import pytest

import explore_kernels as kernels
import hls.explore as explore
import sim
from approx_units import synth
from hls.compiler import compile_kernel
from hls.explore.verify import CycleModel, adp, kernel_calls, verify_point
from sim.kernel import differences, expected_outputs

CHAIN = kernels.CHAIN
DATA = kernels.chain_data()
CANDIDATES = "mul=drum(k=3),mitchell"
#: drum(k=3) on `a[i] * w`, mitchell on `y * y`.
SELECTION = (1, 2)


class _Cache(synth.ResultCache):
    """The default synthesis cache, with the simulations kept apart in ``directory`` (so that each test
    simulates what it asks for, and a wrong simulator is not answered by a right one's result)."""

    def __init__(self, directory):
        super().__init__()
        self.simulations = directory

    def _path(self, key):
        if key.startswith(("explore-sim-", "explore-cycles-")):
            return self.simulations / f"{key}.json"
        return super()._path(key)


@pytest.fixture
def cache(tmp_path):
    return _Cache(tmp_path)


@pytest.fixture(scope="module")
def explored(tmp_path_factory):
    """The chain explored (all 9 assignments), and its cache."""
    cache = _Cache(tmp_path_factory.mktemp("simulations"))
    result = explore.explore(CHAIN, DATA, kernels.chain_quality, run=kernels.chain_run, bound="mae<=100000",
                             candidates=CANDIDATES, evaluations=9, population=4, cache=cache)
    return result, cache


def _space():
    return explore.Space(CHAIN, explore.parse_candidates(CANDIDATES, ["mul"]))


def _configured(space, selection):
    mapping = space.mapping(selection)
    return tuple(kernel.with_approx(mapping[kernel.name]) for kernel in space.kernels)


class _Simulator:
    """``sim.run`` against the Python run, keeping what it was asked to simulate."""

    def __init__(self):
        self.calls = []

    def __call__(self, kernel, args):
        run = sim.run(kernel, copy.deepcopy(args), golden="python")
        self.calls.append((kernel, args, run))
        return run


def _never(kernel, args):
    pytest.fail(f"{kernel.name} was simulated again although its result is cached")


def test_a_point_is_simulated_on_its_own_run_and_reports_what_synthesis_measures(cache):
    space = _space()
    simulator = _Simulator()
    measured = verify_point(space, SELECTION, DATA, kernels.chain_run, simulator, cache=cache)
    configured = _configured(space, SELECTION)
    # Each kernel is simulated once, with its units, on the arguments it receives in the assignment's own
    # run: `square` gets the approximate `scale`'s output, not the exact run's.
    assert [kernel.name for kernel, _, _ in simulator.calls] == ["scale", "square"]
    for (kernel, _, _), expected in zip(simulator.calls, configured):
        assert [site.unit for site in kernel.analyze().approximations] == \
            [site.unit for site in expected.analyze().approximations] != []
    own = dict(kernel_calls(configured, DATA, kernels.chain_run))
    exact = dict(kernel_calls(CHAIN, DATA, kernels.chain_run))
    assert simulator.calls[1][1] == own["square"] != exact["square"]
    assert measured["match"] and all(run.match for _, _, run in simulator.calls)
    # The figures are the synthesis flow's for the same Verilog (seeds 1-3), summed over the chain.
    expected = []
    for kernel in configured:
        compiled = compile_kernel(kernel)
        placed = synth.synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=kernel.clock_mhz,
                                               seeds=(1, 2, 3), cache=cache)
        expected.append(placed)
    for row, placed, (_, _, run) in zip(measured["kernels"], expected, simulator.calls):
        assert row["lut_equivalents"] == placed[0].lut_equivalents and row["ffs"] == placed[0].ffs
        assert row["fmax_mhz_seeds"] == [p.fmax_mhz for p in placed]
        assert row["fmax_mhz"] == statistics.median(p.fmax_mhz for p in placed)
        assert row["cycles"] == run.cycles > 0 and row["calls"] == 1 and row["match"]
    lut_equivalents = sum(placed[0].lut_equivalents for placed in expected)
    fmax = min(row["fmax_mhz"] for row in measured["kernels"])
    cycles = sum(run.cycles for _, _, run in simulator.calls)
    assert measured["lut_equivalents"] == lut_equivalents
    assert measured["ffs"] == sum(placed[0].ffs for placed in expected)
    assert (measured["fmax_mhz"], measured["cycles"]) == (fmax, cycles)
    assert measured["latency_us"] == pytest.approx(cycles / fmax)
    assert measured["adp"] == pytest.approx(lut_equivalents * cycles / fmax)
    # A second verification is answered from the cache: nothing is simulated or placed again.
    assert verify_point(space, SELECTION, DATA, kernels.chain_run, _never, cache=cache) == measured


def _cells(luts, carries, ffs):
    return {"LUT4": luts, "CCU2C": carries, "TRELLIS_FF": ffs}


def test_the_fmax_is_the_slowest_kernels_median_over_the_seeds(tmp_path, monkeypatch):
    """With each seed's placement in the cache (figures chosen so that a mean, a first seed or the slowest
    seed overall would differ), no tool runs and the figures follow from them."""
    space = _space()
    cache = synth.ResultCache(tmp_path)
    placements = {"scale": (_cells(40, 5, 30), (150.0, 90.0, 120.0)),
                  "square": (_cells(20, 1, 10), (100.0, 200.0, 80.0))}
    for kernel in _configured(space, SELECTION):
        compiled = compile_kernel(kernel)
        cells, fmaxes = placements[kernel.name]
        for seed, fmax in zip((1, 2, 3), fmaxes):
            cache.put(synth.kernel_result_key(compiled.verilog(), compiled.ir.name, kernel.clock_mhz, seed),
                      synth.AreaReport.from_cells("ecp5", cells, fmax).to_dict())
    monkeypatch.setattr(synth, "_run", lambda *args, **kwargs: pytest.fail("a tool ran for a cached placement"))
    simulator = _Simulator()
    measured = verify_point(space, SELECTION, DATA, kernels.chain_run, simulator, cache=cache)
    assert [row["fmax_mhz"] for row in measured["kernels"]] == [120.0, 100.0]
    assert [row["lut_equivalents"] for row in measured["kernels"]] == [50, 22]
    cycles = sum(run.cycles for _, _, run in simulator.calls)
    assert (measured["lut_equivalents"], measured["ffs"], measured["fmax_mhz"]) == (72, 40, 100.0)
    assert measured["adp"] == pytest.approx(72 * cycles / 100.0) == pytest.approx(adp(72, cycles, 100.0))
    # Other seeds: each kernel's median over those only.
    only = verify_point(space, SELECTION, DATA, kernels.chain_run, _never, cache=cache, seeds=(2,))
    assert [row["fmax_mhz"] for row in only["kernels"]] == [90.0, 200.0] and only["fmax_mhz"] == 90.0
    # A seed not placed yet runs the tools.
    with pytest.raises(pytest.fail.Exception, match="a tool ran"):
        verify_point(space, SELECTION, DATA, kernels.chain_run, _never, cache=cache, seeds=(1, 4))


@dataclass
class _Run:
    cycles: int
    match: bool


def _exact_hardware(kernel, args):
    """A simulator that builds the wrong hardware: the exact kernel's, compared with the approximate one's
    Python run."""
    exact = next(k for k in CHAIN if k.name == kernel.name)
    run = sim.run(exact, copy.deepcopy(args), golden="python")
    expected = expected_outputs(kernel, args, golden="python")
    return _Run(run.cycles, not differences(run.outputs, expected))


def test_hardware_that_differs_from_the_python_run_fails_verification(explored, tmp_path):
    space = _space()
    result, _ = explored
    cache = _Cache(tmp_path)     # not the module's: a wrong simulation must not answer a right one later
    measured = verify_point(space, SELECTION, DATA, kernels.chain_run, _exact_hardware, cache=cache)
    assert [row["match"] for row in measured["kernels"]] == [False, False] and not measured["match"]
    # Exact arithmetic on both: the exact hardware is right.
    assert verify_point(space, (0, 0), DATA, kernels.chain_run, _exact_hardware, cache=cache,
                        seeds=(1,))["match"]
    # Through the result: one line naming the kernels that differ, and nothing is marked verified.
    (point,) = [p for p in result.points if p["selection"] == SELECTION]
    with pytest.raises(explore.ExploreError, match=r"^assignment \[1, 2\]: the hardware of scale, square differs "
                                                   r"from its Python run$"):
        result.verify(points=[point], simulate=_exact_hardware, cache=cache)
    assert "verified" not in point and result.verified_front is None


def test_verify_marks_the_points_and_reports_the_verified_front(explored):
    result, cache = explored
    (point,) = [p for p in result.points if p["selection"] == SELECTION]
    (exact,) = [p for p in result.uniform if p["label"] == "exact"]
    simulator = _Simulator()
    assert result.verify(points=[point, exact], simulate=simulator, cache=cache) == [point, exact]
    measured = point["verified"]
    assert measured == {**verify_point(result.space, SELECTION, DATA, kernels.chain_run, _never, cache=cache),
                        "lut_error_pct": measured["lut_error_pct"]}
    assert measured["lut_error_pct"] == pytest.approx(
        100 * (point["lut_equivalents"] - measured["lut_equivalents"]) / measured["lut_equivalents"], abs=0.005)
    # The exact chain's estimate is its synthesis (seed 1) by construction.
    assert exact["verified"]["lut_error_pct"] == 0
    # The verified front: the non-dominated points by their measured LUT-eq, and what approx() and the JSON
    # report from then on.
    by_cost = sorted((point, exact), key=lambda p: p["verified"]["lut_equivalents"])
    expected = [by_cost[0]] + ([by_cost[1]] if by_cost[1]["objective"] < by_cost[0]["objective"] else [])
    assert result.verified_front == expected
    assert result.approx(0) == {kernel: {key: [unit.unit, dict(unit.params)] for key, unit in units.items()}
                                for kernel, units in result.space.mapping(expected[0]["selection"]).items()}
    row = result.to_json()["front"][0]
    assert result.to_json()["verified"] and row["lut_equivalents"] == expected[0]["verified"]["lut_equivalents"]
    assert row["estimate"]["lut_equivalents"] == expected[0]["lut_equivalents"]
    # Verifying again measures nothing again: the points keep their figures.
    simulator.calls.clear()
    result.verify(points=[point], simulate=_never, cache=cache)
    assert point["verified"] is measured


def _raising_run(kernels_given, data):
    output = kernels.chain_run(kernels_given, data)
    if output != kernels.chain_run(CHAIN, data):
        raise ValueError("the output\nchanged")
    return output


def test_a_run_that_raises_is_one_line():
    space = _space()
    with pytest.raises(explore.ExploreError, match=r"^the run of an assignment raised ValueError: the output "
                                                   r"changed$"):
        verify_point(space, SELECTION, DATA, _raising_run, _never)
    with pytest.raises(explore.ExploreError, match=r"^the exact run raised KeyError: 'w'$"):
        CycleModel(space, {"a": DATA["a"]}, kernels.chain_run, _never, synth.ResultCache())


def test_the_cycles_estimate_is_the_simulated_cycles_of_every_assignment(tmp_path):
    space = _space()
    simulator = _Simulator()
    cache = synth.ResultCache(tmp_path)
    model = CycleModel(space, DATA, kernels.chain_run, simulator, cache)
    selections = [(first, second) for first in range(3) for second in range(3)]
    estimates = {selection: model.cycles(selection) for selection in selections}
    schedules = {(kernel.name, choice) for kernel in CHAIN for choice in range(3)}
    assert model.simulations == len(simulator.calls) <= len(schedules)
    exact_args = dict(kernel_calls(CHAIN, DATA, kernels.chain_run))
    for selection in selections:
        # Simulated on the exact run's arguments (the representative input), with the assignment's units.
        cycles = sum(sim.run(kernel, copy.deepcopy(exact_args[kernel.name]), golden="python").cycles
                     for kernel in _configured(space, selection))
        assert estimates[selection] == cycles, selection
    # A model on the same cache simulates nothing.
    again = CycleModel(space, DATA, kernels.chain_run, _never, cache)
    assert [again.cycles(selection) for selection in selections] == [estimates[s] for s in selections]
    assert again.simulations == 0
