"""``axhls report|sim|compile|check FILE.py:CHAIN`` for an ``@hls.dataflow`` chain (issue 22)."""

import json
import os

from axhls.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHAIN = os.path.join(ROOT, "examples", "streams.py") + ":detector"
ARGS = os.path.join(ROOT, "examples", "streams_args.json")


def test_report_of_a_chain_in_text_and_json(capsys):
    assert main(["report", CHAIN, "--tokens", "200"]) == 0
    text = capsys.readouterr().out
    assert "dataflow detector: 3 stages run at once, 2 FIFO(s)" in text
    assert "FIFO smoothed (line " in text and "over 200 iterations of the source stages" in text
    assert main(["report", CHAIN, "--json", "--tokens", "200"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [stage["name"] for stage in data["stages"]] == ["moving_sum", "magnitude", "threshold_runs"]
    assert [fifo["depth"] for fifo in data["fifos"]] == [2, 2]
    figures = data["figures"]
    assert data["tokens"] == 200 and figures["cycles"] <= figures["bound"] and figures["within_bound"]
    assert figures["first_token_in"] < figures["first_token_out"] < figures["cycles"]


def test_sim_and_check_of_a_chain(capsys):
    assert main(["sim", CHAIN, "--args", ARGS, "--stall-probability", "0.3", "--stall-seed", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["match"] and result["outputs"]["streams"]["o"] == result["expected"]["streams"]["o"]
    assert main(["check", CHAIN, "--args", ARGS, "--json"]) == 0
    checked = json.loads(capsys.readouterr().out)
    assert checked["ok"] and checked["outputs"]["streams"]["o"] == result["expected"]["streams"]["o"]


def test_compile_of_a_chain_writes_its_verilog_report_and_ports(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["compile", CHAIN, "-o", str(out)]) == 0
    assert sorted(os.listdir(out)) == sorted(f"detector.{suffix}" for suffix in
                                             ("v", "report.json", "report.txt", "ports.json", "ports.txt"))
    assert "module detector(" in (out / "detector.v").read_text()
    assert json.loads((out / "detector.report.json").read_text())["chain"] == "detector"
    ports = {port["name"] for port in json.loads((out / "detector.ports.json").read_text())}
    assert {"s__payload", "s__valid", "s__ready", "o__payload", "n", "ctrl__start"} <= ports
