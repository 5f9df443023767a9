"""Third-party circuits as operators and as the explorer's candidates (``--verilog``), the quality runs on a
Dask cluster (``--scheduler``), and the best-so-far front of the progress bar (issue 23)."""

import json
import os
import random
import shutil

import pytest

import explore_kernels as kernels
import hls.explore as explore
from hls.approx import choice, verilog_choice
from hls.explore.quality import QualityModel
from hls.explore.search import DaskEvaluator, FrontTracker, LocalEvaluator, front
from hls.golden import CompiledModel

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "..", "examples")
BAM8 = os.path.join(EXAMPLES, "bam8.v")    # 8 x 8 broken-array multiplier: trunc_mul(c=6)'s function
LOA8 = os.path.join(EXAMPLES, "loa8.v")    # 8-bit lower-part OR adder: loa(l=4)'s function
#: The circuits, by kind, and the library units that compute the same (the files' own comments say which).
AS_CIRCUITS = {"mul": ("verilog", {"file": BAM8}), "add": ("verilog", {"file": LOA8})}
AS_LIBRARY = {"mul": ("trunc_mul", {"c": 6}), "add": ("loa", {"l": 4})}


def _fitting():
    """``{operation key: kind}`` of taps's operations that the 8-bit circuits fit: `a[i] * b[i]` (signed(8) x
    unsigned(8)) and `b[i] + c[i]` (unsigned); not `(...) * a[i]` (a 9-bit operand) nor the signed `+`."""
    return {op.key: op.kind for op in kernels.taps.analyze().operations if op.text in ("a[i] * b[i]", "b[i] + c[i]")}


def _args(seed):
    rng = random.Random(seed)
    return {"a": [rng.randint(-128, 127) for _ in range(kernels.N)], "b": [rng.randint(0, 255) for _ in range(kernels.N)],
            "c": [rng.randint(0, 127) for _ in range(kernels.N)], "o": [0] * kernels.N}


def test_a_circuit_file_is_an_operator_with_the_function_of_its_library_twin():
    # bam8.v and loa8.v compute trunc_mul(c=6) and loa(l=4) at 8 bits: a kernel using the files by kind
    # must give the library units' results on the operations the files fit, bit for bit, in the Python run
    # and in the compiled model; the others stay exact.
    assert verilog_choice(BAM8).kind == "mul" and verilog_choice(LOA8).kind == "add"    # inferred
    fitting = _fitting()
    assert len(fitting) == 2
    circuits = kernels.taps.with_approx(AS_CIRCUITS)
    library = kernels.taps.with_approx({key: AS_LIBRARY[kind] for key, kind in fitting.items()})
    for seed in range(4):
        bound = kernels.taps.golden_model().match((), _args(seed))
        assert circuits.golden_model().run(bound) == library.golden_model().run(bound)
    sites = {key: [choice(kind, *AS_CIRCUITS[kind]), choice(kind, *AS_LIBRARY[kind])] for key, kind in fitting.items()}
    model = CompiledModel(kernels.taps, choices=sites)
    assert model.fallback_reason is None
    bound = kernels.taps.golden_model().match((), _args(7))
    assert model.run(bound, selection=[1, 1]) == model.run(bound, selection=[2, 2]) == circuits.golden_model().run(bound)
    assert model.run(bound, selection=[0, 0]) != model.run(bound, selection=[1, 1])


@pytest.mark.slow
def test_a_circuit_file_in_hardware_matches_the_python_run():
    from sim.kernel import run
    result = run(kernels.taps.with_approx(AS_CIRCUITS), _args(11))
    assert result.match, result.differences


def test_bad_circuit_choices_are_one_line():
    with pytest.raises(ValueError, match=r"loa8\.v: the circuit is an add circuit, not a mul one"):
        choice("mul", "verilog", {"file": LOA8})
    with pytest.raises(ValueError, match=r"takes the parameters file \(the circuit.s \.v file\) and, optionally, signed"):
        choice("mul", "verilog", {"k": 4})
    with pytest.raises(ValueError, match=r"nothere\.v: no such file|nothere\.v: cannot be read"):
        choice("mul", "verilog", {"file": "nothere.v"})


