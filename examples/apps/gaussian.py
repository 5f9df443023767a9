"""A generic 3 x 3 Gaussian filter, as autoAx explored it (Mrazek et al., DAC 2019): 17 operations.

Each output pixel is ``sum(w_k * p_k) >> 8`` over the 3 x 3 window, clamped to 255:
nine multiplications of a pixel by a weight and eight additions in a balanced tree.
The weights are arguments (the filter is *generic*, as autoAx's: ``w0..w8``, Q0.8,
summing to 256), so the nine ``*`` are between variables, as are the eight ``+``:
``hls.explore`` sees 17 approximable operations (``kinds=("mul", "add")``).

The image is row-major, ``W`` pixels a row, swept by one flat index ``i`` so that
every address is ``i`` plus a constant (no ``+`` between variables outside the
filter).  The first and last rows and the pixels whose window wraps around a row
edge are computed like the others (they read the neighbouring row); the quality is
measured on the whole ``rows x W`` result against the exact filter.
"""

from __future__ import annotations

import math

import numpy as np
from amaranth import unsigned

import hls

from .image import camera

W = 64            #: image width (and the height of the full input)
N = W * W         #: array depth


@hls.kernel
def gaussian(img: hls.Array[unsigned(8), N], out: hls.Array[unsigned(8), N],
             w0: unsigned(8), w1: unsigned(8), w2: unsigned(8), w3: unsigned(8), w4: unsigned(8),
             w5: unsigned(8), w6: unsigned(8), w7: unsigned(8), w8: unsigned(8), rows: unsigned(7)):
    for i in range(W + 1, rows * W - W - 1):
        p0 = img[i - W - 1] * w0
        p1 = img[i - W] * w1
        p2 = img[i - W + 1] * w2
        p3 = img[i - 1] * w3
        p4 = img[i] * w4
        p5 = img[i + 1] * w5
        p6 = img[i + W - 1] * w6
        p7 = img[i + W] * w7
        p8 = img[i + W + 1] * w8
        s = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7)) + p8
        out[i] = min(s >> 8, 255)


KERNELS = (gaussian,)


def gaussian_weights(sigma: float = 1.0) -> list[int]:
    """``w0..w8``: the 3 x 3 Gaussian of ``sigma`` in Q0.8, row-major, rounded so that they sum to 256
    (the centre takes the rounding): 19, 32, 19 / 32, 52, 32 / 19, 32, 19 for sigma = 1."""
    taps = [math.exp(-(dx * dx + dy * dy) / (2.0 * sigma * sigma)) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
    weights = [round(256 * tap / sum(taps)) for tap in taps]
    weights[4] += 256 - sum(weights)
    return weights


def default_input() -> dict:
    """The 64 x 64 camera image and the weights for sigma = 1."""
    return {"image": camera(), "sigma": 1.0}


def reduced_input(rows: int = 5) -> dict:
    """A strip of ``rows`` rows of the camera image (rows 24..), for hardware simulation."""
    return {"image": camera()[24:24 + rows], "sigma": 1.0}


def run(kernels, data: dict, trace: list | None = None) -> np.ndarray:
    """Run the filter (``kernels`` = ``(gaussian,)``); the filtered image, rows x W uint8.

    ``trace``, if given, receives ``(kernel, arguments)`` for the call, as the kernel received them.
    """
    (kernel,) = kernels
    image = np.asarray(data["image"], dtype=np.int64)
    rows = image.shape[0]
    img = [int(v) for v in image.reshape(-1)] + [0] * (N - image.size)
    out = [0] * N
    arguments = {"img": img, "out": out, **{f"w{k}": w for k, w in enumerate(gaussian_weights(data["sigma"]))},
                 "rows": rows}
    if trace is not None:
        trace.append((kernel, {k: list(v) if isinstance(v, list) else v for k, v in arguments.items()}))
    kernel(**arguments)
    return np.array(out[:rows * W], dtype=np.uint8).reshape(rows, W)


#: The quality a configuration must keep: PSNR against the exact filter, dB.
PSNR_TARGET_DB = 35.0
PRIMARY = "psnr_db"      #: the metric plotted against ADP


def quality(reference: np.ndarray, output: np.ndarray, data: dict) -> dict:
    """PSNR (dB) and SSIM of the filtered image against the exact filter's."""
    from .quality import psnr, ssim
    value = psnr(reference, output)
    return {"psnr_db": value, "ssim": ssim(reference, output), "meets_target": value >= PSNR_TARGET_DB}
