"""Kernels for the tests of the delay model's routing between carry chains (test_delay_model.py)."""

import hls
from amaranth import signed, unsigned


@hls.kernel
def carry_chains(a: hls.Array[signed(12), 16], b: hls.Array[signed(12), 16], d_out: hls.Array[signed(13), 16],
                 g_out: hls.Array[unsigned(14), 16], s_out: hls.Array[signed(14), 16], n: unsigned(5)):
    for i in range(n):
        x = a[i]
        y = b[i]
        d: signed(13) = x - y          # stored too: a carry chain of its own
        d_out[i] = d
        g: unsigned(14) = abs(d + x)   # the sum enters from d's chain, abs from the sum's
        g_out[i] = g
        s_out[i] = x + y + 3           # one multi-operand adder: x + y has no other user


@hls.kernel
def sum_then_min(a: hls.Array[signed(16), 16], b: hls.Array[signed(16), 16], c: hls.Array[signed(16), 16],
                 m_out: hls.Array[signed(16), 16], f_out: hls.Array[unsigned(1), 16], n: unsigned(5)):
    for i in range(n):
        s: signed(16) = a[i] + b[i]
        m_out[i] = min(s, c[i])        # a min entered from the sum's chain
        f_out[i] = s < c[i]            # a comparison entered from the same chain
