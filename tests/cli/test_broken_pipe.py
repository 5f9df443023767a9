"""A reader that has gone (`axhls ... | head -c 10`) ends the command quietly, without a traceback."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_closed_stdout_pipe_is_no_traceback():
    # The reading end is closed before the command writes: its first write meets a broken pipe.
    read_end, write_end = os.pipe()
    process = subprocess.Popen([sys.executable, "-m", "axhls", "report", f"{ROOT}/examples/gsumif.py:gsumif",
                                "--json"], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                               stdout=write_end, stderr=subprocess.PIPE, text=True)
    os.close(write_end)
    os.close(read_end)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (141, "")
