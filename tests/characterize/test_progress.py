"""Long commands say up front how much work there is and show a tqdm bar with the time left:
on a terminal or with --progress; never with --json unless asked, so pipes and tests stay clean."""

import json

from axhls.cli import main


def _export(tmp_path, *options):
    return main(["units", "export", "-o", str(tmp_path / "out"), "--no-synth", "--units", "loa",
                 "--widths", "8", *options])


def test_export_says_how_much_work_there_is_and_shows_a_bar_with_progress(tmp_path, capsys):
    assert _export(tmp_path, "--progress") == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == "1 entries at widths 8: 1 error evaluations, then 0 synthesis runs"
    assert "error metrics: 100%" in err and "1/1" in err


def test_export_without_a_terminal_logs_lines_and_no_bar(tmp_path, capsys):
    assert _export(tmp_path) == 0
    err = capsys.readouterr().err
    assert "%|" not in err and "\r" not in err
    assert err.splitlines() == ["1 entries at widths 8: 1 error evaluations, then 0 synthesis runs",
                                "metrics loa w8: mred=0.01489"]


def test_export_with_json_keeps_stderr_empty(tmp_path, capsys):
    assert _export(tmp_path, "--json") == 0
    captured = capsys.readouterr()
    assert captured.err == "" and json.loads(captured.out)["entries"] == 1


def test_sweep_counts_its_jobs_up_front_and_reused_ones_apart(tmp_path, capsys):
    argv = ["units", "sweep", "--units", "loa", "--param", "l=2,3", "--targets", "none", "--jobs", "1",
            "--db", str(tmp_path / "sweep.sqlite")]
    assert main([*argv, "--progress"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == ("2 jobs, 0 already in the results database: 2 to run "
                                   "(2 error evaluations, 0 synthesis runs)")
    assert "sweep: 100%" in err and "2/2" in err
    assert main(argv) == 0
    assert capsys.readouterr().err.splitlines()[0] == ("2 jobs, 2 already in the results database: 0 to run "
                                                       "(0 error evaluations, 0 synthesis runs)")


def test_survey_names_its_circuits_up_front(tmp_path, capsys):
    from pathlib import Path
    folder = tmp_path / "circuits"
    folder.mkdir()
    (folder / "loa8.v").write_text((Path(__file__).resolve().parents[2] / "examples" / "loa8.v").read_text())
    assert main(["units", "survey", str(folder), "--kind", "add", "--target", "none", "--progress"]) == 0
    err = capsys.readouterr().err
    assert err.splitlines()[0] == f"1 circuits in {folder}: error metrics for each"
    assert "survey: 100%" in err
