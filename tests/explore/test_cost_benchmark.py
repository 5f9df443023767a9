"""benchmarks/explore_cost.py's report: each point's ``lut_error_pct`` and the error's distribution per
application, per kind of point and overall (no synthesis here: the measurement is replaced by fixed rows);
the probes of benchmarks/explore_cost_consumer.py."""

import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

import hls  # noqa: E402
import hls.explore as explore  # noqa: E402
from benchmarks import explore_cost  # noqa: E402
from benchmarks.explore_cost_consumer import SOURCE  # noqa: E402
from hls.explore import cost  # noqa: E402


def _rows(name, *, mixes, seed, circuits=None):
    figures = {"image": [(100, 100), (111, 100), (95, 100)], "tracking": [(80, 100), (104, 100)]}[name]
    kinds = ["uniform", "uniform", "mix"] if name == "image" else ["uniform", "mix"]
    return [{"app": name, "kind": kind, "config": f"{kind} {n}", "selection": [n], "estimate": estimate,
             "synthesised": synthesised, "lut_error_pct": explore_cost.error_pct(estimate, synthesised),
             "kernels": {}}
            for n, (kind, (estimate, synthesised)) in enumerate(zip(kinds, figures))]


def test_the_json_gives_each_points_error_and_the_distribution_per_app_kind_and_overall(monkeypatch, capsys):
    monkeypatch.setattr(explore_cost, "measure", _rows)
    assert explore_cost.main(["--app", "image", "--app", "tracking", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [point["lut_error_pct"] for point in report["points"]] == [0.0, 11.0, -5.0, -20.0, 4.0]
    distribution = report["distribution"]
    assert distribution["overall"] == {"points": 5, "within_10pct": 3, "share_within_10pct": 0.6, "median_pct": 0.0,
                                       "median_abs_pct": 5.0, "worst_pct": -20.0}
    assert distribution["image"]["within_10pct"] == 2 and distribution["image"]["worst_pct"] == 11.0
    assert distribution["tracking"]["median_pct"] == -8.0
    assert distribution["image mix"]["points"] == 1 and distribution["mix"]["points"] == 2
    assert distribution["uniform"]["worst_pct"] == -20.0


def test_the_text_report_ends_with_the_distribution(monkeypatch, capsys):
    monkeypatch.setattr(explore_cost, "measure", _rows)
    assert explore_cost.main(["--app", "tracking"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "error  -20.00 %" in lines[0] and "error   +4.00 %" in lines[1]
    (overall,) = [line for line in lines if line.strip().startswith("overall")]
    assert "1/2" in overall and "worst  -20.00 %" in overall


def test_a_probe_source_gets_the_unit_on_every_operation_of_its_kind_only():
    unit = explore.parse_candidates("mul=drum(k=3)", ["mul"])["mul"][0]
    compiled = cost.compile_probe(SOURCE.format(body="x * y + z"), hls.Target(), unit)
    kinds = [op.kind for block in compiled.ir.blocks() for op in block.ops if op.kind in ("mul", "approx_mul", "add")]
    assert sorted(kinds) == ["add", "approx_mul"]
    exact = cost.compile_probe(SOURCE.format(body="x * y + z"), hls.Target())
    assert sorted(op.kind for block in exact.ir.blocks() for op in block.ops if op.kind in ("mul", "add")) == \
        ["add", "mul"]
