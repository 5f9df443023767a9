"""Pareto fronts: the dominance algorithm, the candidate set, the plot and the command."""

import json

import pytest

from approx_units import pareto
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
    assert sorted(u.unit_params["l"] for u in units) == [1, 2, 4, 6, 7]   # 5 values spread over 1..7
    with pytest.raises(ValueError, match="not a mul unit"):
        pareto.candidates("mul", 8, ["loa"])


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
    (["--units", "mitchell"], "not a add unit"),
    (["--units", "nonesuch"], "known units"),
    (["-o", "plot.txt"], ".png, .svg or .pdf"),
])
def test_pareto_errors(capsys, tmp_path, argv, message):
    status = main(["units", "pareto", "--kind", "add", "--width", "4", "--units", "exact_add",
                   "--cache-dir", str(tmp_path), *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1
