"""``axhls compile``, ``axhls report`` and ``axhls sim``: outputs, JSON contracts, exit statuses."""

import json
import os
import subprocess
import sys

import pytest

from benchmarks.kernels import load, path
from axhls.cli import main

GSUMIF = f"{path('gsumif')}:gsumif"


@pytest.fixture
def args_file(tmp_path):
    def write(data):
        file = tmp_path / "args.json"
        file.write_text(json.dumps(data))
        return str(file)
    return write


def _example():
    _, examples = load("gsumif")
    return examples[0]


def test_compile_writes_every_output(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compile", GSUMIF, "-o", str(out)]) == 0
    names = sorted(os.listdir(out))
    assert names == sorted(["gsumif.v", "gsumif.report.json", "gsumif.report.txt",
                            "gsumif.ports.json", "gsumif.ports.txt"])
    assert "module gsumif(" in (out / "gsumif.v").read_text()
    report = json.loads((out / "gsumif.report.json").read_text())
    assert report["kernel"] == "gsumif" and report["loops"][0]["ii"] == 1
    ports = {p["name"]: p for p in json.loads((out / "gsumif.ports.json").read_text())}
    assert ports["ctrl__start"]["direction"] == "input"
    assert ports["ret"] == {"name": "ret", "direction": "output", "width": 32, "signed": True}
    assert ports["a_read__data"]["direction"] == "input"


def test_compile_into_a_file_path_is_a_user_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["compile", GSUMIF, "-o", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a directory" in err


def test_report_json_is_exactly_one_object(capsys):
    assert main(["report", GSUMIF, "--json"]) == 0
    out = capsys.readouterr().out
    report = json.loads(out)
    assert set(report) >= {"kernel", "clock_mhz", "loops", "resources"}
    (loop,) = report["loops"]
    assert set(loop) >= {"name", "line", "pipelined", "ii", "mii", "res_mii", "rec_mii", "depth", "trip_count",
                         "bound"}
    assert set(loop["bound"]) == {"kind", "lines", "detail"}
    assert loop["trip_count"] is None and loop["bound"]["kind"] == "recurrence"


def test_report_text_quotes_the_bounding_lines(capsys):
    assert main(["report", GSUMIF]) == 0
    out = capsys.readouterr().out
    assert "II = 1" in out and "s = s + d * d" in out


def test_sim_json_contract(args_file, capsys, tmp_path):
    vcd = tmp_path / "wave.vcd"
    assert main(["sim", GSUMIF, "--args", args_file(_example()), "--json", "--vcd", str(vcd)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"outputs", "expected", "match", "cycles", "backend"}
    assert result["match"] is True and result["backend"] == "amaranth"
    assert result["outputs"] == result["expected"]
    assert set(result["outputs"]) == {"return", "arrays"} and "a" in result["outputs"]["arrays"]
    waveform = vcd.read_text()
    assert "$timescale" in waveform and "var_s" in waveform     # registers named after the variables


def test_sim_mismatch_exits_one_and_names_the_output(args_file, capsys, monkeypatch):
    import sim.kernel
    monkeypatch.setattr(sim.kernel, "expected_outputs",
                        lambda kernel, args, **options: {"return": -1, "arrays": {"a": list(args["a"])}})
    assert main(["sim", GSUMIF, "--args", args_file(_example())]) == 1
    err = capsys.readouterr().err
    assert "return: hardware" in err and "Python -1" in err


def test_sim_bad_arguments_are_user_errors(args_file, capsys):
    bad = dict(_example(), n=1000)
    assert main(["sim", GSUMIF, "--args", args_file(bad)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["sim", GSUMIF, "--args", "/nonexistent/args.json"]) == 2


def test_kernel_outside_the_language_is_one_line_exit_two(tmp_path):
    source = tmp_path / "bad.py"
    source.write_text("import hls\nfrom amaranth import unsigned\n\n@hls.kernel\n"
                      "def bad(n: unsigned(8)) -> unsigned(8):\n    x = 1.5\n    return n\n")
    axhls = os.path.join(os.path.dirname(sys.executable), "axhls")
    process = subprocess.run([axhls, "report", f"{source}:bad"], capture_output=True, text=True)
    assert process.returncode == 2
    assert process.stderr.count("\n") == 1 and "bad.py:6:" in process.stderr
    assert "Traceback" not in process.stderr


def test_unknown_backend_name_is_rejected_by_the_parser(args_file, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["sim", GSUMIF, "--args", args_file(_example()), "--backend", "modelsim"])
    assert exit_info.value.code == 2


def test_impossible_clock_is_a_one_line_error(tmp_path, capsys):
    source = tmp_path / "fast.py"
    source.write_text("import hls\nfrom amaranth import unsigned\n\n@hls.kernel(clock_mhz=800)\n"
                      "def fast(n: unsigned(8)) -> unsigned(8):\n    return n + 1\n")
    assert main(["report", f"{source}:fast"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "clock_mhz=800" in err and "fast.py:" in err


NARROW = '''
import hls
from amaranth import unsigned

@hls.kernel
def narrow(a: hls.Array[unsigned(8), 4], n: unsigned(3)) -> unsigned(8):
    count = 0
    for i in range(n):
        if a[i] > 3:
            count += 1
    return count
'''


@pytest.mark.parametrize("command", [["report"], ["compile", "-o", "OUT"], ["sim", "--args", "ARGS"]])
def test_a_kernel_warning_is_printed_once(tmp_path, command):
    source = tmp_path / "narrow.py"
    source.write_text(NARROW)
    arguments = tmp_path / "args.json"
    arguments.write_text('{"a": [1, 5, 6, 7], "n": 4}')
    argv = [str(tmp_path / "out") if word == "OUT" else str(arguments) if word == "ARGS" else word
            for word in command]
    completed = subprocess.run([sys.executable, "-m", "axhls", argv[0], f"{source}:narrow", *argv[1:]],
                               capture_output=True, text=True, cwd=tmp_path)
    assert completed.stderr.count("KernelWarning") == 1, completed.stderr
    assert "'count' is unsigned(1)" in completed.stderr
