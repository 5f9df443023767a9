"""Bio-signal processing: Pan-Tompkins QRS detection (three kernels) on a synthetic ECG.

The input is :func:`synthetic_ecg`, a seeded generator written here after
McSharry's ECGSYN (P. E. McSharry, G. D. Clifford, L. Tarassenko, L. A. Smith,
IEEE TBME 50(3), 2003): every beat is a sum of five Gaussians (P, Q, R, S, T)
over the beat's phase, whose widths scale with the square root of the RR
interval; RR intervals carry respiratory sinus arrhythmia and random
variability; baseline wander, mains interference and white noise are added; the
result is quantised like a 12-bit ADC at 200 Hz (400 LSB per mV).

The kernels follow J. Pan and W. J. Tompkins (IEEE TBME 32(3), 1985) at 200 Hz:

1. :func:`bandpass`: their integer low-pass ``y = 2y1 - y2 + x - 2x6 + x12`` and
   high-pass ``x16 - (sum of 32) / 32`` (5-15 Hz).
2. :func:`features`: the five-point derivative, its square (a multiply
   between variables) and the moving-window integration over 32 samples (160 ms).
3. :func:`detect`: the adaptive threshold.  The integrated signal is divided
   by its running peak envelope (one division by a variable per sample), so
   the signal and noise peak levels ``spk``/``npk`` and the threshold
   ``npk + (spk - npk) / 4`` are in units of the envelope; a peak above the
   threshold, 200 ms after the last beat, is a beat.  Writes the beats' sample
   indices and returns their count.

The first ``PAD`` samples of every array are zeros, so that the filters' delay
lines read inside the arrays.
"""

from __future__ import annotations

import math

import numpy as np
from amaranth import signed, unsigned

import hls

FS = 200            #: sampling rate, Hz
N = 4096            #: samples (20.5 s), the array depth
PAD = 32            #: leading zeros (the longest delay line)
MAX_BEATS = 64      #: the beats array's depth
REFRACTORY = 40     #: samples (200 ms) after a beat in which no beat is detected
#: Samples from a QRS complex's R peak to the integrated signal's peak (the filters' delay, measured on
#: the synthetic record: between 7 and 16 samples beyond the 21 of the filters).
DELAY = 28


@hls.kernel
def bandpass(x: hls.Array[signed(12), N], lp: hls.Array[signed(20), N], hp: hls.Array[signed(16), N],
             n: unsigned(13)):
    y1: signed(20) = 0
    y2: signed(20) = 0
    p: signed(25) = 0
    for i in range(PAD, n):
        y: signed(20) = 2 * y1 - y2 + x[i] - 2 * x[i - 6] + x[i - 12]
        lp[i] = y
        p = p + y - lp[i - 32]
        hp[i] = (lp[i - 16] - (p >> 5)) >> 2
        y2 = y1
        y1 = y


@hls.kernel
def features(hp: hls.Array[signed(16), N], sq: hls.Array[unsigned(16), N], mwi: hls.Array[unsigned(16), N],
             n: unsigned(13)):
    h1: signed(16) = 0
    h2: signed(16) = 0
    h3: signed(16) = 0
    h4: signed(16) = 0
    s: unsigned(21) = 0
    for i in range(PAD, n):
        h0 = hp[i]
        d: signed(19) = (2 * h0 + h1 - h3 - 2 * h4) >> 1
        a: unsigned(16) = min(abs(d), 65535)
        e: unsigned(16) = (a * a) >> 12
        sq[i] = e
        s = s + e - sq[i - 32]
        mwi[i] = s >> 5
        h4 = h3
        h3 = h2
        h2 = h1
        h1 = h0


