"""Quality metrics of the applications: PSNR and SSIM of images, beat-detection scores, RMSE."""

from __future__ import annotations

import math

import numpy as np


def psnr(reference, test, peak: float = 255.0) -> float:
    """Peak signal-to-noise ratio in dB, ``10 log10(peak^2 / MSE)``; ``inf`` for identical images.

    Raises
    ------
    ValueError
        If the shapes differ.
    """
    reference, test = _pair(reference, test)
    mse = float(np.mean((reference - test) ** 2))
    return math.inf if mse == 0 else 10.0 * math.log10(peak * peak / mse)


def ssim(reference, test, peak: float = 255.0, window: int = 7) -> float:
    """Mean structural similarity (Wang et al., IEEE TIP 13(4), 2004) over ``window`` x ``window``
    uniform windows (the valid ones, unbiased variances), with ``K1 = 0.01``, ``K2 = 0.03``:
    scikit-image's ``structural_similarity`` with its defaults and ``data_range=peak``.

    Raises
    ------
    ValueError
        If the shapes differ, or the image is smaller than the window.
    """
    x, y = _pair(reference, test)
    if x.ndim != 2 or min(x.shape) < window:
        raise ValueError(f"ssim needs a 2-D image of at least {window} x {window} pixels, not {x.shape}")
    c1, c2 = (0.01 * peak) ** 2, (0.03 * peak) ** 2

    def mean(image):
        # The mean of every window x window block: a 2-D running sum.
        s = np.cumsum(np.cumsum(np.pad(image, ((1, 0), (1, 0))), axis=0), axis=1)
        return (s[window:, window:] - s[:-window, window:] - s[window:, :-window] + s[:-window, :-window]) \
            / (window * window)

    n = window * window
    unbias = n / (n - 1)
    mx, my = mean(x), mean(y)
    vx = (mean(x * x) - mx * mx) * unbias
    vy = (mean(y * y) - my * my) * unbias
    cxy = (mean(x * y) - mx * my) * unbias
    s = ((2 * mx * my + c1) * (2 * cxy + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    # The margin of half a window, where windows do not fit, is left out (as scikit-image does).
    return float(s.mean())


def match_beats(reference, detected, tolerance: int) -> dict:
    """Beat detection scores of ``detected`` sample indices against ``reference`` ones.

    Each reference beat matches at most one detected beat within ``tolerance``
    samples (greedily, nearest first).  Returns ``tp``, ``fn``, ``fp``,
    ``sensitivity`` = tp / (tp + fn), ``positive_predictivity`` = tp / (tp + fp)
    and ``f1``; with no beats on either side, all three scores are 1.
    """
    reference = sorted(int(v) for v in reference)
    detected = sorted(int(v) for v in detected)
    pairs = sorted((abs(r - d), i, j) for i, r in enumerate(reference) for j, d in enumerate(detected)
                   if abs(r - d) <= tolerance)
    used_r, used_d = set(), set()
    for _, i, j in pairs:
        if i not in used_r and j not in used_d:
            used_r.add(i)
            used_d.add(j)
    tp = len(used_r)
    fn, fp = len(reference) - tp, len(detected) - tp
    sensitivity = tp / (tp + fn) if tp + fn else 1.0
    predictivity = tp / (tp + fp) if tp + fp else 1.0
    f1 = 2 * tp / (2 * tp + fn + fp) if tp + fn + fp else 1.0
    return {"tp": tp, "fn": fn, "fp": fp, "sensitivity": sensitivity, "positive_predictivity": predictivity,
            "f1": f1}


def rmse(reference, test) -> float:
    """Root-mean-square Euclidean distance between two trajectories (``k x d`` arrays, or 1-D).

    Raises
    ------
    ValueError
        If the shapes differ.
    """
    reference, test = _pair(reference, test)
    if reference.ndim == 1:
        reference, test = reference[:, None], test[:, None]
    return float(np.sqrt(np.mean(np.sum((reference - test) ** 2, axis=1))))


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} and {b.shape}")
    return a, b