def test_a_folder_of_circuits_becomes_candidates_for_the_operations_they_fit(tmp_path):
    for path in (BAM8, LOA8):
        shutil.copy(path, tmp_path)
    found = explore.verilog_candidates(tmp_path, ("mul", "add"))
    assert {kind: [unit.label for unit in units] for kind, units in found.items()} == \
        {"mul": ["verilog:bam8"], "add": ["verilog:loa8"]}
    assert list(explore.verilog_candidates(tmp_path, ("mul", "div"))) == ["mul"]
    units = explore.parse_candidates("mul=drum(k=4)", ("mul",))
    units["mul"] += found["mul"]
    space = explore.Space([kernels.mix], units)
    by_text = {site.operation.text: [unit.label for unit in site.units] for site in space.sites}
    assert by_text["a[i] * b[i]"] == ["drum(k=4)", "verilog:bam8"]      # signed(8) x unsigned(8): fits
    assert by_text["x * w"] == ["drum(k=4)"]                             # signed(9): wider than the ports
    # The store's key follows the circuit's content, not only its name.
    digest = space.digest()
    (tmp_path / "bam8.v").write_text(open(BAM8).read().replace("DROPPED = 6", "DROPPED = 5"))
    explore.verilog_candidates(tmp_path, ("mul",))
    assert explore.Space([kernels.mix], units).digest() != digest
    for bad, message in ((tmp_path / "none", r"not a directory"), (tmp_path / "empty", r"no Verilog circuit")):
        if bad.name == "empty":
            bad.mkdir()
        with pytest.raises(explore.ExploreError, match=message):
            explore.verilog_candidates(bad)


def _mix_data():
    rng = random.Random(1)
    return [{"a": [rng.randint(-128, 127) for _ in range(kernels.N)], "b": [rng.randint(0, 255) for _ in range(kernels.N)],
             "o": [0] * kernels.N, "d": rng.randint(0, 255)} for _ in range(2)]


def _mix_quality(reference, output, data):
    errors = [abs(x - y) for ref, out in zip(reference, output) for x, y in zip(ref["o"], out["o"])]
    return {"mae": sum(errors) / len(errors)}


def _raises(reference, output, data):
    raise RuntimeError("no quality today")


def test_a_dask_cluster_gives_the_metrics_of_the_local_runs_in_order():
    distributed = pytest.importorskip("distributed")
    units = explore.parse_candidates("mul=drum(k=3),mitchell;div=mitchell_div")
    space = explore.Space([kernels.mix], units)
    names = ("data", "quality", "run")
    local = LocalEvaluator(QualityModel(space, _mix_data(), _mix_quality))
    rng = random.Random(3)
    selections = [tuple(rng.randrange(size) for size in space.sizes) for _ in range(13)]
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as \
            cluster, distributed.Client(cluster) as client:
        remote = DaskEvaluator(client, (space.kernels, units, _mix_data(), _mix_quality, None, names), space.digest())
        assert remote.slots == 2
        assert remote.metrics(selections) == local.metrics(selections)
        assert remote.metrics(selections[:1]) == local.metrics(selections[:1]) and remote.metrics([]) == []
        remote.close()
        failing = DaskEvaluator(client, (space.kernels, units, _mix_data(), _raises, None, names), "other")
        with pytest.raises(explore.ExploreError, match=r"quality: raised RuntimeError: no quality today"):
            failing.metrics(selections[:2])


def test_the_tracked_front_is_the_front_of_the_points_so_far():
    rng = random.Random(4)
    tracker, points = FrontTracker(), []
    for n in range(300):
        point = {"selection": (n,), "cost": float(rng.randint(0, 60)), "objective": float(rng.randint(0, 60)),
                 "feasible": rng.random() < 0.8}
        point["quality"] = -point["objective"]
        points.append(point)
        tracker.add(point)
        assert [(p["cost"], p["objective"]) for p in tracker.points] == \
            [(p["cost"], p["objective"]) for p in front(points, cost=lambda p: p["cost"])]
    best = min(tracker.points, key=lambda p: p["objective"])
    assert tracker.summary() == {"front": len(tracker.points), "best": f"{best['quality']:.4g}",
                                 "cost": f"{tracker.points[0]['cost']:.4g}"}
    assert FrontTracker().summary() == {"front": 0}


@pytest.mark.slow
def test_explore_on_a_local_cluster_finds_the_same_front_and_shows_the_best_so_far(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    options = dict(bound="mae<=400", candidates="mul=drum(k=3),mitchell;div=mitchell_div", evaluations=40,
                   population=8, seed=3)
    alone = explore.explore(kernels.mix, _mix_data(), _mix_quality, progress=True, **options)
    shown = capsys.readouterr().err
    assert f"front={len(alone.front)}" in shown and "best=" in shown and "cost=" in shown
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as \
            cluster, distributed.Client(cluster) as client:
        spread = explore.explore(kernels.mix, _mix_data(), _mix_quality, scheduler=client, **options)
    assert spread.to_json() == alone.to_json()
    assert capsys.readouterr().err == ""            # progress=False: nothing on stderr


@pytest.mark.slow
def test_the_json_of_apply_with_a_circuit_is_taken_by_approx_at_file(tmp_path, capsys):
    from axhls.cli import main
    mapping = tmp_path / "front0.json"
    key = next(key for key, kind in _fitting().items() if kind == "mul")
    mapping.write_text(json.dumps({"taps": {key: ["verilog", {"file": BAM8}]}}))
    assert main(["report", f"{kernels.__file__}:taps", "--approx", f"@{mapping}"]) == 0
    assert "`a[i] * b[i]` -> verilog:bam8 (signed(8) x unsigned(8)" in capsys.readouterr().out
