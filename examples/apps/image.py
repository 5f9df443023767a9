"""Image processing: Gaussian blur, Sobel edge magnitude, normalisation (three kernels).

The input is scikit-image's bundled ``camera`` photograph (512 x 512, 8 bits),
reduced to 64 x 64 by averaging 8 x 8 blocks.  The kernels pass the image on
through arrays, row-major, ``W`` pixels a row:

1. :func:`blur`: a separable 3 x 3 Gaussian.  The two taps of the 1-D kernel
   are parameters (Q0.16, from ``sigma``), so its four multiplies per pixel are
   between variables; each row is swept with a three-column window held in
   registers, so each pixel costs three reads of the image.  Output Q8.8.
2. :func:`sobel`: the Sobel gradients ``gx``, ``gy`` of the blurred image (Q8.4)
   and the squared magnitude ``(gx*gx + gy*gy) >> 14``; returns its peak.
3. :func:`normalise`: ``min(mag * 255 // peak, 255)``, the edge map in 8 bits:
   one division by a variable per pixel.

The blur leaves its outer ring of pixels 0 and the edge map its two outer
rings; quality is measured on the whole 64 x 64 result, against the exact
pipeline.  ``rows`` (a scalar argument of every kernel) is the image height, so
a strip of a few rows is a reduced input for hardware simulation.
"""

from __future__ import annotations

import math

import numpy as np
from amaranth import signed, unsigned

import hls

LOG_W = 6
W = 1 << LOG_W    #: image width (and the height of the full input)
N = W * W         #: array depth


@hls.kernel
def blur(img: hls.Array[unsigned(8), N], out: hls.Array[unsigned(16), N], w_side: unsigned(16),
         w_mid: unsigned(16), rows: unsigned(7)):
    for y in range(1, rows - 1):
        v0: unsigned(16) = 0
        v1: unsigned(16) = 0
        for x in range(W):
            a = img[(y - 1) * W + x]
            b = img[y * W + x]
            c = img[(y + 1) * W + x]
            v2: unsigned(16) = (w_side * (a + c) + w_mid * b) >> 8
            h: unsigned(16) = (w_side * (v0 + v2) + w_mid * v1) >> 16
            if x >= 2:
                out[y * W + x - 1] = h
            v0 = v1
            v1 = v2


@hls.kernel
def sobel(b: hls.Array[unsigned(16), N], mag: hls.Array[unsigned(16), N], rows: unsigned(7)) -> unsigned(16):
    peak: unsigned(16) = 0
    for y in range(2, rows - 2):
        s0: unsigned(14) = 0
        s1: unsigned(14) = 0
        d0: signed(13) = 0
        d1: signed(13) = 0
        for x in range(1, W - 1):
            t = b[(y - 1) * W + x] >> 4
            c = b[y * W + x] >> 4
            u = b[(y + 1) * W + x] >> 4
            s2: unsigned(14) = t + 2 * c + u
            d2: signed(13) = u - t
            gx: unsigned(14) = abs(s2 - s0)
            gy: unsigned(14) = abs(d0 + 2 * d1 + d2)
            m: unsigned(16) = (gx * gx + gy * gy) >> 14
            if x >= 3:
                mag[y * W + x - 1] = m
                peak = max(peak, m)
            s0 = s1
            s1 = s2
            d0 = d1
            d1 = d2
    return peak


