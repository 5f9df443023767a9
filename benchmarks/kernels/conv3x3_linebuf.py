"""3x3 convolution of a 16x16 image into a 14x14 result, streamed one pixel per cycle.

The image is read once, in raster order. Two line buffers (``hls.local``
memories) hold the two rows above the current pixel, and the 3x3 window and
the coefficients are registers (``hls.local`` completely partitioned), so the
nine taps of a pixel need no memory ports and the loop runs at II = 1. The
loop over pixels carries its own row and column counters (one loop, not a
nest), and a result is stored once the window is full.
"""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

W = 16        # image width and height
PIXELS = W * W
OUT = W - 2   # result width and height


@hls.kernel
def conv3x3_linebuf(img: hls.Array[unsigned(8), PIXELS], k: hls.Array[signed(8), 9, hls.partition("complete")],
                    out: hls.Array[signed(20), OUT * OUT]):
    above2 = hls.local(unsigned(8), W)        # row y - 2 at each column
    above1 = hls.local(unsigned(8), W)        # row y - 1
    win = hls.local(unsigned(8), 9, partition=hls.partition("complete"))
    coef = hls.local(signed(8), 9, partition=hls.partition("complete"))
    for t in hls.unroll(range(9)):
        coef[t] = k[t]
    x: unsigned(4) = 0
    y: unsigned(5) = 0
    o: unsigned(8) = 0
    for p in range(PIXELS):
        pixel = img[p]
        top = above2[x]
        middle = above1[x]
        above2[x] = middle
        above1[x] = pixel
        for r in hls.unroll(range(3)):       # the window moves one column right
            win[3 * r] = win[3 * r + 1]
            win[3 * r + 1] = win[3 * r + 2]
        win[2] = top
        win[5] = middle
        win[8] = pixel
        if x >= 2 and y >= 2:
            s: signed(20) = 0
            for t in hls.unroll(range(9)):
                s = s + win[t] * coef[t]
            out[o] = s
            o = o + 1
        if x == W - 1:
            x = 0
            y = y + 1
        else:
            x = x + 1


EXAMPLES = [
    {"img": values(61, W * W, 0, 255), "k": values(62, 9, -128, 127), "out": [0] * (OUT * OUT)},
    {"img": values(63, W * W, 0, 255), "k": [0, -1, 0, -1, 4, -1, 0, -1, 0], "out": [0] * (OUT * OUT)},
    {"img": [255] * (W * W), "k": [-128] * 9, "out": [0] * (OUT * OUT)},     # most negative
    {"img": [255] * (W * W), "k": [127] * 9, "out": [0] * (OUT * OUT)},      # largest
    {"img": list(range(W * W)), "k": [0, 0, 0, 0, 1, 0, 0, 0, 0], "out": [5] * (OUT * OUT)},
]


def reference(img, k):
    """The convolution written directly, for tests: out[y][x] = sum k[3r+c] * img[y+r][x+c]."""
    return [sum(k[3 * r + c] * img[(y + r) * W + x + c] for r in range(3) for c in range(3))
            for y in range(OUT) for x in range(OUT)]
