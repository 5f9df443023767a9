"""Helpers, tuple results, pragmas and wrapping: a saturating, clipping accumulator.

``clamp`` is an ``@hls.function``: every call is inlined into the kernel, and it
can be called from Python too. ``hls.pipeline(..., ii=1)`` asks for one
iteration per cycle.

Run it::

    python examples/saturate.py
"""

import hls
from amaranth import signed, unsigned

LIMIT = 1000


@hls.function
def clamp(x: signed(20), low: signed(20), high: signed(20)) -> signed(20):
    return min(max(x, low), high)


@hls.kernel(clock_mhz=100)
def saturate(a: hls.Array[signed(16), 16], n: unsigned(5)) -> tuple[signed(20), unsigned(5)]:
    total: signed(20) = 0
    clipped: unsigned(5) = 0
    for i in hls.pipeline(range(n), ii=1):
        x = clamp(a[i], -LIMIT, LIMIT)
        if x != a[i]:
            clipped += 1
        a[i] = x                      # the caller sees the clipped values
        total = clamp(total + x, -4 * LIMIT, 4 * LIMIT)
    return total, clipped


def main():
    print("clamp(5000, -1000, 1000) =", clamp(5000, -1000, 1000))
    data = [500, 3000, -2500, 20, 999, 1001] + [0] * 10
    total, clipped = saturate(data, 6)
    print(f"total = {total}, clipped = {clipped}, a = {data[:6]}")


if __name__ == "__main__":
    main()
