"""The bad inputs of ``bad_inputs_language.ROWS``: each exits with its status and one line.

In-process through :func:`axhls.cli.main` (a fraction of a second each); a row with
``python_flags`` runs as a subprocess under those interpreter flags.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from axhls.cli import main
from bad_inputs_language import ROWS

ROOT = Path(__file__).resolve().parents[2]


def _run(row: dict, directory: Path, monkeypatch, capsys) -> tuple[int, str, str]:
    for name, text in row["files"].items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text)
    if "python_flags" in row:
        process = subprocess.run([sys.executable, *row["python_flags"], "-m", "axhls", *row["argv"]],
                                 capture_output=True, text=True, cwd=directory, timeout=120,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        return process.returncode, process.stdout, process.stderr
    monkeypatch.chdir(directory)
    try:
        status = main(list(row["argv"]))
    except SystemExit as error:      # argparse's usage errors
        status = error.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_rows_have_unique_ids_and_the_fields_of_the_table():
    assert len(ROWS) >= 60
    assert len({row["id"] for row in ROWS}) == len(ROWS)
    for row in ROWS:
        assert {"id", "files", "argv", "exit", "message"} <= set(row) <= {"id", "files", "argv", "exit", "message",
                                                                             "python_flags"}, row["id"]
        re.compile(row["message"])


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_a_bad_input_gets_its_status_and_one_line(row, tmp_path, monkeypatch, capsys):
    status, out, err = _run(row, tmp_path, monkeypatch, capsys)
    assert status == row["exit"], (out, err)
    assert "Traceback" not in err
    lines = err.splitlines()
    assert lines, "nothing on stderr"
    # argparse prints its usage before the one line; nothing else may come before it.
    usage = lines[:-1]
    assert not usage or (usage[0].startswith("usage: ") and all(line.startswith(" ") for line in usage[1:])), err
    if "--json" in row["argv"]:
        assert out.count("\n") == 1 and set(json.loads(out)) == {"error", "status"}, out
        assert re.search(row["message"], out.strip()), out
    else:
        assert out == ""
        assert re.search(row["message"], lines[-1]), lines[-1]


def test_the_demo_under_a_python_without_the_dependencies_prints_a_hint():
    process = subprocess.run([sys.executable, "-S", str(ROOT / "examples" / "demo.py")], capture_output=True,
                             text=True, cwd=ROOT, timeout=120)
    assert process.returncode == 2 and process.stdout == ""
    assert re.fullmatch(r"examples/demo\.py: this Python \(.*\) has no module '\w+'; axhls runs in its virtual "
                        r"environment: set it up with `bash dev\.sh demo` in the repository, then run "
                        r"\.venv/bin/axhls \(or \.venv/bin/python\)\n", process.stderr), process.stderr


def test_a_kernel_file_that_prints_at_import_still_shows_it_after_a_good_import(tmp_path, monkeypatch, capsys):
    (tmp_path / "k.py").write_text("import hls\nfrom amaranth import unsigned\nimport sys\nprint('hello', sys.argv)\n\n"
                                   "@hls.kernel\ndef k(n: unsigned(8)) -> unsigned(8):\n    return n\n")
    monkeypatch.chdir(tmp_path)
    assert main(["report", "k.py:k", "--json"]) == 0
    first, report = capsys.readouterr().out.splitlines()
    assert first == "hello ['k.py']"                  # its own command line, not axhls's
    assert json.loads(report)["kernel"] == "k"
    assert sys.argv[0] != "k.py"
