"""The command line as a whole: usage errors, JSON on failure, and reproducible outputs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from axhls.cli import main

ROOT = Path(__file__).resolve().parent.parent
GSUMIF = f"{ROOT / 'examples' / 'gsumif.py'}:gsumif"
ARGS = str(ROOT / "examples" / "gsumif_args.json")


@pytest.mark.parametrize("argv, usage", [([], "usage: axhls"), (["units"], "usage: axhls units")])
def test_no_sub_command_is_a_usage_error(argv, usage, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(usage) and "a sub-command is required" in captured.err


@pytest.mark.parametrize("argv, status, message", [
    # 4 loop iterations fit the Python run's bound of 5; the hardware needs 12 cycles.
    (["sim", GSUMIF, "--args", ARGS, "--max-cycles", "5", "--json"], 1, "gsumif: no done after 5 cycles"),
    (["sim", GSUMIF, "--args", ARGS, "--max-cycles", "3", "--json"], 1,
     "examples/gsumif.py:20: the Python run stopped after 3 iterations of this loop (the limit set by --max-cycles 3)"),
    (["sim", GSUMIF, "--args", "/nonexistent.json", "--json"], 2, "/nonexistent.json: no such file"),
    (["report", "nowhere.py:k", "--json"], 2, "nowhere.py: no such file"),
    (["check", GSUMIF, "--args", "/nonexistent.json", "--json"], 2, "/nonexistent.json: no such file"),
    (["units", "eval", "nonesuch", "--width", "8", "--json"], 2, "unknown unit"),
    (["units", "area", "loa", "--width", "8", "--target", "ecp5", "--cache-dir", "/proc/x", "--json"], 2,
     "/proc/x"),
    (["units", "lut", "drum", "--format", "adapt", "-o", "/tmp/x.h", "--json"], 2, "adapt tables take signed"),
])
def test_a_failing_json_command_still_prints_one_json_object(argv, status, message, capsys):
    assert main(argv) == status
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert set(result) == {"error", "status"} and result["status"] == status
    assert message in result["error"]
    assert captured.err.count("\n") == 1 and message in captured.err


def test_check_with_an_index_out_of_range_prints_json(tmp_path, capsys):
    arguments = tmp_path / "args.json"
    arguments.write_text(json.dumps({"a": [0] * 64, "n": 127}))
    source = tmp_path / "oob.py"
    source.write_text("import hls\nfrom amaranth import unsigned\n\n@hls.kernel\n"
                      "def oob(a: hls.Array[unsigned(8), 64], n: unsigned(7)) -> unsigned(8):\n"
                      "    s: unsigned(8) = 0\n    for i in range(n + 1):\n        s = s + a[i]\n    return s\n")
    assert main(["check", f"{source}:oob", "--args", str(arguments), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == 1 and "out of range" in result["error"]


def _compile_under_seed(seed: str, directory: Path) -> dict[str, bytes]:
    environment = {**os.environ, "PYTHONHASHSEED": seed}
    subprocess.run([sys.executable, "-m", "axhls", "compile", f"{ROOT / 'benchmarks' / 'kernels' / 'bipartite_matching.py'}:bipartite_matching",
                    "-o", str(directory)], check=True, capture_output=True, env=environment, cwd=ROOT)
    outputs = {}
    for path in sorted(directory.iterdir()):
        data = path.read_bytes()
        if path.name.endswith(".report.json"):
            report = json.loads(data)
            report.pop("compile_seconds", None)         # a measured duration, the one thing that may differ
            data = json.dumps(report, sort_keys=True).encode()
        outputs[path.name] = data
    return outputs


def test_compile_outputs_are_byte_identical_across_hash_seeds(tmp_path):
    first = _compile_under_seed("0", tmp_path / "a")
    second = _compile_under_seed("4242", tmp_path / "b")
    assert sorted(first) == sorted(second) and len(first) == 5
    for name in first:
        assert first[name] == second[name], name


#: A command that stops while building hardware: an Amaranth module nothing will elaborate.
ABANDONED = """
import argparse, gc, sys
import axhls.cli as cli
from axhls.command import CommandError
from amaranth.hdl import Fragment, Module

Fragment.get(Module(), None)             # the command has elaborated: Amaranth now warns

def handler(args):
    abandoned = Module()
    raise {error}

parser = argparse.ArgumentParser()
parser.set_defaults(handler=handler, json=False)
cli.build_parser = lambda: parser
status = cli.main([])
gc.collect()                             # a module refers to itself: the cycle collector warns
sys.exit(status)
"""


@pytest.mark.parametrize("error, status, line", [
    ("KeyboardInterrupt", 130, "axhls: interrupted"),
    ("CommandError('no such kernel')", 2, "axhls: no such kernel"),
])
def test_a_command_stopped_while_building_hardware_ends_in_one_line(error, status, line):
    result = subprocess.run([sys.executable, "-c", ABANDONED.format(error=error)], capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
                            timeout=120)
    assert (result.returncode, result.stderr) == (status, line + "\n")
