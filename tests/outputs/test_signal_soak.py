"""SIGINT and SIGTERM at random moments leave nothing behind: ten times each, for four commands.

Each run starts ``axhls`` in a process group of its own, waits until the command
line is parsed (the launcher of ``test_interrupts`` touches a marker then),
waits a random time drawn from a seeded generator over about the command's
length, and sends the signal: SIGINT to the whole group, as a terminal's
Ctrl-C does, and SIGTERM to the command alone, as ``timeout`` or a batch
system does.  A run may finish before the signal (exit 0): its outputs must
then be whole.  Otherwise the exit status is 130 (SIGINT) or 143 (SIGTERM),
with one ``axhls:`` line and no traceback, no process of the group is left,
and the work folder holds no partial output, no staging folder and no
temporary file.

The commands are kept small (8- and 16-bit units, short grids, a kernel of a
few seconds); each of the eight cases takes about a minute, so the test is ``slow``.
"""

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_interrupts import LAUNCH, LONG_LOOP, _group_alive, _wide_kernel

ROOT = Path(__file__).resolve().parents[2]
RUNS = 10


def _export(work: Path, inputs: Path):
    argv = ["units", "export", "-o", str(work / "catalog"), "--no-synth", "--units", "loa,mitchell,drum",
            "--widths", "8,16,32"]

    def whole():
        folder = work / "catalog"
        catalog = json.loads((folder / "catalog.json").read_text())
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            ["catalog.json", "catalog.md", *(entry["verilog"] for entry in catalog["entries"])])
        assert sorted(p.name for p in work.iterdir()) == ["catalog"]
    return argv, whole, 7.0


def _sweep(work: Path, inputs: Path):
    database = work / "sweep.sqlite"
    # 24 jobs, about two seconds after the command line is parsed on an idle machine (the compiled
    # error engine is fast: 8 jobs of 16 bits over four seconds left most moments after the end).
    argv = ["units", "sweep", "--units", "loa", "--param", "l=1,2,3,4,5,6,7,8", "--widths", "16,24,32",
            "--samples", "16000000", "--targets", "none", "--jobs", "2", "--db", str(database)]

    def whole():
        assert sorted(p.name for p in work.iterdir()) == ["sweep.sqlite"]
        assert _rows(database) == 24
    return argv, whole, 1.2


def _compile(work: Path, inputs: Path):
    source = inputs / "wide.py"
    _wide_kernel(source, 150)                    # some three seconds of scheduling
    argv = ["compile", f"{source}:wide", "-o", str(work / "out")]

    def whole():
        assert sorted(p.name for p in (work / "out").iterdir()) == [
            "wide.ports.json", "wide.ports.txt", "wide.report.json", "wide.report.txt", "wide.v"]
        assert sorted(p.name for p in work.iterdir()) == ["out"]
    return argv, whole, 3.0


def _sim(work: Path, inputs: Path):
    source, arguments = inputs / "count.py", inputs / "args.json"
    source.write_text(LONG_LOOP)
    arguments.write_text('{"n": 40000}')                 # 40,000 cycles: about four seconds
    argv = ["sim", f"{source}:count", "--args", str(arguments), "--vcd", str(work / "count.vcd")]

    def whole():
        assert sorted(p.name for p in work.iterdir()) == ["count.vcd"]
        assert (work / "count.vcd").read_text().rstrip().split("\n")[-1].startswith("#")
    return argv, whole, 4.0


def _rows(database: Path) -> int:
    connection = sqlite3.connect(database)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return connection.execute("SELECT count(*) FROM errors").fetchone()[0] if "errors" in tables else 0
    finally:
        connection.close()


def _left_behind(work: Path, command: str) -> list[str]:
    """What an interrupted run of ``command`` may not leave in ``work``."""
    names = sorted(p.name for p in work.iterdir())
    if command == "sweep":
        # The results database is resumable by design: whole rows stay, nothing else may.
        if names == ["sweep.sqlite"]:
            _rows(work / "sweep.sqlite")         # readable, and whole
            return []
        return names
    return names


COMMANDS = {"export": _export, "sweep": _sweep, "compile": _compile, "sim": _sim}
SIGNALS = {"SIGINT": (signal.SIGINT, 130), "SIGTERM": (signal.SIGTERM, 143)}


def _run_once(argv, marker: Path, signal_number: int, delay: float, timeout: float = 90.0):
    process = subprocess.Popen([sys.executable, "-c", LAUNCH, str(marker), *argv], cwd=ROOT,
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, process_group=0)
    group = process.pid
    try:
        deadline = time.monotonic() + timeout
        while not marker.exists() and process.poll() is None:
            assert time.monotonic() < deadline, "the command line never started"
            time.sleep(0.01)
        time.sleep(delay)
        if process.poll() is None:
            if signal_number == signal.SIGINT:
                os.killpg(group, signal.SIGINT)          # a terminal's Ctrl-C reaches the whole group
            else:
                os.kill(process.pid, signal_number)      # timeout(1) and batch systems signal the command
        out, err = process.communicate(timeout=timeout)
        deadline = time.monotonic() + 10
        while _group_alive(group) and time.monotonic() < deadline:
            time.sleep(0.05)
        orphans = _group_alive(group)
        return process.returncode, out, err, orphans
    finally:
        if _group_alive(group):
            os.killpg(group, signal.SIGKILL)
        if process.poll() is None:
            process.kill()
            process.wait()


@pytest.mark.slow
@pytest.mark.parametrize("signal_name", SIGNALS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_signal_at_a_random_moment_leaves_nothing_behind(command, signal_name, tmp_path):
    signal_number, interrupted_status = SIGNALS[signal_name]
    moments = random.Random(f"{command} {signal_name}")
    inputs = tmp_path / "inputs"
    inputs.mkdir()
    outcomes = []
    for run in range(RUNS):
        work = tmp_path / f"work{run}"
        work.mkdir()
        argv, whole, length = COMMANDS[command](work, inputs)
        delay = moments.uniform(0.0, length)
        status, out, err, orphans = _run_once(argv, tmp_path / f"started{run}", signal_number, delay)
        shown = f"run {run}, {signal_name} after {delay:.2f} s: exit {status}\nstdout: {out[-2000:]}\nstderr: {err[-2000:]}"
        assert "Traceback" not in err, shown
        assert not orphans, f"a process of the group outlived the command\n{shown}"
        if status == 0:
            whole()
        else:
            assert status == interrupted_status, shown
            assert err.strip().splitlines()[-1].startswith("axhls: "), shown
            assert _left_behind(work, command) == [], shown
        outcomes.append(status)
    # The moments are spread over the command's length: most runs must really be interrupted.
    assert outcomes.count(interrupted_status) >= RUNS // 2, outcomes
