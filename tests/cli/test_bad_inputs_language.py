"""The kernel language's bad inputs (``bad_inputs_language.ROWS``, run by test_bad_inputs.py with the
other tables), and what a kernel file's import and a Python without the dependencies print."""

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


def test_the_language_table_has_its_rows():
    # Run with every other table by test_bad_inputs.py.
    assert len(ROWS) >= 60


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
