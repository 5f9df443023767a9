"""The host link without a board: the host code of ``hls.board`` drives the kernel's top
(``KernelTop``: kernel, block RAMs, link controller, UART) in Amaranth's simulator through
``sim.board_link.SimulatedPort``, bit by bit.

Each result is checked against the kernel's Python run, and the cycles the board counts
against ``sim.run``'s count of the bare kernel.
"""

import copy

import pytest

import hls.board
from hls.board.host import BoardError, CrcError, LinkTimeout, SignatureMismatch
from hls.board.protocol import Command, Status
from sim.board_link import SimulatedPort
from sim.kernel import expected_outputs, run

import board_kernels
from benchmarks.kernels import KERNEL_NAMES, load


def _check(link, kernel, args, *, cycles=True):
    """One call through the link equals the Python run, and its cycles equal ``sim.run``'s
    (unless ``cycles`` is false)."""
    given = copy.deepcopy(args)
    outcome = link(**given)
    expected = expected_outputs(kernel, args)
    result = list(outcome.result) if isinstance(outcome.result, tuple) else outcome.result
    assert result == expected["return"]
    assert outcome.arrays == expected["arrays"]
    for name, values in expected["arrays"].items():
        assert given[name] == values            # updated in place, as the Python call does
    if cycles:
        assert outcome.cycles == run(kernel, args).cycles


@pytest.fixture(scope="module")
def spin_link():
    port = SimulatedPort(board_kernels.spin)
    return port, hls.board.connect(port, board_kernels.spin)


@pytest.mark.parametrize("kernel, calls", [
    (board_kernels.scale, [{"a": [100, -200, 3, 4, 5, 6], "gain": -3, "n": 4},
                           {"a": [-2048, 2047, 0, 1, -1, 7], "gain": 1, "n": 6}]),
    (board_kernels.banks, [{"a": [9, 200, 3, 4, 255, 0, 17, 18], "k": 255}]),
])
def test_small_kernels_through_the_link(kernel, calls):
    port = SimulatedPort(kernel)
    link = hls.board.connect(port, kernel)
    for args in calls:
        _check(link, kernel, args)


@pytest.mark.parametrize("name", ["gsumif", "histogram"])
def test_benchmark_kernels_through_the_link(name):
    """Two benchmark kernels (scalars and a result; an array written back); all of them in the
    slow test below."""
    kernel, examples = load(name)
    link = hls.board.connect(SimulatedPort(kernel), kernel)
    _check(link, kernel, examples[0])


@pytest.mark.slow
@pytest.mark.parametrize("name", KERNEL_NAMES)
def test_every_benchmark_kernel_through_the_link(name):
    kernel, examples = load(name)
    link = hls.board.connect(SimulatedPort(kernel), kernel)
    for args in examples[:2]:
        _check(link, kernel, args)


def test_wrong_signature_is_refused_in_the_handshake():
    port = SimulatedPort(board_kernels.spin)
    with pytest.raises(SignatureMismatch) as caught:
        hls.board.connect(port, board_kernels.spin_twin)       # the same interface, another kernel
    message = str(caught.value)
    assert "\n" not in message
    assert "not kernel spin_twin" in message and f"0x{port.top.signature_word:08x}" in message


class _Faults:
    """Wraps a port: the next request written loses bytes or has a bit flipped."""

    def __init__(self, port):
        self.port = port
        self.next_write = None

    def write(self, data):
        if self.next_write is not None:
            data, self.next_write = self.next_write(bytes(data)), None
        return self.port.write(data)

    def __getattr__(self, name):
        return getattr(self.port, name)


def _flip(position, mask=0x01):
    def fault(frame):
        frame = bytearray(frame)
        frame[position % len(frame)] ^= mask
        return bytes(frame)
    return fault


