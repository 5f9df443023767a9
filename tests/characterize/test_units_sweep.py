"""Sweeps: the grid, SQLite resume, a Dask LocalCluster, and the command's errors."""

import json
import sqlite3
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from approx_units import sweep
from axhls.cli import main


class InlineExecutor:
    """Runs jobs in the calling thread; counts them; fails those whose key text contains `fail_on`."""

    def __init__(self, fail_on=None):
        self.submitted = []
        self.fail_on = fail_on

    def submit(self, function, key):
        self.submitted.append(key)
        future = Future()
        if self.fail_on and self.fail_on in key.text():
            future.set_exception(RuntimeError("simulated crash"))
        else:
            future.set_result(function(key))
        return future


def test_grid_applies_each_parameter_to_the_units_that_have_it():
    errors, areas, rejected = sweep.grid(["loa", "mitchell"], {"l": [2, 3]}, [8], [0, "rec"], ["ecp5"])
    assert sorted((k.unit, dict(k.params).get("l")) for k in errors) == \
        [("loa", 2), ("loa", 3), ("mitchell", None)]
    import approx_units
    recommended = approx_units.get("mitchell", width=8).recommended_stages
    assert {(k.unit, k.stages) for k in areas if k.unit == "mitchell"} == {("mitchell", 0), ("mitchell", recommended)}
    loa_depths = {0, approx_units.get("loa", width=8).recommended_stages}
    assert len(areas) == 2 * len(loa_depths) + 2 and rejected == []


def test_grid_reports_rejected_configurations():
    errors, _, rejected = sweep.grid(["loa"], {"l": [3, 99]}, [8], [0], [])
    assert len(errors) == 1 and len(rejected) == 1 and "l=99" in rejected[0]


def test_second_run_computes_nothing_and_an_interrupted_run_resumes(tmp_path):
    errors, areas, _ = sweep.grid(["loa", "trunc_add"], {"l": [1, 2]}, [6], [0], [])
    store = sweep.ResultStore(tmp_path / "r.sqlite")
    crashing = InlineExecutor(fail_on='"trunc_add"')
    first = sweep.run_sweep(errors, areas, store, crashing)
    assert first["computed"] == 2 and len(first["failed"]) == 2
    store.close()

    store = sweep.ResultStore(tmp_path / "r.sqlite")       # a new process, the same file
    resumed = InlineExecutor()
    second = sweep.run_sweep(errors, areas, store, resumed)
    assert second == {"jobs": 4, "reused": 2, "computed": 2, "failed": []}
    assert {k.unit for k in resumed.submitted} == {"trunc_add"}

    third = InlineExecutor()
    assert sweep.run_sweep(errors, areas, store, third)["computed"] == 0 and third.submitted == []
    rows = sweep.table(errors, areas, store)
    loa1 = next(r for r in rows if r["unit"] == "loa" and r["params"]["l"] == 1)
    assert loa1["metrics"]["er"] == pytest.approx(1 - 0.75)


def test_rows_are_committed_one_by_one(tmp_path):
    errors, areas, _ = sweep.grid(["loa"], {"l": [1, 2, 3]}, [5], [0], [])
    store = sweep.ResultStore(tmp_path / "r.sqlite")
    sweep.run_sweep(errors, areas, store, InlineExecutor(fail_on='["l", 3]'))
    # Another connection sees exactly the finished rows: nothing half-written, nothing pending.
    count = sqlite3.connect(tmp_path / "r.sqlite").execute("SELECT COUNT(*) FROM errors").fetchone()[0]
    assert count == 2


def test_area_jobs_go_through_the_executor(tmp_path, monkeypatch):
    monkeypatch.setenv("AXHLS_CACHE_DIR", str(tmp_path / "cache"))
    errors, areas, _ = sweep.grid(["loa"], {"l": [2]}, [4], [0, 1], ["ice40"], timing=False)
    store = sweep.ResultStore(tmp_path / "r.sqlite")
    with ThreadPoolExecutor(2) as pool:
        summary = sweep.run_sweep(errors, areas, store, pool)
    assert summary["computed"] == 3 and not summary["failed"]
    rows = sweep.table(errors, areas, store)
    assert [r["area"]["ffs"] > 0 for r in sorted(rows, key=lambda r: r["stages"])] == [False, True]


def test_sweep_command_runs_on_a_dask_local_cluster(capsys, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        argv = ["units", "sweep", "--units", "loa", "--param", "l=1,2", "--widths", "5",
                "--targets", "none", "--db", str(tmp_path / "d.sqlite"), "--dask",
                cluster.scheduler_address, "--json"]
        assert main(argv) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["computed"] == 2 and result["reused"] == 0
        assert main(argv) == 0
        again = json.loads(capsys.readouterr().out)
        assert again["computed"] == 0 and again["reused"] == 2
        assert again["rows"] == result["rows"]


def test_local_process_pool_command(capsys, tmp_path):
    argv = ["units", "sweep", "--units", "trunc_add", "--param", "l=1,2", "--widths", "5",
            "--targets", "none", "--db", str(tmp_path / "p.sqlite"), "--jobs", "2"]
    assert main(argv) == 0
    assert "2 computed, 0 reused" in capsys.readouterr().out


@pytest.mark.parametrize("extra, message", [
    (["--dask", "tcp://127.0.0.1:9", "--connect-timeout", "1"], "cannot connect to the Dask scheduler"),
    (["--targets", "virtex"], "unknown target 'virtex'"),
    (["--stages", "x"], "--stages expects"),
    (["--param", "l"], "NAME=V1,V2"),
])
def test_sweep_command_errors(capsys, tmp_path, extra, message):
    status = main(["units", "sweep", "--units", "loa", "--widths", "5", "--targets", "none",
                   "--db", str(tmp_path / "e.sqlite"), *extra])
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1, err


def test_not_a_database(capsys, tmp_path):
    (tmp_path / "bad.sqlite").write_text("this is not sqlite" * 100)
    status = main(["units", "sweep", "--units", "loa", "--widths", "5", "--targets", "none",
                   "--db", str(tmp_path / "bad.sqlite")])
    assert status == 2 and "not a sweep results database" in capsys.readouterr().err
