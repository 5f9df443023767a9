"""Every bad input of ``tests/cli/bad_inputs_units.py``: its exit status and its one line, with no traceback.

The command line runs in this process (``axhls.cli.main``), in a fresh folder
holding the row's files, so that the table runs in seconds.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest

from axhls.cli import main


def _load_table():
    # Loaded by path: the table is data beside this file, not a module of a package.
    path = Path(__file__).with_name("bad_inputs_units.py")
    spec = importlib.util.spec_from_file_location("bad_inputs_units", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TABLE = _load_table()
ROWS = TABLE.ROWS


def test_the_table_is_large_and_its_ids_unique():
    ids = [row["id"] for row in ROWS]
    assert len(ids) >= 60
    assert len(set(ids)) == len(ids)
    assert all(row["argv"][0] == "units" for row in ROWS)


def run_row(row, folder: Path, capsys, monkeypatch):
    """Run ``row`` in ``folder``; return ``(status, stdout, stderr)``."""
    TABLE.write_files(folder, row["files"])
    monkeypatch.chdir(folder)
    try:
        status = main(list(row["argv"]))
    except SystemExit as exit:                   # argparse's usage errors
        status = exit.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def the_line(row, out: str, err: str) -> str:
    """The one line that says what is wrong, checked to be alone."""
    assert "Traceback" not in err, err
    if "--json" in row["argv"]:
        assert out.count("\n") == 1, out         # exactly one JSON object, whatever failed
        error = json.loads(out)
        assert error["status"] == row["exit"], error
        return error["error"]
    assert out == "", out                        # nothing printed as if it had worked
    lines = err.rstrip("\n").splitlines()
    assert lines, "no message"
    # Above the line there is at most argparse's usage: "usage: ..." and its indented continuations.
    above = lines[:-1]
    assert not above or (above[0].startswith("usage: ") and all(l.startswith(" ") for l in above[1:])), err
    return lines[-1]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_bad_input(row, tmp_path, capsys, monkeypatch):
    status, out, err = run_row(row, tmp_path, capsys, monkeypatch)
    line = the_line(row, out, err)
    assert status == row["exit"], (status, line)
    assert re.search(row["message"], line), line
