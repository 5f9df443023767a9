"""Pareto fronts: the dominance algorithm, the candidate set, the plot and the command."""

import collections
import dataclasses
import itertools
import json
import re

import pytest

import approx_units
from approx_units import evaluate, pareto, synth
from approx_units.registry import spec
from axhls.cli import main


def brute_force_front(points):
    def dominates(p, q):
        return p[0] <= q[0] and p[1] <= q[1] and p != q
    return sorted(i for i, q in enumerate(points) if not any(dominates(p, q) for p in points))


@pytest.mark.parametrize("points", [
    [],
    [(1, 1)],
    [(1, 5), (2, 4), (3, 3), (2, 6), (4, 3), (5, 0)],
    [(10, 0.0), (10, 0.0), (3, 0.5), (3, 0.7), (0, 1.0)],
    [(x % 7, (x * 37) % 11) for x in range(60)],
])
def test_non_dominated_matches_brute_force(points):
    assert sorted(pareto.non_dominated(points)) == brute_force_front(points)


def test_front_is_ordered_by_area():
    points = [(5, 0), (1, 9), (3, 3)]
    assert pareto.non_dominated(points) == [1, 2, 0]


def test_candidates_sweep_parameters_and_filter_units():
    units = pareto.candidates("add", 8, ["loa"])
    assert {u.name for u in units} == {"loa"}
    assert sorted(u.unit_params["l"] for u in units) == [1, 2, 3, 4, 5, 6, 7]   # the whole range
    with pytest.raises(ValueError, match="unit 'loa' is an adder, not a multiplier"):
        pareto.candidates("mul", 8, ["loa"])


def test_the_grid_is_every_valid_combination_of_the_whole_ranges():
    units = pareto.candidates("mul", 8)
    configurations = {(u.name, tuple(sorted(u.unit_params.items()))) for u in units}
    assert len(configurations) == len(units)                                  # no duplicates
    # The points the 5-value grid missed, which the library's front needs.
    assert ("lut_mul", (("chain", 0), ("edge", 0), ("t", 3))) in configurations
    assert ("vctm_mul", (("stagger", 1), ("t", 6))) in configurations
    # Every combination the registry allows, and none it refuses (vctm_mul's stagger depends on t).
    for name in ("lut_mul", "vctm_mul", "mitchell_refined", "trunc_mul", "drum"):
        ours = sorted(tuple(sorted(p)) for n, p in configurations if n == name)
        valid = []
        for params in itertools.product(*(range(lo, hi + 1) for lo, hi in
                                          (p.bounds(8, 8, False) for p in spec(name).params))):
            values = dict(zip((p.name for p in spec(name).params), params))
            try:
                approx_units.get(name, width=8, **values)
            except ValueError:
                continue
            valid.append(tuple(sorted(values.items())))
        assert ours == sorted(valid), name
    # A divider's quotient format is not an accuracy knob: it stays at its default.
    assert {u.unit_params["frac_bits"] for u in pareto.candidates("div", 8)} == {8}


def test_the_grid_is_coarsest_first_and_every_unit_starts_at_its_defaults():
    units = pareto.candidates("mul", 8)
    names = list(dict.fromkeys(u.name for u in units))
    first = units[:len(names)]
    assert [u.name for u in first] == names
    assert all(u.unit_params == approx_units.get(u.name, width=8).unit_params for u in first)
    for name in names:                      # coarse to fine within each unit
        bounds = {p.name: p.bounds(8, 8, False) for p in spec(name).params}
        levels = [max((pareto.refinement_level(v, *bounds[k]) for k, v in u.unit_params.items()), default=0)
                  for u in units if u.name == name][1:]
        assert levels == sorted(levels), name
    # Round robin: any prefix holds as many candidates of each unit as it has, give or take one.
    for length in (10, 30, 60):
        counts = collections.Counter(u.name for u in units[:length])
        sizes = collections.Counter(u.name for u in units)
        assert max(counts.values()) - min(counts[n] for n in names if sizes[n] > counts[n]) <= 1
    assert [pareto.refinement_level(v, 0, 15) for v in range(16)] == [0, 4, 3, 4, 2, 4, 3, 4, 1, 3, 4, 2, 4, 3, 4, 0]
    assert sorted(pareto.refinement_level(v, 1, 7) for v in range(1, 8)) == [0, 0, 1, 2, 2, 3, 3]