def test_corrupted_frames_are_one_line_errors_and_the_board_recovers():
    kernel = board_kernels.spin
    port = SimulatedPort(kernel)
    faulty = _Faults(port)
    link = hls.board.connect(faulty, kernel)
    args = {"a": [1, 2, 3, 4], "n": 9}
    cases = [
        (_flip(6), BoardError, "BAD_CRC"),                        # a payload bit of the first WRITE_ARRAY
        (lambda frame: frame[:-3], BoardError, "TIMEOUT"),        # truncated: the board's stall timeout
        (_flip(0, 0xFF), LinkTimeout, "no reply"),                # the sync byte: the board never sees a frame
        (_flip(1, 0x40), BoardError, "BAD_CRC"),                  # WRITE_ARRAY (0x02) becomes 0x42
    ]
    for fault, kind, words in cases:
        faulty.next_write = fault
        with pytest.raises(kind) as caught:
            link(**args)
        assert "\n" not in str(caught.value) and words in str(caught.value)
        _check(link, kernel, args, cycles=False)                   # the next call works

    # Replies corrupted on their way to the host: the command byte, then the length.
    for offset, kind in [(1, CrcError), (3, LinkTimeout)]:
        first = port._received
        port.tamper = lambda index, byte: byte ^ 0x10 if index == first + offset else byte
        with pytest.raises(kind) as caught:
            link(**args)
        assert "\n" not in str(caught.value)
        port.tamper = None
        _check(link, kernel, args, cycles=False)


def test_board_refuses_bad_requests(spin_link):
    port, link = spin_link
    refusals = [
        (0x7E, b"", Status.UNKNOWN_COMMAND),
        (Command.START, b"\x00", Status.BAD_LENGTH),
        (Command.WRITE_SCALARS, b"\x00", Status.BAD_LENGTH),             # n takes two bytes
        (Command.READ_ARRAY, bytes([1, 0, 0, 1, 0]), Status.BAD_RANGE),   # no memory 1
        (Command.READ_ARRAY, bytes([0, 3, 0, 2, 0]), Status.BAD_RANGE),   # elements 3 and 4 of 4
        (Command.WRITE_ARRAY, bytes([0, 0, 0, 2, 0, 7]), Status.BAD_LENGTH),  # one element of two
    ]
    for command, payload, status in refusals:
        with pytest.raises(BoardError) as caught:
            link.transact(command, payload)
        assert caught.value.status == status
    _check(link, board_kernels.spin, {"a": [7, 0, 255, 1], "n": 5})     # the link is back in step


def test_arrays_are_out_of_reach_while_the_kernel_runs(spin_link):
    port, link = spin_link
    shape = board_kernels.spin.params[0].shape
    link.write_memory(0, 0, [5, 6, 7, 8], shape)
    link.transact(Command.WRITE_SCALARS, (4000).to_bytes(2, "little"))
    link.transact(Command.START)
    running, done, _ = link.status()
    assert running and not done
    for command, payload in [(Command.WRITE_ARRAY, bytes([0, 0, 0, 1, 0, 99])),
                             (Command.READ_ARRAY, bytes([0, 0, 0, 1, 0])), (Command.START, b""),
                             (Command.READ_RESULTS, b"")]:
        with pytest.raises(BoardError) as caught:
            link.transact(command, payload)
        assert caught.value.status == Status.BUSY
    while not link.status()[1]:
        pass
    assert link.read_memory(0, 0, 4, shape) == [5, 6, 7, 8]     # the refused write did not land
    raw = link.transact(Command.READ_RESULTS)
    assert int.from_bytes(raw, "little") == board_kernels.spin(a=[5, 6, 7, 8], n=4000)


@pytest.mark.slow
def test_an_application_chain_through_the_link():
    """The tracking application's kernels, each called on its own simulated board, one after the
    other as the application calls them: the same estimates as the Python chain (some 800k simulated
    cycles: three minutes of one core)."""
    import numpy as np
    from examples.apps import tracking

    def on_board(kernel):
        link = hls.board.connect(SimulatedPort(kernel), kernel)
        return lambda **args: link(**args).result

    data = tracking.reduced_input()
    expected = tracking.run(tracking.KERNELS, data)
    got = tracking.run(tuple(on_board(kernel) for kernel in tracking.KERNELS), data)
    assert np.array_equal(got, expected)
