"""The host link under Icarus: the same host code (``hls.board.connect``) drives the Verilog of the
kernel's board top (kernel, block RAMs, link controller, UART) under cocotb and Icarus, byte by byte,
through ``SimulatedPort(kernel, backend="icarus")``.

Checked against the kernel's Python run, ``sim.run``'s cycle count, and the Amaranth-simulated port
(the same top must take the same simulated time for the same conversation).
"""

import copy
import json
from pathlib import Path

import pytest

import hls.board
from axhls.cli import main
from hls.board.host import BoardError, CrcError
from sim.board_link import SimulatedPort
from sim.errors import CocotbRunError, ToolUnavailable
from sim.kernel import expected_outputs, run
from sim.tools import find_simulator

from examples.gsumif import gsumif

pytestmark = pytest.mark.cocotb

ARGS = json.loads((Path(__file__).parents[2] / "examples" / "gsumif_args.json").read_text())


@pytest.fixture(scope="module")
def icarus():
    """Skip, with the tool's own one-line message, without Icarus Verilog."""
    try:
        find_simulator("icarus")
    except ToolUnavailable as error:
        pytest.skip(str(error))


@pytest.fixture(scope="module")
def icarus_port(icarus):
    with SimulatedPort(gsumif, backend="icarus") as port:
        yield port


def _call(link):
    outcome = link(**copy.deepcopy(ARGS))
    assert outcome.result == expected_outputs(gsumif, ARGS)["return"]
    return outcome


def test_gsumif_under_icarus_equals_python_and_sim_run(icarus_port):
    start = icarus_port.cycles
    link = hls.board.connect(icarus_port, gsumif)
    outcome = _call(link)
    assert outcome.cycles == run(gsumif, ARGS).cycles
    # The same handshake and call in Amaranth's simulator take the same simulated cycles.
    amaranth_port = SimulatedPort(gsumif)
    _call(hls.board.connect(amaranth_port, gsumif))
    assert icarus_port.cycles - start == amaranth_port.cycles


def test_corrupted_frames_under_icarus_are_one_line_and_the_next_call_works(icarus_port):
    link = hls.board.connect(icarus_port, gsumif)
    # A request with a payload bit flipped on its way to the board: the board refuses it.
    write = icarus_port.write
    flipped = []

    def corrupt_first(data):
        if not flipped:
            flipped.append(data)
            data = bytearray(data)
            data[6] ^= 0x01
        return write(bytes(data))

    icarus_port.write = corrupt_first
    try:
        with pytest.raises(BoardError) as caught:
            link(**copy.deepcopy(ARGS))
    finally:
        del icarus_port.write
    assert "\n" not in str(caught.value) and "BAD_CRC" in str(caught.value)
    _call(link)
    # A reply's command byte corrupted on its way to the host: the host's CRC check.
    first = icarus_port._received
    icarus_port.tamper = lambda index, byte: byte ^ 0x10 if index == first + 1 else byte
    try:
        with pytest.raises(CrcError) as caught:
            link(**copy.deepcopy(ARGS))
    finally:
        icarus_port.tamper = None
    assert "\n" not in str(caught.value)
    assert _call(link).cycles == run(gsumif, ARGS).cycles


def test_axhls_run_with_the_icarus_backend_matches_sim(icarus, capsys):
    root = Path(__file__).parents[2]
    kernel, args = f"{root / 'examples' / 'gsumif.py'}:gsumif", str(root / "examples" / "gsumif_args.json")
    assert main(["run", kernel, "--port", "sim", "--backend", "icarus", "--args", args, "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert board["return"] == expected_outputs(gsumif, ARGS)["return"]
    assert board["cycles"] == run(gsumif, ARGS).cycles


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend must be one of amaranth, icarus, not 'iverilog'"):
        SimulatedPort(gsumif, backend="iverilog")


def test_a_closed_icarus_port_is_one_line(icarus):
    port = SimulatedPort(gsumif, backend="icarus")
    port.close()
    port.close()                                   # twice: nothing more to do
    with pytest.raises(CocotbRunError, match="^the icarus simulation of the board has been closed$"):
        port.read(1)
