"""``axhls run``: through the simulated board (``--port sim``), and through a real serial port
(a pseudo-terminal opened with pyserial) with a silent board and with another kernel's board."""

import json
import os
import pty
import select
import threading
import tty
from pathlib import Path

import pytest

from axhls.cli import main
from sim.board_link import SimulatedPort

import board_kernels

ROOT = Path(__file__).parents[2]
GSUMIF = str(ROOT / "examples" / "gsumif.py") + ":gsumif"
GSUMIF_ARGS = str(ROOT / "examples" / "gsumif_args.json")


def _one_line(capsys):
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    return lines[0]


def test_run_on_the_simulated_board_matches_sim(capsys):
    assert main(["run", GSUMIF, "--port", "sim", "--args", GSUMIF_ARGS, "--json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert main(["sim", GSUMIF, "--args", GSUMIF_ARGS, "--json"]) == 0
    simulated = json.loads(capsys.readouterr().out)
    assert board["return"] == simulated["expected"]["return"]
    assert board["arrays"] == simulated["expected"]["arrays"]
    assert board["cycles"] == simulated["cycles"]
    assert board["kernel"] == "gsumif" and board["port"] == "sim"


@pytest.fixture
def pseudo_terminal():
    """``(device name, master fd)`` of a raw pseudo-terminal, closed afterwards."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    yield os.ttyname(slave), master
    os.close(slave)
    os.close(master)


def test_run_with_a_silent_board_is_one_line(pseudo_terminal, capsys):
    device, _ = pseudo_terminal
    assert main(["run", GSUMIF, "--port", device, "--args", GSUMIF_ARGS]) == 2
    line = _one_line(capsys)
    assert line == f"axhls: {device}: no reply from the board within 1 s (reply to HELLO: 0 of 1 bytes)"


def _serve(master, port, stop):
    """Bridge the pseudo-terminal to a simulated board until ``stop`` is set."""
    while not stop.is_set():
        ready, _, _ = select.select([master], [], [], 0.02)
        if not ready:
            continue
        try:
            port.write(os.read(master, 4096))
        except OSError:
            return
        # The reply frame, read as the host reads it: sync, header, payload and CRC.
        head = port.read(5)
        os.write(master, head + port.read(int.from_bytes(head[3:5], "little") + 2 if len(head) == 5 else 0))


def test_run_against_another_kernels_board_is_one_line(pseudo_terminal, capsys):
    device, master = pseudo_terminal
    port = SimulatedPort(board_kernels.spin)
    stop = threading.Event()
    server = threading.Thread(target=_serve, args=(master, port, stop), daemon=True)
    server.start()
    try:
        assert main(["run", GSUMIF, "--port", device, "--args", GSUMIF_ARGS]) == 2
    finally:
        stop.set()
        server.join(timeout=5)
    line = _one_line(capsys)
    assert line.startswith(f"axhls: {device}: the board's bitstream is not kernel gsumif: its signature is "
                           f"0x{port.top.signature_word:08x}")
