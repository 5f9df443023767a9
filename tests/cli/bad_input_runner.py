"""Runs one row of the bad-input table (``tests/cli/bad_inputs_*.py``) and checks what the user sees.

A row is a dict:

``id`` (str)
    a name for the test report, unique over all the row files.
``files`` (dict, optional)
    ``{relative name: text}`` written under the test's folder before the run
    (parents created), as UTF-8 with ``surrogateescape`` (so ``"\udcff"`` is the
    byte 0xff); a name ending in ``/.keep`` makes an empty folder.
``argv`` (list of str)
    the ``axhls`` arguments.  ``{tmp}`` stands for the test's folder,
    ``{root}`` for the repository's root and ``{python}`` for this interpreter,
    so a row can name the shipped examples (``{root}/examples/gsumif.py:gsumif``).
``exit`` (int)
    the expected exit status.
``message`` (str)
    a regular expression searched (``re.search``) in the one line the user
    sees: the line on stderr, or with ``--json`` in ``argv`` the one JSON line on
    stdout.
``env`` (dict, optional)
    environment variables to set for the run (same placeholders); a value of
    ``None`` removes the variable.
``subprocess`` (bool, optional)
    run ``python -m axhls`` as a child process instead of ``axhls.cli.main`` in
    this process: for rows whose fault is in the process itself (an exit at
    import, a changed ``PATH`` that a cached lookup would hide, a hang).
``python_flags`` (list of str, optional)
    run as a child process, ``python FLAGS -m axhls``: ``-S`` stands in for a
    Python without the dependencies.
``timeout`` (float, optional)
    seconds before a child process counts as hung (default 120).

The checks, the same for every row: the exit status is ``exit``; no
traceback; the user's output is exactly one line (argparse's usage block,
printed before its one ``error:`` line, does not count); and ``message``
matches that line.  With ``--json``, stdout is exactly one JSON object with
``error`` and ``status`` (equal to ``exit``).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["run_row", "check_rows", "ROOT"]

REQUIRED = {"id": str, "argv": list, "exit": int, "message": str}
OPTIONAL = {"files": dict, "env": dict, "subprocess": bool, "python_flags": list, "timeout": (int, float)}


def check_rows(rows: list[dict], source: str) -> None:
    """Fail with the row and the key when a row of ``source`` is malformed."""
    for row in rows:
        for key, kind in REQUIRED.items():
            assert isinstance(row.get(key), kind), f"{source}: row {row.get('id')!r}: {key!r} must be {kind}"
        unknown = set(row) - set(REQUIRED) - set(OPTIONAL)
        assert not unknown, f"{source}: row {row['id']!r}: unknown keys {sorted(unknown)}"
        for key, kind in OPTIONAL.items():
            assert key not in row or isinstance(row[key], kind), f"{source}: row {row['id']!r}: {key!r}"
        re.compile(row["message"])


def _expand(text: str, tmp_path: Path) -> str:
    return (text.replace("{tmp}", str(tmp_path)).replace("{root}", str(ROOT))
            .replace("{python}", sys.executable))


def _set_variable(environment, name: str, value: str | None) -> None:
    """``environment[name] = value``, where ``None`` removes the variable."""
    if value is None:
        environment.pop(name, None)
    else:
        environment[name] = value


@contextlib.contextmanager
def _environment(changes: dict):
    saved = {name: os.environ.get(name) for name in changes}
    try:
        for name, value in changes.items():
            _set_variable(os.environ, name, value)
        yield
    finally:
        for name, value in saved.items():
            _set_variable(os.environ, name, value)


@contextlib.contextmanager
def _working_directory(path: Path):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _in_process(argv: list[str], tmp_path: Path, env: dict) -> tuple[int, str, str]:
    from axhls.cli import main       # imported here: a row file must be importable without the CLI

    out, err = io.StringIO(), io.StringIO()
    with _environment(env), _working_directory(tmp_path), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exit_:          # argparse's usage errors and --help
            status = exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
    return status, out.getvalue(), err.getvalue()


def _in_child(argv: list[str], tmp_path: Path, env: dict, timeout: float,
              python_flags: list[str]) -> tuple[int, str, str]:
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    for name, value in env.items():
        _set_variable(environment, name, value)
    try:
        result = subprocess.run([sys.executable, *python_flags, "-m", "axhls", *argv], cwd=tmp_path, env=environment,
                                capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"axhls {' '.join(argv)} hung: no exit after {timeout} s") from None
    return result.returncode, result.stdout, result.stderr


def _without_usage(lines: list[str]) -> list[str]:
    """``lines`` without argparse's ``usage:`` block (its first line and the indented ones after it)."""
    kept, in_usage = [], False
    for line in lines:
        if line.startswith("usage: "):
            in_usage = True
            continue
        if in_usage and line.startswith(" "):
            continue
        in_usage = False
        kept.append(line)
    return kept


def run_row(row: dict, tmp_path: Path) -> None:
    """Run ``row`` (see the module's docstring) in ``tmp_path`` and assert what the user sees."""
    for name, text in row.get("files", {}).items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.name != ".keep":
            path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    argv = [_expand(arg, tmp_path) for arg in row["argv"]]
    env = {name: None if value is None else _expand(value, tmp_path) for name, value in row.get("env", {}).items()}
    if row.get("subprocess") or "python_flags" in row:
        status, out, err = _in_child(argv, tmp_path, env, row.get("timeout", 120), row.get("python_flags", []))
    else:
        status, out, err = _in_process(argv, tmp_path, env)
    shown = f"axhls {' '.join(argv)}\n--- exit {status}\n--- stdout:\n{out}--- stderr:\n{err}"
    assert "Traceback" not in out + err, shown
    assert status == row["exit"], shown
    if "--json" in argv:
        lines = out.splitlines()
        assert len(lines) == 1, shown
        result = json.loads(lines[0])
        assert isinstance(result, dict) and result.get("status") == row["exit"] and "error" in result, shown
        assert len(_without_usage(err.splitlines())) <= 1, shown
        line = lines[0]
    else:
        lines = _without_usage(err.splitlines())
        assert len(lines) == 1, shown
        assert out == "", shown
        line = lines[0]
    assert re.search(row["message"], line), f"{row['message']!r} not in the line\n{shown}"
