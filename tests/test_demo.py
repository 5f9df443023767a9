"""The README's demo command must keep working: it is the first thing a new user runs."""

import pathlib
import signal
import subprocess
import sys

import pytest

from tests.foreground import FOREGROUND

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_demo_runs_and_everything_matches(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "demo.py")], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "match=False" not in result.stdout
    assert result.stdout.count("match=True") == 3
    assert "equal the numpy model" in result.stdout
    assert (ROOT / "out" / "gsumif.v").read_text().lstrip().startswith(("/*", "module", "`", "(*"))
    # `bash dev.sh demo` leaves .venv/bin off PATH: the last lines name the program as it exists.
    next_line = next(line for line in result.stdout.splitlines() if line.startswith("Next: "))
    program = next_line.removeprefix("Next: ").split(" --help")[0]
    if " -m axhls" in program:
        assert pathlib.Path(program.split(" -m ")[0]).is_file(), next_line
    else:
        assert subprocess.run([str(ROOT / program), "--version"], capture_output=True).returncode == 0, next_line


#: Runs the demo with Python's own SIGINT handler (see tests/foreground.py).
FOREGROUND_DEMO = FOREGROUND + "import runpy, sys; sys.argv = [sys.argv[1]]; runpy.run_path(sys.argv[0], run_name='__main__')"


@pytest.mark.parametrize("signum, line", [(signal.SIGINT, "demo: interrupted"),
                                          (signal.SIGTERM, "demo: terminated")], ids=["sigint", "sigterm"])
def test_an_interrupted_demo_ends_in_one_line(signum, line):
    process = subprocess.Popen([sys.executable, "-u", "-c", FOREGROUND_DEMO, str(ROOT / "examples" / "demo.py")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for text in process.stdout:              # the simulations are under way: seconds of work left
            if text.startswith("2. The hardware"):
                break
        process.send_signal(signum)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert err.strip().splitlines() == [line]
