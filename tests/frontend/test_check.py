"""``axhls check``: the overflow checker, in-process and once as a subprocess."""

import argparse
import json
import os
import subprocess
import sys

import pytest

from axhls import check
from axhls.command import CommandError

KERNELS = '''\
import hls
from amaranth import signed, unsigned


@hls.kernel
def acc(a: hls.Array[signed(8), 8], n: unsigned(4)) -> signed(8):
    s: signed(8) = 0
    peak: unsigned(4) = 0
    for i in range(n):
        s = s + a[i]
        a[i] = a[i] * 2
        peak = peak + 1
    return s


@hls.kernel
def index(a: hls.Array[signed(8), 8], i: signed(5)) -> signed(8):
    return a[i]


@hls.kernel
def bad(x: unsigned(4)):
    y = x / 2
'''


@pytest.fixture
def kernel_file(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS)
    return str(path)


def _args(tmp_path, data, name="args.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def _run(argv):
    """``axhls check`` through its own ``register``, as axhls.cli does, catching CommandError
    the way axhls.cli.main does."""
    parser = argparse.ArgumentParser(prog="axhls")
    check.register(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.handler(args)


def _expected_overflows(a, n):
    """Where s (signed(8)) and a[i] * 2 first leave their ranges, by plain Python."""
    s, first_s, count_s, first_a, count_a = 0, None, 0, None, 0
    for value in a[:n]:
        exact = s + value
        if not -128 <= exact <= 127:
            count_s += 1
            first_s = exact if first_s is None else first_s
        s = (exact + 128) % 256 - 128
        if not -128 <= value * 2 <= 127:
            count_a += 1
            first_a = value * 2 if first_a is None else first_a
    return (first_s, count_s), (first_a, count_a)


def test_reports_each_overflowing_site_once_with_count_and_first_value(kernel_file, tmp_path, capsys):
    a = [100, 50, -20, 90, 1, -128, -128, 3]
    status = _run(["check", f"{kernel_file}:acc", "--args", _args(tmp_path, {"a": a, "n": 8})])
    assert status == 1
    lines = capsys.readouterr().out.splitlines()
    (first_s, count_s), (first_a, count_a) = _expected_overflows(a, 8)
    assert lines[0] == (f"{kernel_file}:10: s = {first_s} does not fit signed(8) (-128..127); "
                        f"wrapped {count_s} times")
    assert lines[1] == (f"{kernel_file}:11: a[{a.index(first_a // 2)}] = {first_a} does not fit signed(8) (-128..127); "
                        f"wrapped {count_a} times")
    assert lines[2].startswith("acc: 2 sites wrapped a value")
    assert len(lines) == 3


def test_json_output(kernel_file, tmp_path, capsys):
    a = [100, 50, 0, 0, 0, 0, 0, 0]
    status = _run(["check", f"{kernel_file}:acc", "--args", _args(tmp_path, {"a": a, "n": 2}), "--json"])
    assert status == 1
    report = json.loads(capsys.readouterr().out)
    assert report["kernel"] == "acc" and report["ok"] is False
    assert report["overflows"][0] == {
        "file": kernel_file, "line": 10, "col": 9, "variable": "s", "shape": "signed(8)",
        "width": 8, "signed": True, "min": -128, "max": 127, "count": 1, "first_value": 150,
        "first_index": None}
    assert report["overflows"][1]["first_index"] == 0
    assert [o["variable"] for o in report["overflows"]] == ["s", "a[...]"]
    assert report["outputs"] == {"return": 150 - 256, "arrays": {"a": [200 - 256, 100, 0, 0, 0, 0, 0, 0]}}


def test_no_overflow_exits_zero(kernel_file, tmp_path, capsys):
    status = _run(["check", f"{kernel_file}:acc", "--args", _args(tmp_path, {"a": [1] * 8, "n": 8})])
    assert status == 0
    assert capsys.readouterr().out == "acc: no overflow, every assigned value fits its declared width\n"


@pytest.mark.parametrize("spec,args,message", [
    ("missing.py:acc", {"a": [0] * 8, "n": 1}, "missing.py: no such file"),
    ("{file}:nothing", {"a": [0] * 8, "n": 1}, "no kernel named 'nothing' (kernels in this file: acc, bad, index)"),
    ("{file}", {"a": [0] * 8, "n": 1}, "expected FILE.py:KERNEL"),
    ("{file}:acc", '{"a": [0, 1', "bad JSON"),
    ("{file}:acc", [1, 2], "expected a JSON object mapping parameter names to values"),
    ("{file}:acc", {"a": [0] * 8}, "acc() is missing argument(s): n"),
    ("{file}:acc", {"a": [0] * 8, "n": 1, "m": 2}, "acc() has no parameter 'm'"),
    ("{file}:acc", {"a": [0] * 8, "n": 16}, "argument n = 16 does not fit unsigned(4) (0..15)"),
    ("{file}:acc", {"a": [0] * 7, "n": 1}, "array argument 'a' has 7 elements"),
    ("{file}:acc", {"a": [0] * 7 + [300], "n": 1}, "a[7] = 300 does not fit signed(8) (-128..127)"),
    ("{file}:acc", {"a": 5, "n": 1}, "array argument 'a' must be a list or a numpy array, not int"),
    ("{file}:bad", {"x": 1}, "/ is true division"),
])
def test_user_mistakes_are_one_line_with_status_2(kernel_file, tmp_path, spec, args, message):
    with pytest.raises(CommandError) as caught:
        _run(["check", spec.format(file=kernel_file), "--args", _args(tmp_path, args)])
    assert caught.value.status == 2
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_missing_args_file(kernel_file, tmp_path):
    with pytest.raises(CommandError, match="nope.json: no such file") as caught:
        _run(["check", f"{kernel_file}:acc", "--args", str(tmp_path / "nope.json")])
    assert caught.value.status == 2


def test_index_out_of_range_fails_the_check(kernel_file, tmp_path):
    with pytest.raises(CommandError) as caught:
        _run(["check", f"{kernel_file}:index", "--args", _args(tmp_path, {"a": [0] * 8, "i": -1})])
    assert caught.value.status == 1
    assert str(caught.value) == f"{kernel_file}:18: index -1 out of range for a[8]"


def test_through_the_axhls_dispatcher(kernel_file, tmp_path, capsys):
    from axhls.cli import main
    arguments = _args(tmp_path, {"a": [0] * 8, "n": 16})
    assert main(["check", f"{kernel_file}:acc", "--args", arguments]) == 2
    assert capsys.readouterr().err == f"axhls: {arguments}: argument n = 16 does not fit unsigned(4) (0..15)\n"
    assert main(["check", f"{kernel_file}:acc", "--args", _args(tmp_path, {"a": [100] * 8, "n": 2}, "b.json")]) == 1


def test_subprocess(kernel_file, tmp_path):
    arguments = _args(tmp_path, {"a": [100] * 8, "n": 2})
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    completed = subprocess.run(
        [sys.executable, "-c", "import sys; from axhls.cli import main; sys.exit(main())",
         "check", f"{kernel_file}:acc", "--args", arguments, "--json"],
        capture_output=True, text=True, cwd=root, timeout=120)
    assert completed.returncode == 1, completed.stderr
    report = json.loads(completed.stdout)
    assert report["overflows"][0]["first_value"] == 200
    assert completed.stderr == ""
