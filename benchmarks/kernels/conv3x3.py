"""3x3 convolution of an 8x8 image into a 6x6 result (nested loops; the 3 taps of a
row are written out, so the image's single read port bounds the II at 3)."""

import hls
from amaranth import signed, unsigned

from _benchmark_inputs import values

W = 8        # image width and height
OUT = W - 2  # result width and height


@hls.kernel
def conv3x3(img: hls.Array[unsigned(8), 64], k: hls.Array[signed(8), 9],
            out: hls.Array[signed(20), 36]):
    for y in range(OUT):
        for x in range(OUT):
            s: signed(20) = 0
            for ky in range(3):
                row = (y + ky) * W + x
                s = s + img[row] * k[ky * 3] + img[row + 1] * k[ky * 3 + 1] \
                    + img[row + 2] * k[ky * 3 + 2]
            out[y * OUT + x] = s


EXAMPLES = [
    {"img": values(51, 64, 0, 255), "k": values(52, 9, -128, 127), "out": [0] * 36},
    {"img": values(53, 64, 0, 255), "k": [0, -1, 0, -1, 4, -1, 0, -1, 0], "out": [0] * 36},  # Laplacian
    {"img": [255] * 64, "k": [-128] * 9, "out": [0] * 36},                                  # most negative
    {"img": [255] * 64, "k": [127] * 9, "out": [0] * 36},                                   # largest
    {"img": list(range(64)), "k": [1, 0, 0, 0, 0, 0, 0, 0, 0], "out": [5] * 36},           # a shift
    {"img": [0] * 64, "k": values(54, 9, -128, 127), "out": [7] * 36},
]