@hls.kernel
def detect(mwi: hls.Array[unsigned(16), N], beats: hls.Array[unsigned(13), MAX_BEATS],
           n: unsigned(13)) -> unsigned(7):
    env: unsigned(16) = 0
    m1: unsigned(16) = 0
    m2: unsigned(16) = 0
    r1: unsigned(10) = 0
    spk: unsigned(10) = 128
    npk: unsigned(10) = 16
    thr: unsigned(10) = 44
    last: unsigned(13) = 0
    count: unsigned(7) = 0
    for i in range(PAD, n):
        m0 = mwi[i]
        env = max(m0, env - (env >> 8))
        scaled: unsigned(24) = m0 << 8
        r0: unsigned(10) = min(scaled // env, 1023)
        if m1 > m2 and m1 >= m0:
            if r1 > thr and i - last > REFRACTORY and count < MAX_BEATS:
                beats[count] = i - 1
                count = count + 1
                last = i
                spk = spk + ((r1 - spk) >> 3)
            else:
                npk = npk + ((r1 - npk) >> 3)
            thr = npk + ((spk - npk) >> 2)
        m2 = m1
        m1 = m0
        r1 = r0
    return count


KERNELS = (bandpass, features, detect)


# -- the same detector as one dataflow chain (issue 22) -------------------------------------------------
# Each stage is its kernel above with the arrays between kernels turned into streams: the delay lines
# the arrays held become local circular buffers (zero at the start, as the zero-filled arrays were), so
# every token equals the element of the array it replaces.

@hls.kernel
def bandpass_stream(x: hls.Stream[signed(12)], hp: hls.Stream[signed(16)], n: unsigned(13)):
    xs = hls.local(signed(12), 16, partition=hls.partition("complete"))    # x[i - 6], x[i - 12]
    # lp[i - 16] and lp[i - 32]: two 16-token delay lines, each read and then written at i & 15 (one
    # 32-entry buffer read at (i - 16) & 31 after the write at i & 31 would be a dependence at
    # distance 1 through its memory, and II 2).
    lp16 = hls.local(signed(20), 16)
    lp32 = hls.local(signed(20), 16)
    y1: signed(20) = 0
    y2: signed(20) = 0
    p: signed(25) = 0
    for i in range(PAD, n):
        x0 = x.read()
        xs[i & 15] = x0
        y: signed(20) = 2 * y1 - y2 + x0 - 2 * xs[(i - 6) & 15] + xs[(i - 12) & 15]
        d16 = lp16[i & 15]
        lp16[i & 15] = y
        d32 = lp32[i & 15]
        lp32[i & 15] = d16
        p = p + y - d32
        hp.write((d16 - (p >> 5)) >> 2)
        y2 = y1
        y1 = y


@hls.kernel
def features_stream(hp: hls.Stream[signed(16)], mwi: hls.Stream[unsigned(16)], n: unsigned(13)):
    sqs = hls.local(unsigned(16), 32)    # sq[i - 32]
    h1: signed(16) = 0
    h2: signed(16) = 0
    h3: signed(16) = 0
    h4: signed(16) = 0
    s: unsigned(21) = 0
    for i in range(PAD, n):
        h0 = hp.read()
        d: signed(19) = (2 * h0 + h1 - h3 - 2 * h4) >> 1
        a: unsigned(16) = min(abs(d), 65535)
        e: unsigned(16) = (a * a) >> 12
        old = sqs[i & 31]
        sqs[i & 31] = e
        s = s + e - old
        mwi.write(s >> 5)
        h4 = h3
        h3 = h2
        h2 = h1
        h1 = h0


@hls.kernel
def detect_stream(mwi: hls.Stream[unsigned(16)], beats: hls.Stream[unsigned(13)], n: unsigned(13)):
    env: unsigned(16) = 0
    m1: unsigned(16) = 0
    m2: unsigned(16) = 0
    r1: unsigned(10) = 0
    spk: unsigned(10) = 128
    npk: unsigned(10) = 16
    thr: unsigned(10) = 44
    last: unsigned(13) = 0
    count: unsigned(7) = 0
    # thr, last and count as they were two iterations ago. They change only at a peak, and a peak at
    # i (m[i-1] > m[i-2]) rules one out at i - 1 (m[i-2] >= m[i-1]): at a peak they equal their
    # values, and the recurrences through the beat's condition span two iterations, not one.
    thr2: unsigned(10) = 44
    last2: unsigned(13) = 0
    count2: unsigned(7) = 0
    for i in range(PAD, n):
        m0 = mwi.read()
        env = max(m0, env - (env >> 8))
        scaled: unsigned(24) = m0 << 8
        r0: unsigned(10) = min(scaled // env, 1023)
        thr1: unsigned(10) = thr
        last1: unsigned(13) = last
        count1: unsigned(7) = count
        if m1 > m2 and m1 >= m0:
            if r1 > thr2 and i - last2 > REFRACTORY and count2 < MAX_BEATS:
                beats.write(i - 1)
                count = count + 1
                last = i
                spk = spk + ((r1 - spk) >> 3)
            else:
                npk = npk + ((r1 - npk) >> 3)
            thr = npk + ((spk - npk) >> 2)
        thr2 = thr1
        last2 = last1
        count2 = count1
        m2 = m1
        m1 = m0
        r1 = r0


@hls.dataflow
def detector(x: hls.Stream[signed(12)], beats: hls.Stream[unsigned(13)], n: unsigned(13)):
    """:func:`bandpass`, :func:`features` and :func:`detect` as one chain: ``beats`` gets the
    indices ``detect`` writes into its array, in order."""
    hp = hls.fifo(signed(16))
    mwi = hls.fifo(unsigned(16))
    bandpass_stream(x, hp, n)
    features_stream(hp, mwi, n)
    detect_stream(mwi, beats, n)


#: What the chained version runs (:func:`run_chain`), in order.
CHAIN = (detector,)

#: ECGSYN's five waves: (name, phase in rad, amplitude in mV, width in rad at RR = 1 s).
WAVES = (("P", -math.pi / 3, 0.15, 0.25), ("Q", -math.pi / 12, -0.12, 0.1), ("R", 0.0, 1.2, 0.1),
         ("S", math.pi / 12, -0.25, 0.1), ("T", math.pi / 2, 0.35, 0.4))


def synthetic_ecg(seconds: float = (N - PAD) / FS, *, seed: int = 12, heart_rate: float = 72.0,
                  hrv: float = 0.04, noise_mv: float = 0.03, wander_mv: float = 0.15,
                  mains_mv: float = 0.03, fs: int = FS) -> tuple[np.ndarray, np.ndarray]:
    """A seeded synthetic ECG: ``(samples, r_peaks)``, 12-bit ADC counts and the R peaks' sample indices.

    Parameters
    ----------
    seconds : float
        Duration.
    seed : int
        Seed of :func:`numpy.random.default_rng`; equal seeds give equal records.
    heart_rate : float
        Mean, beats per minute.
    hrv : float
        Standard deviation of the RR intervals relative to their mean (half of it
        as respiratory sinus arrhythmia at 0.25 Hz, half random).
    noise_mv, wander_mv, mains_mv : float
        White noise (standard deviation), baseline wander at 0.3 Hz and 50 Hz
        mains interference (amplitudes), in mV.
    fs : int
        Sampling rate, Hz.
    """
    rng = np.random.default_rng(seed)
    n = int(round(seconds * fs))
    t = np.arange(n) / fs
    mean_rr = 60.0 / heart_rate
    # Beat onsets: RR intervals with respiratory modulation and random variability.
    onsets, at = [], -rng.uniform(0, mean_rr)
    while at < seconds + mean_rr:
        rr = mean_rr * (1 + hrv / math.sqrt(2) * (math.sqrt(2) * math.sin(2 * math.pi * 0.25 * at)
                                                   + rng.standard_normal()))
        onsets.append((at, rr))
        at += rr
    signal = np.zeros(n)
    peaks = []
    for start, rr in onsets:
        centre = start + rr / 2                     # phase 0 (the R wave) in the middle of the beat
        phase = (t - centre) * 2 * math.pi / rr
        near = np.abs(phase) <= math.pi
        for _, theta, amplitude, width in WAVES:
            b = width * math.sqrt(rr)
            signal[near] += amplitude * np.exp(-((phase[near] - theta) ** 2) / (2 * b * b))
        if 0 <= centre < seconds:
            peaks.append(int(round(centre * fs)))
    signal += wander_mv * np.sin(2 * math.pi * 0.3 * t + rng.uniform(0, 2 * math.pi))
    signal += mains_mv * np.sin(2 * math.pi * 50 * t + rng.uniform(0, 2 * math.pi))
    signal += noise_mv * rng.standard_normal(n)
    counts = np.clip(np.rint(signal * 400), -2048, 2047).astype(np.int64)
    return counts, np.array(peaks, dtype=np.int64)


def default_input() -> dict:
    """The full input: 20.3 s of synthetic ECG (seed 12, 72 bpm)."""
    samples, peaks = synthetic_ecg()
    return {"samples": samples, "r_peaks": peaks}


def reduced_input(seconds: float = 1.6) -> dict:
    """A short record for simulation (seed 13)."""
    samples, peaks = synthetic_ecg(seconds, seed=13)
    return {"samples": samples, "r_peaks": peaks}


def run(kernels, data: dict, trace: list | None = None) -> np.ndarray:
    """Run the chain in Python; the detected beats' sample indices in ``data["samples"]``.

    The indices are those of the integrated signal's peaks minus :data:`DELAY`, so
    that they land on the R waves.  ``trace`` as in :func:`examples.apps.image.run`.
    """
    bandpass_k, features_k, detect_k = kernels
    samples = [int(v) for v in data["samples"]]
    n = PAD + len(samples)
    if n > N:
        raise ValueError(f"at most {N - PAD} samples, not {len(samples)}")
    x = [0] * PAD + samples + [0] * (N - n)
    lp, hp, sq, mwi, beats = [0] * N, [0] * N, [0] * N, [0] * N, [0] * MAX_BEATS
    _call(bandpass_k, trace, x=x, lp=lp, hp=hp, n=n)
    _call(features_k, trace, hp=hp, sq=sq, mwi=mwi, n=n)
    count = _call(detect_k, trace, mwi=mwi, beats=beats, n=n)
    return np.array(beats[:count], dtype=np.int64) - PAD - DELAY


def chain_arguments(data: dict) -> dict:
    """The arguments of :func:`detector` for ``data`` (``beats`` an empty list it fills)."""
    samples = [int(v) for v in data["samples"]]
    if PAD + len(samples) > N:
        raise ValueError(f"at most {N - PAD} samples, not {len(samples)}")
    return {"x": samples, "beats": [], "n": PAD + len(samples)}


def run_chain(data: dict, mapping: dict | None = None, trace: list | None = None) -> np.ndarray:
    """:func:`run` through :func:`detector`'s golden model: the same beats, bit for bit. ``mapping``
    is an approximate configuration, applied to the chain with ``with_approx`` (``None``: exact);
    ``trace`` receives ``(chain, arguments)``."""
    chain = detector if mapping is None else detector.with_approx(mapping)
    args = chain_arguments(data)
    _call(chain, trace, **args)
    return np.array(args["beats"], dtype=np.int64) - PAD - DELAY


def _call(kernel, trace, **args):
    if trace is not None:
        trace.append((kernel, {k: list(v) if isinstance(v, list) else v for k, v in args.items()}))
    return kernel(**args)


TOLERANCE = 10           #: samples (50 ms at 200 Hz) within which two beats match
F1_TARGET = 0.99         #: F1 against the exact pipeline a configuration must keep (issue 12)
PRIMARY = "f1"


def quality(reference: np.ndarray, output: np.ndarray, data: dict) -> dict:
    """Sensitivity, positive predictivity and F1 of the beats against the exact pipeline's (50 ms
    tolerance), and ``f1_vs_truth`` against the generator's R peaks."""
    from .quality import match_beats
    scores = match_beats(reference, output, TOLERANCE)
    scores["f1_vs_truth"] = match_beats(data["r_peaks"], output, TOLERANCE)["f1"]
    scores["meets_target"] = scores["f1"] >= F1_TARGET
    return scores
