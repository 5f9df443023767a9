"""Object tracking: a fixed-point alpha-beta tracker (two kernels) on a synthetic noisy 2-D trajectory.

The input is :func:`synthetic_track`, a seeded UAV-like path: a figure-eight
(Lissajous 1:2, 120 m x 60 m, period 40 s) drifting at 1.5 m/s, observed at
irregular intervals (uniform 30-70 ms, whole milliseconds) with Gaussian
position noise (standard deviation 0.8 m per axis).  Positions are integer
centimetres, timestamps integer milliseconds.

1. :func:`intervals`: ``dt[k] = t[k] - t[k-1]`` from the timestamps, and the
   measurements in Q.4 centimetres.
2. :func:`track`: per axis, the alpha-beta update with the measured interval,

   .. code-block:: text

       xp = x + v * dt                  (prediction)
       r  = z - xp                      (residual)
       x  = xp + alpha * r
       v  = v + beta * r / dt

   in fixed point: ``x`` Q.4 cm, ``v`` Q.12 cm/ms, ``alpha``/``beta`` Q0.16
   parameters.  The products and quotients are computed on magnitudes with the
   sign applied afterwards (sign-magnitude, as logarithmic units work), so each
   axis has three multiplies and one division between variables, all in the
   loop-carried update.

Quality is the RMSE of the estimated positions (metres) against the exact
tracker's and against the true path.
"""

from __future__ import annotations

import math

import numpy as np
from amaranth import signed, unsigned

import hls

N = 512              #: measurements, the array depth
ALPHA, BETA = 0.5, 0.1667   #: the gains (beta = alpha^2 / (2 - alpha), Kalata's relation)


@hls.kernel
def intervals(t: hls.Array[unsigned(16), N], zx: hls.Array[signed(16), N], zy: hls.Array[signed(16), N],
              dt: hls.Array[unsigned(7), N], qx: hls.Array[signed(20), N], qy: hls.Array[signed(20), N],
              n: unsigned(10)):
    previous: unsigned(16) = 0
    for k in range(n):
        now = t[k]
        dt[k] = min(now - previous, 127) if k > 0 else 1
        qx[k] = zx[k] << 4
        qy[k] = zy[k] << 4
        previous = now


@hls.kernel
def track(qx: hls.Array[signed(20), N], qy: hls.Array[signed(20), N], dt: hls.Array[unsigned(7), N],
          ex: hls.Array[signed(20), N], ey: hls.Array[signed(20), N], alpha: unsigned(16),
          beta: unsigned(16), n: unsigned(10)):
    x: signed(20) = qx[0]
    y: signed(20) = qy[0]
    vx: signed(20) = 0
    vy: signed(20) = 0
    for k in range(n):
        d = dt[k]
        # Prediction: magnitude of v times dt, sign reapplied; v is Q.12 cm/ms, the product Q.4 cm.
        px: unsigned(20) = (abs(vx) * d) >> 8
        py: unsigned(20) = (abs(vy) * d) >> 8
        xp: signed(21) = x + px if vx >= 0 else x - px
        yp: signed(21) = y + py if vy >= 0 else y - py
        rx: signed(22) = qx[k] - xp
        ry: signed(22) = qy[k] - yp
        ax: unsigned(16) = min(abs(rx), 65535)
        ay: unsigned(16) = min(abs(ry), 65535)
        cx: unsigned(16) = (alpha * ax) >> 16
        cy: unsigned(16) = (alpha * ay) >> 16
        bx: unsigned(24) = (beta * ax) >> 8
        by: unsigned(24) = (beta * ay) >> 8
        gx: unsigned(20) = bx // d
        gy: unsigned(20) = by // d
        x = xp + cx if rx >= 0 else xp - cx
        y = yp + cy if ry >= 0 else yp - cy
        vx = vx + gx if rx >= 0 else vx - gx
        vy = vy + gy if ry >= 0 else vy - gy
        ex[k] = x
        ey[k] = y


KERNELS = (intervals, track)


def synthetic_track(n: int = N, *, seed: int = 7, noise_m: float = 0.8) -> dict:
    """A seeded noisy 2-D trajectory: ``{"t", "zx", "zy", "truth"}``.

    ``t``: timestamps in ms (intervals uniform in 30..70); ``zx``, ``zy``: noisy
    positions in cm (int); ``truth``: the true positions, ``n x 2`` metres.
    """
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.integers(30, 71, size=n)) - 30
    seconds = t / 1000.0
    w = 2 * math.pi / 40.0
    truth = np.stack([60.0 * np.sin(w * seconds) + 1.5 * seconds - 20.0,
                      30.0 * np.sin(2 * w * seconds) + 0.5 * seconds], axis=1)
    measured = truth + noise_m * rng.standard_normal(truth.shape)
    z = np.rint(measured * 100).astype(np.int64)
    return {"t": t.astype(np.int64), "zx": z[:, 0], "zy": z[:, 1], "truth": truth}


def default_input() -> dict:
    return synthetic_track()


def reduced_input(n: int = 24) -> dict:
    return synthetic_track(n, seed=8)


def gains() -> tuple[int, int]:
    """``(alpha, beta)`` in Q0.16."""
    return round(ALPHA * 65536), round(BETA * 65536)


def run(kernels, data: dict, trace: list | None = None) -> np.ndarray:
    """Run the chain in Python; the estimated positions, ``n x 2`` metres."""
    intervals_k, track_k = kernels
    n = len(data["t"])
    if n > N:
        raise ValueError(f"at most {N} measurements, not {n}")

    def array(values):
        return [int(v) for v in values] + [0] * (N - n)

    t, zx, zy = array(data["t"]), array(data["zx"]), array(data["zy"])
    dt, qx, qy, ex, ey = ([0] * N for _ in range(5))
    _call(intervals_k, trace, t=t, zx=zx, zy=zy, dt=dt, qx=qx, qy=qy, n=n)
    alpha, beta = gains()
    _call(track_k, trace, qx=qx, qy=qy, dt=dt, ex=ex, ey=ey, alpha=alpha, beta=beta, n=n)
    return np.stack([np.array(ex[:n]), np.array(ey[:n])], axis=1) / 1600.0


def _call(kernel, trace, **args):
    if trace is not None:
        trace.append((kernel, {k: list(v) if isinstance(v, list) else v for k, v in args.items()}))
    return kernel(**args)


RMSE_INCREASE_TARGET_PCT = 5.0   #: allowed increase of the RMSE against the true path (issue 12)
PRIMARY = "rmse_vs_truth_m"


def quality(reference: np.ndarray, output: np.ndarray, data: dict) -> dict:
    """RMSE (m) against the exact tracker and against the true path, and the increase of the latter
    over the exact tracker's, %."""
    from .quality import rmse
    exact = rmse(data["truth"], reference)
    against_truth = rmse(data["truth"], output)
    increase = 100.0 * (against_truth - exact) / exact
    return {"rmse_vs_exact_m": rmse(reference, output), "rmse_vs_truth_m": against_truth,
            "rmse_increase_pct": increase, "meets_target": increase <= RMSE_INCREASE_TARGET_PCT}
