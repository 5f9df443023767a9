"""The unit library's outputs go through artefacts: checked before the work, atomic, whole or absent."""

import json
import os
import stat
from concurrent.futures import ThreadPoolExecutor

import pytest

import artefacts
from approx_units import catalog, pareto, sweep, synth
from axhls.cli import main


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if any evaluation, synthesis or plot starts."""
    def forbidden(*args, **kwargs):
        raise AssertionError("the work started before the destination was checked")
    monkeypatch.setattr(catalog, "entry_metrics", forbidden)
    monkeypatch.setattr(synth, "synthesize_verilog", forbidden)
    monkeypatch.setattr(pareto, "characterise", forbidden)
    monkeypatch.setattr(sweep, "run_sweep", forbidden)


def _one_line_error(capsys, argv, starts):
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2, captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    assert captured.err.startswith(f"axhls: {starts}"), captured.err
    assert ".tmp" not in captured.err and ".axhls-probe" not in captured.err
    return captured


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "a_file"
    path.write_text("not a folder\n")
    return path


def test_pareto_plot_destination_is_checked_first(capsys, tmp_path, no_work, a_file):
    base = ["units", "pareto", "--kind", "add", "--width", "4", "--units", "exact_add"]
    _one_line_error(capsys, [*base, "-o", "/proc/x.png"], "/proc/x.png: cannot write there")
    _one_line_error(capsys, [*base, "-o", str(tmp_path / "missing" / "x.png")],
                    f"{tmp_path / 'missing' / 'x.png'}: directory")
    _one_line_error(capsys, [*base, "-o", str(tmp_path / "x.png"), "--cache-dir", str(a_file)],
                    f"{a_file}: exists and is not a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


def test_area_cache_dir_that_is_a_file(capsys, no_work, a_file):
    _one_line_error(capsys, ["units", "area", "loa", "--width", "4", "--target", "ecp5", "--no-timing",
                             "--cache-dir", str(a_file)], f"{a_file}: exists and is not a directory")


def test_export_into_a_file_or_with_a_file_as_cache(capsys, tmp_path, no_work, a_file):
    _one_line_error(capsys, ["units", "export", "-o", str(a_file), "--no-synth", "--units", "loa"],
                    f"{a_file}: exists and is not a directory")
    captured = _one_line_error(capsys, ["units", "export", "-o", str(tmp_path / "out"), "--units", "loa",
                                        "--cache-dir", str(a_file), "--json"],
                               f"{a_file}: exists and is not a directory")
    assert json.loads(captured.out) == {"error": f"{a_file}: exists and is not a directory", "status": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]
    assert a_file.read_text() == "not a folder\n"


@pytest.mark.parametrize("where, message", [
    (lambda tmp: tmp, "is a directory"),
    (lambda tmp: tmp / "missing" / "s.sqlite", "does not exist"),
    (lambda tmp: "/proc/s.sqlite", "cannot write there"),
])
def test_sweep_database_destination(capsys, tmp_path, no_work, where, message):
    database = where(tmp_path)
    captured = _one_line_error(capsys, ["units", "sweep", "--units", "loa", "--widths", "4", "--targets", "none",
                                        "--db", str(database)], f"{database}: ")
    assert message in captured.err


def test_result_store_names_the_users_path(tmp_path):
    with pytest.raises(artefacts.DestinationError, match=f"^{tmp_path}: is a directory"):
        sweep.ResultStore(tmp_path)


def test_result_cache_in_a_file_misses_and_cannot_store(a_file):
    cache = synth.ResultCache(a_file / "synth")
    assert cache.get("k") is None and cache.misses == 1
    with pytest.raises(artefacts.DestinationError, match=f"^{a_file / 'synth'}: "):
        cache.put("k", {"cells": {}})
    with pytest.raises(artefacts.DestinationError):
        cache.check()


def test_result_cache_files_are_atomic_and_0644(tmp_path):
    cache = synth.ResultCache(tmp_path / "cache" / "synth")
    cache.check()
    cache.put("k", {"cells": {"LUT4": 3}})
    assert cache.get("k") == {"cells": {"LUT4": 3}} and cache.hits == 1
    assert [p.name for p in cache.directory.iterdir()] == ["k.json"]
    assert _mode(cache.directory / "k.json") == 0o644


def test_plot_to_an_unwritable_place_names_the_path():
    rows = [{"unit": "a", "params": {}, "error": 0.1, "lut_equivalents": 4, "pareto": True}]
    with pytest.raises(artefacts.DestinationError, match=r"^/proc/front\.svg: cannot write there"):
        pareto.plot(rows, "/proc/front.svg", metric="mred", title="t")


def test_export_writes_verilog_first_and_catalog_json_last(tmp_path, monkeypatch):
    destination = tmp_path / "netlists"
    catalog.export(destination, targets=(), units=["loa"], widths=(8,))
    replaced = []
    real_replace = os.replace

    def recording(source, target):
        replaced.append(os.path.basename(target))
        real_replace(source, target)
    monkeypatch.setattr(os, "replace", recording)
    catalog.export(destination, targets=(), units=["loa", "mitchell"], widths=(8,))
    monkeypatch.undo()
    verilog = [name for name in replaced if name.endswith(".v")]
    assert replaced == [*verilog, "catalog.md", "catalog.json"] and len(verilog) == 3
    assert all(_mode(path) == 0o644 for path in destination.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["netlists"]       # no staging folder left


@pytest.mark.parametrize("existing", [False, True])
def test_failed_export_leaves_the_folder_as_it_was(tmp_path, monkeypatch, existing):
    destination = tmp_path / "netlists"
    if existing:
        catalog.export(destination, targets=(), units=["loa"], widths=(8,))
    before = {p.name: p.read_bytes() for p in destination.iterdir()} if existing else None
    real_verilog, calls = synth.unit_verilog, []

    def fails_on_the_third(unit, name="unit"):
        calls.append(name)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_verilog(unit, name)
    monkeypatch.setattr(synth, "unit_verilog", fails_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        catalog.export(destination, targets=(), units=["loa", "mitchell"], widths=(8,))
    if existing:
        assert {p.name: p.read_bytes() for p in destination.iterdir()} == before
        assert [p.name for p in tmp_path.iterdir()] == ["netlists"]
    else:
        assert list(tmp_path.iterdir()) == []


def test_sweep_param_that_no_selected_unit_has(capsys, tmp_path):
    database = tmp_path / "s.sqlite"
    _one_line_error(capsys, ["units", "sweep", "--units", "loa,mitchell", "--param", "q=2", "--widths", "4",
                             "--targets", "none", "--db", str(database)],
                    "--param q: no selected unit has it (loa: l, signed; mitchell: signed, width_b)")
    assert not database.exists()
    # A parameter that only some units have applies to those and is ignored by the others.
    assert main(["units", "sweep", "--units", "loa,mitchell", "--param", "l=2,3", "--widths", "4",
                 "--targets", "none", "--db", str(database), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert sorted((r["unit"], r["params"].get("l")) for r in rows) == [("loa", 2), ("loa", 3), ("mitchell", None)]


def test_grid_rejects_a_parameter_no_unit_has():
    with pytest.raises(sweep.UnknownParameterError) as info:
        sweep.grid(["loa"], {"k": [2]}, [8], [0], [])
    assert info.value.parameter == "k" and info.value.accepted == {"loa": ["l", "signed"]}


@pytest.mark.parametrize("command", [["eval"], ["area", "--target", "ecp5", "--no-timing"]])
def test_eval_and_area_reject_a_parameter_the_unit_lacks(capsys, no_work, command):
    _one_line_error(capsys, ["units", command[0], "loa", "--width", "4", "--param", "q=2", *command[1:]],
                    "loa: unit 'loa' has no parameter 'q'; its parameters are: l, signed")


def test_sweep_cache_dir_is_checked_first(capsys, tmp_path, no_work, a_file):
    _one_line_error(capsys, ["units", "sweep", "--units", "trunc_add", "--widths", "4", "--targets", "ice40",
                             "--db", str(tmp_path / "s.sqlite"), "--cache-dir", str(a_file)],
                    f"{a_file}: exists and is not a directory")
    assert not (tmp_path / "s.sqlite").exists()


def test_sweep_area_jobs_use_the_given_cache(tmp_path, monkeypatch):
    used = []

    def measured(unit, target, *, timing, cache):
        used.append(cache.directory)
        return synth.AreaReport.from_cells(target, {"SB_LUT4": 3}, None)
    monkeypatch.setattr(synth, "synthesize_unit", measured)
    errors, areas, _ = sweep.grid(["trunc_add"], {"l": [1]}, [4], [0], ["ice40"], timing=False)
    store = sweep.ResultStore(tmp_path / "s.sqlite")
    try:
        with ThreadPoolExecutor(1) as pool:
            summary = sweep.run_sweep(errors, areas, store, pool, cache_directory=str(tmp_path / "c"))
    finally:
        store.close()
    assert summary["computed"] == 2 and used == [tmp_path / "c"]
