"""The README's demo command must keep working: it is the first thing a new user runs."""

import pathlib
import subprocess
import sys

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