@hls.kernel
def normalise(mag: hls.Array[unsigned(16), N], out: hls.Array[unsigned(8), N], peak: unsigned(16),
              rows: unsigned(7)):
    for i in range(rows * W):
        out[i] = min(mag[i] * 255 // peak, 255)


KERNELS = (blur, sobel, normalise)


# -- blur -> Sobel as one dataflow chain (issue 22) ------------------------------------------------------
# The pixels arrive on a stream in raster order, and each stage keeps the two rows before the current
# one in line buffers (local arrays of W entries, each read and then written at the column). Iteration
# k reads pixel (r, x) = (k >> LOG_W, k & (W - 1)) and writes the result at (r - 1, x - 1): the window
# is centred one row and one column behind the pixel read. So a stage writes its first token after
# W + 1 reads and runs W + 1 iterations after its last read (reading nothing) to finish the image,
# and every stage writes exactly the array its kernel above writes, element for element, rings of
# zeros included.

@hls.kernel
def blur_stream(img: hls.Stream[unsigned(8)], out: hls.Stream[unsigned(16)], w_side: unsigned(16),
                w_mid: unsigned(16), rows: unsigned(7)):
    line1 = hls.local(unsigned(8), W)    # row r - 1
    line2 = hls.local(unsigned(8), W)    # row r - 2
    pixels: unsigned(14) = rows * W
    v0: unsigned(16) = 0
    v1: unsigned(16) = 0
    for k in range(rows * W + W + 1):
        x = k & (W - 1)
        r = k >> LOG_W
        c: unsigned(8) = 0
        if k < pixels:
            c = img.read()
        a = line2[x]
        b = line1[x]
        line2[x] = b
        line1[x] = c
        v2: unsigned(16) = (w_side * (a + c) + w_mid * b) >> 8
        h: unsigned(16) = (w_side * (v0 + v2) + w_mid * v1) >> 16
        e: unsigned(16) = 0
        if x >= 2 and r >= 2 and r < rows:
            e = h
        if k > W:
            out.write(e)
        v0 = v1
        v1 = v2


@hls.kernel
def sobel_stream(b: hls.Stream[unsigned(16)], mag: hls.Stream[unsigned(16)], peak: hls.Stream[unsigned(16)],
                 rows: unsigned(7)):
    line1 = hls.local(unsigned(12), W)   # row r - 1, >> 4
    line2 = hls.local(unsigned(12), W)   # row r - 2, >> 4
    pixels: unsigned(14) = rows * W
    top: unsigned(16) = 0
    s0: unsigned(14) = 0
    s1: unsigned(14) = 0
    d0: signed(13) = 0
    d1: signed(13) = 0
    for k in range(rows * W + W + 1):
        x = k & (W - 1)
        r = k >> LOG_W
        v: unsigned(16) = 0
        if k < pixels:
            v = b.read()
        u = v >> 4
        t = line2[x]
        c = line1[x]
        line2[x] = c
        line1[x] = u
        s2: unsigned(14) = t + 2 * c + u
        d2: signed(13) = u - t
        gx: unsigned(14) = abs(s2 - s0)
        gy: unsigned(14) = abs(d0 + 2 * d1 + d2)
        m: unsigned(16) = (gx * gx + gy * gy) >> 14
        e: unsigned(16) = 0
        if x >= 3 and x < W - 1 and r >= 3 and r < rows - 1:
            e = m
            top = max(top, m)
        if k > W:
            mag.write(e)
        s0 = s1
        s1 = s2
        d0 = d1
        d1 = d2
    peak.write(top)


@hls.dataflow
def edges(img: hls.Stream[unsigned(8)], mag: hls.Stream[unsigned(16)], peak: hls.Stream[unsigned(16)],
          w_side: unsigned(16), w_mid: unsigned(16), rows: unsigned(7)):
    """:func:`blur` and :func:`sobel` as one chain: ``mag`` gets the ``rows * W`` elements of
    ``sobel``'s array in raster order, ``peak`` one token, its result. :func:`normalise` needs the
    peak of the whole image before its first pixel, so it runs after the chain (:func:`run_chain`)."""
    blurred = hls.fifo(unsigned(16))
    blur_stream(img=img, out=blurred, w_side=w_side, w_mid=w_mid, rows=rows)
    sobel_stream(b=blurred, mag=mag, peak=peak, rows=rows)


#: What the chained version runs (:func:`run_chain`), in order: the chain, then the normalisation.
CHAIN = (edges, normalise)


def gaussian_taps(sigma: float = 1.0) -> tuple[int, int]:
    """``(w_side, w_mid)``: the 1-D taps ``exp(-1/(2 sigma^2)), 1`` normalised, in Q0.16 (they sum to 2^16)."""
    side = math.exp(-1.0 / (2.0 * sigma * sigma))
    w_side = round(65536 * side / (1.0 + 2.0 * side))
    return w_side, 65536 - 2 * w_side


def camera(size: int = W) -> np.ndarray:
    """scikit-image's ``camera`` (512 x 512) reduced to ``size`` x ``size`` by block means, as uint8."""
    # scikit-image is the apps extra, not a dependency of the library; only the input needs it.
    from skimage import data
    image = data.camera().astype(np.float64)
    factor = image.shape[0] // size
    blocks = image[:factor * size, :factor * size].reshape(size, factor, size, factor).mean(axis=(1, 3))
    return np.clip(np.rint(blocks), 0, 255).astype(np.uint8)


def default_input() -> dict:
    """The full input: the 64 x 64 camera image and the taps for sigma = 1."""
    return {"image": camera(), "sigma": 1.0}


def reduced_input(rows: int = 6) -> dict:
    """A strip of ``rows`` rows of the camera image (rows 24.., through the tripod), for simulation."""
    return {"image": camera()[24:24 + rows], "sigma": 1.0}


def run(kernels, data: dict, trace: list | None = None) -> np.ndarray:
    """Run the chain (``kernels`` = ``(blur, sobel, normalise)``) in Python; the edge map, rows x W uint8.

    ``trace``, if given, receives ``(kernel, arguments)`` for every kernel call, the
    arguments as the kernel received them (for hardware simulation).
    """
    blur_k, sobel_k, normalise_k = kernels
    image = np.asarray(data["image"], dtype=np.int64)
    rows = image.shape[0]
    w_side, w_mid = gaussian_taps(data["sigma"])
    img = [int(v) for v in image.reshape(-1)] + [0] * (N - image.size)
    blurred, mag, out = [0] * N, [0] * N, [0] * N
    _call(blur_k, trace, img=img, out=blurred, w_side=w_side, w_mid=w_mid, rows=rows)
    peak = _call(sobel_k, trace, b=blurred, mag=mag, rows=rows)
    _call(normalise_k, trace, mag=mag, out=out, peak=peak, rows=rows)
    return np.array(out[:rows * W], dtype=np.uint8).reshape(rows, W)


def chain_arguments(data: dict) -> dict:
    """The arguments of :func:`edges` for ``data`` (``mag`` and ``peak`` empty lists it fills)."""
    image = np.asarray(data["image"], dtype=np.int64)
    if image.ndim != 2 or image.shape[1] != W or not 3 <= image.shape[0] <= W:
        raise ValueError(f"the image must be 3..{W} rows of {W} pixels, not {image.shape}")
    w_side, w_mid = gaussian_taps(data["sigma"])
    return {"img": [int(v) for v in image.reshape(-1)], "mag": [], "peak": [], "w_side": w_side,
            "w_mid": w_mid, "rows": image.shape[0]}


def run_chain(data: dict, mapping: dict | None = None, trace: list | None = None) -> np.ndarray:
    """:func:`run` through :func:`edges`, then :func:`normalise` on its tokens: the same edge map,
    bit for bit. ``mapping`` is an approximate configuration, applied to the chain and the kernel
    with ``with_approx`` (``None``: exact); ``trace`` receives ``(chain or kernel, arguments)``."""
    chain = edges if mapping is None else edges.with_approx(mapping)
    kernel = normalise if mapping is None else normalise.with_approx(mapping)
    args = chain_arguments(data)
    _call(chain, trace, **args)
    rows = args["rows"]
    out = [0] * N
    _call(kernel, trace, mag=args["mag"] + [0] * (N - rows * W), out=out, peak=args["peak"][0], rows=rows)
    return np.array(out[:rows * W], dtype=np.uint8).reshape(rows, W)


def _call(kernel, trace, **args):
    if trace is not None:
        trace.append((kernel, {k: list(v) if isinstance(v, list) else v for k, v in args.items()}))
    return kernel(**args)


#: The quality a configuration must keep (issue 12): PSNR against the exact pipeline, dB.
PSNR_TARGET_DB = 35.0
PRIMARY = "psnr_db"      #: the metric plotted against ADP


def quality(reference: np.ndarray, output: np.ndarray, data: dict) -> dict:
    """PSNR (dB) and SSIM of an edge map against the exact pipeline's; ``meets_target`` at 35 dB."""
    from .quality import psnr, ssim
    value = psnr(reference, output)
    return {"psnr_db": value, "ssim": ssim(reference, output), "meets_target": value >= PSNR_TARGET_DB}
