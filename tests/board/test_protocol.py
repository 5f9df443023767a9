"""The protocol's pure-Python half, and the parameters of the UART and the top."""

import json

import pytest
from amaranth import signed, unsigned

from hls.board.protocol import (Command, crc16, decode_value, encode_value, kernel_signature_word, memory_map,
                                reply, request)
from hls.board.top import KernelTop
from hls.board.uart import clocks_per_bit
from hls.compiler import compile_kernel

import board_kernels


def test_crc_is_ccitt_false_and_a_frame_checks_to_zero():
    assert crc16(b"123456789") == 0x29B1
    frame = request(Command.WRITE_ARRAY, bytes([0, 1, 0, 2, 0, 0xAA, 0x55]))
    assert frame[0] == 0xA5 and frame[1] == Command.WRITE_ARRAY and frame[2:4] == b"\x07\x00"
    assert crc16(frame[1:]) == 0
    assert crc16(reply(Command.HELLO, 0, b"\x01abcd")[1:]) == 0


def test_values_round_trip_in_whole_bytes():
    for shape, value, raw in [(signed(12), -5, b"\xfb\xff"), (unsigned(9), 300, b"\x2c\x01"),
                              (signed(40), -(1 << 39), b"\x00\x00\x00\x00\x80"), (unsigned(1), 1, b"\x01")]:
        assert encode_value(value, shape) == raw
        assert decode_value(raw, shape) == value


def test_memory_map_and_signature_are_deterministic_and_tell_kernels_apart():
    spin, twin = compile_kernel(board_kernels.spin), compile_kernel(board_kernels.spin_twin)
    assert json.dumps(memory_map(spin)) == json.dumps(memory_map(compile_kernel(board_kernels.spin)))
    assert kernel_signature_word(spin) != kernel_signature_word(twin)
    banks = memory_map(compile_kernel(board_kernels.banks))
    assert [bank["id"] for bank in banks["arrays"][0]["banks"]] == [0, 1]
    assert banks["results"][1] == {"name": "ret_1", "width": 9, "signed": False, "bytes": 2, "offset": 1}


def test_clocks_per_bit_refuses_what_a_whole_divider_misses():
    assert clocks_per_bit(12e6, 115200) == 104
    assert clocks_per_bit(48e6, 3_000_000) == 16
    with pytest.raises(ValueError, match=r"baud 3000000 is too fast for a 10 MHz clock"):
        clocks_per_bit(10e6, 3_000_000)
    with pytest.raises(ValueError, match=r"5 clocks per bit give 2400000 baud, 4.0 % off"):
        clocks_per_bit(12e6, 2_500_000)


def test_top_parameters_are_checked():
    compiled = compile_kernel(board_kernels.spin)
    with pytest.raises(ValueError, match="clocks_per_bit must be at least 4, not 2"):
        KernelTop(compiled, clocks_per_bit=2)
    with pytest.raises(ValueError, match=r"timeout_cycles must be at least two byte times \(80 cycles"):
        KernelTop(compiled, clocks_per_bit=4, timeout_cycles=10)