def test_a_budget_measures_the_coarse_grid_and_says_what_it_covered(tmp_path, capsys):
    plot = tmp_path / "front.png"
    status = main(["units", "pareto", "--kind", "add", "--width", "8", "--units", "loa,trunc_add",
                   "--budget", "0.001", "-o", str(plot), "--cache-dir", str(tmp_path / "cache"), "--json"])
    result = json.loads(capsys.readouterr().out)
    assert status == 0
    grid = result["grid"]
    assert grid["candidates"] == 14 and grid["budget_seconds"] == 0.001
    # The first candidate runs past the budget, so only it is measured: a default, the coarsest point.
    assert grid["measured"] == len(result["candidates"]) == 1
    assert grid["coverage"] == {"loa": {"measured": 1, "candidates": 7}, "trunc_add": {"measured": 0, "candidates": 7}}
    assert result["candidates"][0]["params"] == {"l": 4}
    main(["units", "pareto", "--kind", "add", "--width", "8", "--units", "loa,trunc_add",
          "--budget", "0.001", "-o", str(plot), "--cache-dir", str(tmp_path / "cache")])
    assert "Grid: 1 of 14 candidates within the budget of 0.001 s" in capsys.readouterr().out


def test_plot_writes_the_file(tmp_path):
    rows = [{"unit": "a", "params": {}, "error": 0.0, "lut_equivalents": 10, "pareto": True},
            {"unit": "b", "params": {"l": 2}, "error": 0.1, "lut_equivalents": 4, "pareto": True},
            {"unit": "c", "params": {}, "error": 0.2, "lut_equivalents": 12, "pareto": False}]
    pareto.plot(rows, tmp_path / "front.svg", metric="mred", title="t")
    text = (tmp_path / "front.svg").read_text()
    assert text.startswith("<?xml") and "b(l=2)" in text
    assert [p.name for p in tmp_path.iterdir()] == ["front.svg"]      # no temporary left behind


def test_pareto_command(capsys, tmp_path):
    plot = tmp_path / "front.png"
    status = main(["units", "pareto", "--kind", "add", "--width", "4", "--target", "ecp5",
                   "--metric", "med", "--units", "loa,trunc_add,exact_add", "-o", str(plot),
                   "--cache-dir", str(tmp_path / "cache"), "--json"])
    out = capsys.readouterr().out
    assert status == 0
    result = json.loads(out)
    rows = result["candidates"]
    assert len(rows) == 7 and plot.read_bytes().startswith(b"\x89PNG")
    front = [(r["lut_equivalents"], r["error"]) for r in result["front"]]
    assert sorted(front) == sorted((r["lut_equivalents"], r["error"]) for r in rows if r["pareto"])
    assert sorted(pareto.non_dominated([(r["lut_equivalents"], r["error"]) for r in rows])) == \
        [i for i, r in enumerate(rows) if r["pareto"]]
    # ECP5 maps the exact adder wholly to carry cells: 0 LUT4s, but not free.
    exact = next(r for r in rows if r["unit"] == "exact_add")
    assert exact["luts"] == 0 and exact["lut_equivalents"] == 2 * exact["carry"] > 0
    assert exact["error"] == 0 and exact["pareto"] == (exact["lut_equivalents"] == min(
        r["lut_equivalents"] for r in rows if r["error"] == 0))


