"""The user-facing examples run and print what their comments say."""

import os
import runpy
import sys


EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "examples")


def _run(name, monkeypatch, capsys, *argv):
    monkeypatch.setattr(sys, "argv", [name, *argv])
    runpy.run_path(os.path.join(EXAMPLES, name), run_name="__main__")
    return capsys.readouterr().out


def test_gsumif_example(monkeypatch, capsys):
    out = _run("gsumif.py", monkeypatch, capsys)
    assert "gsumif(n=4) = 44\n" in out
    assert "gsumif(n=0) = 0\n" in out
    ramp = sum(d * d if d >= 0 else -d for d in range(-32, 32))
    assert f"gsumif(ramp) = {ramp}\n" in out


def test_saturate_example(monkeypatch, capsys):
    out = _run("saturate.py", monkeypatch, capsys)
    assert "clamp(5000, -1000, 1000) = 1000\n" in out
    clipped = [min(max(v, -1000), 1000) for v in [500, 3000, -2500, 20, 999, 1001]]
    assert f"total = {sum(clipped)}, clipped = 3, a = {clipped}\n" in out


def test_gsumif_args_overflow(capsys):
    from axhls.check import register
    import argparse
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["check", os.path.join(EXAMPLES, "gsumif.py") + ":gsumif",
                              "--args", os.path.join(EXAMPLES, "gsumif_args.json")])
    assert args.handler(args) == 1
    assert f"s = {3 * 32767 ** 2} does not fit signed(32)" in capsys.readouterr().out


def test_streams_example(monkeypatch, capsys):
    out = _run("streams.py", monkeypatch, capsys)
    assert "moving_sum: hardware matches Python: True;" in out
    assert "threshold_runs: hardware matches Python: True;" in out
    assert "the chain's hardware matches Python: True" in out
    assert "through Amaranth FIFOs: True\n" in out