@pytest.mark.parametrize("argv, message", [
    (["--metric", "nonsense"], "unknown metric 'nonsense'"),
    (["--units", "mitchell"], "unit 'mitchell' is a multiplier, not an adder"),
    (["--units", "nonesuch"], "known units"),
    (["-o", "plot.txt"], ".png, .svg or .pdf"),
])
def test_pareto_errors(capsys, tmp_path, argv, message):
    status = main(["units", "pareto", "--kind", "add", "--width", "4", "--units", "exact_add",
                   "--cache-dir", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1


def _rows():
    return [
        {"unit": "exact", "params": {}, "error": 0.0, "lut_equivalents": 10, "pareto": True},
        {"unit": "tiny", "params": {}, "error": 2e-6, "lut_equivalents": 9, "pareto": True},
        {"unit": "same", "params": {"k": 1}, "error": 0.1, "lut_equivalents": 4, "pareto": True},
        {"unit": "same", "params": {"k": 2}, "error": 0.1, "lut_equivalents": 4, "pareto": True},
        {"unit": "grey", "params": {}, "error": 0.2, "lut_equivalents": 12, "pareto": False},
        {"unit": "zero", "params": {}, "error": 1.0, "lut_equivalents": 0, "pareto": False, "trivial": True},
        {"unit": "mul8u_X", "params": {}, "error": 0.05, "lut_equivalents": 6, "pareto": False,
         "source": "verilog", "dominated_by_library": False},
    ]


def test_draw_is_readable():
    from matplotlib.ticker import MaxNLocator
    figure = pareto.draw(_rows(), metric="mred", title="t")
    axes = figure.axes[0]
    assert axes.get_yscale() == "log"
    bottom, _ = axes.get_ylim()
    texts = [t.get_text() for t in axes.texts]
    # An MRED of 2e-6 is drawn as itself, above the exact strip, not on a linear "0" line.
    assert bottom < 2e-6 / 10 < 2e-6
    assert "0 (exact)" in [label.get_text() for label in axes.get_yticklabels()]
    # Every candidate is labelled, the grey and third-party ones too; coincident points share one label.
    for name in ("exact", "tiny", "grey", "zero", "mul8u_X"):
        assert any(name in text for text in texts)
    assert sum("same(k=" in text for text in texts) == 1 and "same(k=1)\nsame(k=2)" in texts
    # The front is a staircase, and LUT ticks are integers.
    steps = [line for line in axes.get_lines() if line.get_drawstyle().startswith("steps")]
    assert len(steps) == 1
    assert isinstance(axes.xaxis.get_major_locator(), MaxNLocator)
    assert all(float(t).is_integer() for t in axes.get_xticks())
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert {"third-party circuits", "no better than a constant 0", "Pareto front (library)"} <= set(legend)
    import matplotlib.pyplot as plt
    plt.close(figure)


def test_labels_do_not_overlap():
    figure = pareto.draw(_rows(), metric="mred", title="t")
    figure.canvas.draw()
    boxes = [t.get_window_extent() for t in figure.axes[0].texts]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b)
    import matplotlib.pyplot as plt
    plt.close(figure)


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One synthesis cache for the tests that sweep the 4-bit multipliers, so each is synthesised once."""
    return tmp_path_factory.mktemp("synthesis-cache")


def test_a_constant_unit_is_shown_as_such_on_the_front(tmp_path, shared_cache, capsys):
    units = pareto.candidates("mul", 4, ["trunc_mul"])
    rows = pareto.characterise(units, "ecp5", "mred", cache=synth.ResultCache(shared_cache / "synth"))
    zero = [r for r in rows if r["params"].get("c") == 7]
    assert zero and zero[0]["error"] == 1.0 and zero[0]["lut_equivalents"] == 0
    assert zero[0]["trivial"] and zero[0]["constant"] == 0 and zero[0]["pareto"]
    assert pareto.kind_of_trivial(zero[0]) == "constant 0 output"
    assert all(r["constant"] is None and not r["trivial"] for r in rows if r["params"]["c"] < 7)
    assert pareto.trivial_error("mul", 4, "mred") == 1.0
    main(["units", "pareto", "--kind", "mul", "--width", "4", "--units", "trunc_mul", "-o",
          str(tmp_path / "front.png"), "--cache-dir", str(shared_cache)])
    assert re.search(r"0 LUT-eq .* trunc_mul\(c=7\)  \(trivial: constant 0 output\)", capsys.readouterr().out)


def test_with_verilog_adds_third_party_circuits(tmp_path, shared_cache, capsys):
    folder = tmp_path / "circuits"
    folder.mkdir()
    (folder / "exact4.v").write_text(
        "module exact4(input [3:0] A, input [3:0] B, output [7:0] O); assign O = A * B; endmodule\n")
    (folder / "wide.v").write_text(
        "module wide(input [7:0] A, input [7:0] B, output [15:0] O); assign O = A * B; endmodule\n")
    (folder / "zero4.v").write_text(            # a result port called Z, and a constant 0
        "module zero4(input [3:0] A, input [3:0] B, output [7:0] Z); assign Z = 0; endmodule\n")
    (folder / "garbled.v").write_bytes(b"module garbled(input [3:0] A\xff; endmodule\n")
    plot = tmp_path / "front.png"
    argv = ["units", "pareto", "--kind", "mul", "--width", "4", "--units", "exact_mul,trunc_mul",
            "--with-verilog", str(folder), "-o", str(plot), "--cache-dir", str(shared_cache), "--port-o", "Z"]
    status = main(argv + ["--json"])
    captured = capsys.readouterr()
    assert status == 1, captured.err                   # two circuits could not be measured
    result = json.loads(captured.out)
    third_party = [r for r in result["candidates"] if r["source"] == "verilog"]
    assert [r["unit"] for r in third_party] == ["exact4", "zero4"]
    # The 8-bit one and the unreadable one are rows of "failed", each with its one-line reason.
    failed = {r["circuit"]: r["error"] for r in result["failed"]}
    assert sorted(failed) == ["garbled", "wide"]
    assert failed["wide"] == "8 x 8 bits, not 4 x 4 (--width 4)" and "garbled.v" in failed["garbled"]
    assert all("\n" not in error for error in failed.values())
    # A constant-0 circuit is trivial, not "not beaten" (the library's trunc_mul c=7 is a constant 0 too).
    zero = third_party[1]
    assert zero["trivial"] and zero["error"] == 1.0 and zero["lut_equivalents"] == 0
    status = main(argv)
    out = capsys.readouterr().out
    assert status == 1
    assert "zero4: trivial: no better than a constant 0 output" in out
    beaten = int(third_party[0]["dominated_by_library"])
    assert (f"Third-party circuits: {beaten} of 4 matched or beaten by the library, {1 - beaten} not beaten, "
            f"1 trivial, 2 not measured") in out
    assert re.search(r"^  wide: error: 8 x 8 bits, not 4 x 4", out, re.MULTILINE)
    assert re.search(r"^  garbled: error: .*garbled\.v", out, re.MULTILINE)
    circuit = third_party[0]
    assert circuit["error"] == 0 and not circuit["pareto"]
    front = [r for r in result["candidates"] if r["pareto"]]
    assert circuit["dominated_by_library"] == any(
        r["lut_equivalents"] <= circuit["lut_equivalents"] and r["error"] <= circuit["error"] for r in front)
    assert plot.read_bytes().startswith(b"\x89PNG")


def test_the_grid_follows_the_registry(monkeypatch):
    """A unit, or a parameter, added to the registry is swept with no change to the Pareto code."""
    from approx_units import registry
    drum = spec("drum")
    extra = registry.Param("z", default=lambda w, wb, s: 1, bounds=lambda w, wb, s: (0, 2), doc="a test knob")
    monkeypatch.setitem(registry._REGISTRY, "drum_test", dataclasses.replace(
        drum, name="drum_test", params=(*drum.params, extra), module=drum.describe.__module__))
    units = pareto.candidates("mul", 8, ["drum_test"])
    assert sorted((u.unit_params["k"], u.unit_params["z"]) for u in units) == \
        [(k, z) for k in range(2, 9) for z in range(3)]
    assert units[0].unit_params == {"k": 6, "z": 1}                       # its defaults first
    assert registry.parameter_grid("drum_test", 8, exclude=("k",)) == [{"k": 6, "z": z} for z in range(3)]


def test_candidates_with_the_same_circuit_are_measured_once(monkeypatch, shared_cache):
    # At 4 bits most lut_mul parameter combinations trace to one of 32 graphs (chain and edge
    # change nothing on so few columns): each distinct circuit is synthesised once.
    units = pareto.candidates("mul", 4, ["lut_mul"])[:24]
    structures = [unit.graph.structure() for unit in units]
    synthesised = []
    real = synth.synthesize_unit
    monkeypatch.setattr(synth, "synthesize_unit", lambda unit, *a, **k: synthesised.append(unit) or real(unit, *a, **k))
    rows = pareto.characterise(units, "ecp5", "mred", cache=synth.ResultCache(shared_cache / "synth"))
    assert len(synthesised) == len(set(structures)) < len(units)
    for index, (row, structure) in enumerate(zip(rows, structures)):
        first = structures.index(structure)
        if first == index:
            assert row["same_circuit_as"] is None
        else:
            assert row["same_circuit_as"] == {"unit": rows[first]["unit"], "params": rows[first]["params"]}
            assert (row["error"], row["lut_equivalents"]) == (rows[first]["error"], rows[first]["lut_equivalents"])
            assert not row["pareto"]
    # A repeat is the same circuit: its own evaluation gives the figures it was given.
    repeat = next(i for i, s in enumerate(structures) if structures.index(s) != i)
    own = evaluate.evaluate(evaluate.LibraryUnit("lut_mul", 4, 0, tuple(sorted(units[repeat].params.items()))))
    assert float(own.metrics["mred"]) == rows[repeat]["error"]
