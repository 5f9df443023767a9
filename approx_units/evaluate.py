"""The error engine: a unit's error metrics, exhaustively or by Monte Carlo.

The metric definitions live in one place, :mod:`approx_units.metrics`; this
module only decides *which operand pairs* to feed them and *how*:

* **Exhaustively**, over every operand pair, up to 16 x 16 bits (2^32 pairs).
  The pairs are cut into tasks of consecutive values of operand ``a`` times
  every ``b`` (about :data:`CHUNK_PAIRS` pairs each, up to :data:`TILED_TASK_PAIRS`
  for library units, so memory stays bounded whatever the width), the tasks run
  on a process pool using every core, and their mergeable accumulators are
  merged as they complete.  A library unit's task never spells the pairs out:
  its model evaluates the outer product ``a[:, None] x b[None, :]`` in
  cache-sized tiles (:func:`~approx_units.numpy_backend.evaluate_tiles`), and
  each tile's statistics are taken while it is still in the cache.
* **By Monte Carlo**, for wider units or when asked: the samples are drawn in
  :data:`BATCHES` independent batches (each from its own seed, so the result
  does not depend on how many workers ran them).  The point estimate pools all
  batches; the 95 % confidence interval of each mean-type metric comes from
  the spread of the per-batch values (the method of batch means:
  ``pooled +- t(0.975, B-1) * sd(batch values) / sqrt(B)``).  Worst-case
  metrics (``wce``, ``wcre`` ...) get no interval: a sampled maximum is only a
  lower bound of the true one.
* **Over a user's input distribution**: :class:`Histogram` (a 1-D histogram
  per operand, such as an image's pixel statistics, sampled by Monte Carlo) or
  :class:`Pairs` (arrays of operand pairs, evaluated exactly as given).

Two engines run the tasks: the numpy interpreter of the unit's graph on a
process pool (above), and, for runs of 2^22 pairs or more when a C compiler is
present, :mod:`approx_units.compiled`: a library unit's graph (or a Verilog
netlist's gates, bit-sliced by :mod:`approx_units.bitsliced`) compiled to
native code fused with the error statistics, on a thread pool.
They give the same metrics (``tests/units/test_compiled_engine.py``).

A progress bar (tqdm, on stderr) appears only when stderr is a terminal.
"""

from __future__ import annotations

import ctypes
import math
import os
import sys
import time
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
# Imported now rather than by the first use of np.random (numpy loads it lazily): a Ctrl-C
# that lands in the initialisation of its Cython modules is lost, or becomes an ImportError,
# so a sampled evaluation interrupted at its start would run on.
import numpy.random  # noqa: F401
from tqdm import tqdm

import artefacts

from . import interrupts
from .metrics import ErrorStats
from .registry import Unit
from .registry import get as get_unit

__all__ = [
    "Evaluation", "Uniform", "Histogram", "Pairs", "LibraryUnit",
    "evaluate", "operand_range", "EXHAUSTIVE_LIMIT_BITS", "DEFAULT_EXHAUSTIVE_BITS",
    "CHUNK_PAIRS", "TILED_TASK_PAIRS", "BATCHES",
]

#: Largest total operand width (bits of a + bits of b) evaluated exhaustively on request.
EXHAUSTIVE_LIMIT_BITS = 32
#: Largest total operand width evaluated exhaustively when neither mode is requested: up to
#: 16 x 16, so that a maximum (WCE, WCRE) is measured, not guessed from a sample. The compiled
#: engine makes 2^32 pairs a matter of seconds; without a C compiler numpy takes minutes.
DEFAULT_EXHAUSTIVE_BITS = 32
#: Operand pairs per task; with the model's temporaries this keeps a worker well under 1 GiB.
CHUNK_PAIRS = 1 << 20
#: Largest exhaustive task of a traced unit, whose memory is independent of the task's size
#: (tiles); larger tasks spread the per-task work (each operand's own logic) over more pairs.
TILED_TASK_PAIRS = 1 << 22
#: Exhaustive evaluations are cut into at least this many tasks (when large enough), for balance.
_MIN_TASKS = 64
#: Independent Monte Carlo batches behind each confidence interval.
BATCHES = 32
#: Below this many pairs, a process pool costs more than it saves.
_PARALLEL_THRESHOLD = 1 << 22
#: Metrics that are maxima: sampling gives a lower bound, not an interval.
_EXTREMES = frozenset({"wce", "wcre", "wce_pct", "int_wce", "excluded_division_by_zero"})
#: The maxima among the metrics: a sampled value is only the largest error seen.
MAXIMUM_METRICS = ("wce", "wcre", "wce_pct", "int_wce")

#: Metrics whose true value cannot lie outside a range: their intervals are
#: clipped to it (a batch-means interval around an ER of 0.99997 would
#: otherwise reach past 1). Biases are signed and stay unclipped.
_DOMAINS = {"er": (0.0, 1.0), "int_er": (0.0, 1.0)}
_NON_NEGATIVE = frozenset({"med", "nmed", "mred", "mse", "error_variance", "mae_pct",
                           "int_med", "int_mred", "int_mse"})


# --- operators ------------------------------------------------------------------------------

@dataclass(frozen=True)
class LibraryUnit:
    """A picklable recipe for ``approx_units.get(name, width=..., stages=..., **params)``.

    Worker processes receive the recipe, not the unit, and build the unit once each.
    """
    name: str
    width: int
    stages: int = 0
    params: tuple = ()

    def resolve(self):
        unit = _RESOLVED.get(self)
        if unit is None:
            unit = _RESOLVED[self] = get_unit(self.name, width=self.width, stages=self.stages,
                                                     **dict(self.params))
        return unit


_RESOLVED: dict = {}


def _operator(subject):
    """The object with ``model``/``kind``/``width``: a resolved recipe, or ``subject`` itself."""
    return subject.resolve() if isinstance(subject, LibraryUnit) else subject


def _is_signed(operator) -> bool:
    params = getattr(operator, "params", None) or {}
    return bool(params.get("signed", getattr(operator, "signed", False)))


def _operand_widths(operator) -> tuple[int, int]:
    width = operator.width
    if isinstance(width, tuple):
        return width
    width_b = getattr(operator, "width_b", None)
    return width, (width_b if width_b is not None else width)


def operand_range(width: int, signed: bool) -> tuple[int, int]:
    """The half-open range ``[lo, hi)`` of an operand's values."""
    return (-(1 << (width - 1)), 1 << (width - 1)) if signed else (0, 1 << width)


# --- input distributions --------------------------------------------------------------------

class Uniform:
    """Every operand value equally likely (the default)."""

    def sample(self, rng: np.random.Generator, count: int, ranges) -> tuple[np.ndarray, np.ndarray]:
        (a_lo, a_hi), (b_lo, b_hi) = ranges
        return rng.integers(a_lo, a_hi, count), rng.integers(b_lo, b_hi, count)

    def describe(self) -> str:
        return "uniform"


class Histogram:
    """Independent operands, each drawn from a 1-D histogram of its values.

    Parameters
    ----------
    a_weights, b_weights : array-like
        Non-negative weights of the operand values ``lo, lo+1, ...`` (``lo`` is 0 for
        unsigned units, ``-2**(n-1)`` for signed ones); shorter than the operand range
        is fine (the rest has weight 0).  ``b_weights`` defaults to ``a_weights``.

    Raises
    ------
    ValueError
        If a histogram is empty, has negative or non-finite weights, or is longer than
        the operand range.
    """

    def __init__(self, a_weights, b_weights=None):
        self.a = self._normalise(a_weights, "a")
        self.b = self._normalise(a_weights if b_weights is None else b_weights, "b")

    @staticmethod
    def _normalise(weights, role: str) -> np.ndarray:
        weights = np.asarray(weights, dtype=np.float64).ravel()
        if weights.size == 0 or not np.all(np.isfinite(weights)) or np.any(weights < 0) \
                or weights.sum() <= 0:
            raise ValueError(f"histogram of operand {role} must hold finite non-negative weights "
                             f"with a positive sum")
        return weights / weights.sum()

    @classmethod
    def of_samples(cls, a_samples, b_samples=None, *, offset: int = 0) -> "Histogram":
        """The histograms of observed operand values (for example an image's pixels)."""
        def counts(samples):
            samples = np.asarray(samples, dtype=np.int64).ravel() - offset
            if samples.size == 0 or samples.min() < 0:
                raise ValueError(f"operand samples must be >= {offset}")
            return np.bincount(samples)
        return cls(counts(a_samples), None if b_samples is None else counts(b_samples))

    def sample(self, rng, count, ranges):
        result = []
        for weights, (lo, hi) in ((self.a, ranges[0]), (self.b, ranges[1])):
            if weights.size > hi - lo:
                raise ValueError(f"histogram has {weights.size} bins but the operand has only "
                                 f"{hi - lo} values")
            result.append(lo + rng.choice(weights.size, size=count, p=weights))
        return result[0], result[1]

    def describe(self) -> str:
        return f"histogram({self.a.size}x{self.b.size} bins)"


class Pairs:
    """Explicit operand pairs, evaluated exactly as given (for example a recorded trace).

    Raises
    ------
    ValueError
        If the arrays differ in length or are empty.
    """

    def __init__(self, a, b):
        self.a = np.asarray(a, dtype=np.int64).ravel()
        self.b = np.asarray(b, dtype=np.int64).ravel()
        if self.a.size != self.b.size or self.a.size == 0:
            raise ValueError(f"operand pair arrays must be non-empty and of equal length, "
                             f"got {self.a.size} and {self.b.size}")

    def describe(self) -> str:
        return f"pairs({self.a.size})"


# --- result ---------------------------------------------------------------------------------

@dataclass
class Evaluation:
    """Error metrics of one unit over one input set.

    Attributes
    ----------
    unit : str
    kind : str
        ``add``, ``mul`` or ``div``.
    width : int
    params : dict
    exhaustive : bool
        Whether every operand pair was evaluated.
    samples : int
        Operand pairs evaluated.
    metrics : dict
        As defined by :mod:`approx_units.metrics`.
    ci95 : dict
        For sampled evaluations, ``metric -> [low, high]`` for each mean-type metric.
    distribution : str
    seconds : float
        Wall-clock time of the evaluation.
    """
    unit: str
    kind: str
    width: int
    params: dict
    exhaustive: bool
    samples: int
    metrics: dict
    ci95: dict = field(default_factory=dict)
    distribution: str = "uniform"
    seconds: float = 0.0

    @property
    def pairs_per_second(self) -> float:
        return self.samples / self.seconds if self.seconds > 0 else math.inf

    @property
    def maxima(self) -> dict:
        """Each maximum metric with whether it was measured over every pair.

        ``{"wce": {"value": ..., "exhaustive": False}, ...}``: a sampled maximum is
        the largest error seen, a lower bound of the true one, which a rare operand
        pair can exceed many times over.
        """
        return {name: {"value": self.metrics[name], "exhaustive": self.exhaustive}
                for name in MAXIMUM_METRICS if name in self.metrics}

    def to_dict(self) -> dict:
        return {"unit": self.unit, "width": self.width, "params": self.params,
                "exhaustive": self.exhaustive, "samples": self.samples, "metrics": self.metrics,
                "maxima": self.maxima, "ci95": self.ci95, "kind": self.kind,
                "distribution": self.distribution}


# --- the engine -----------------------------------------------------------------------------

class _Accumulator:
    """The mergeable statistics of one chunk: :class:`~approx_units.metrics.ErrorStats` per measure.

    Adders and multipliers have one measure, the error against the exact integer result.
    Dividers have two: ``quotient``, against the real-valued quotient ``a / b`` (scaled by
    the unit's fraction bits), which gives the main metrics; and ``integer``, against the
    exact fixed-point quotient of :func:`_integer_quotient`.  Both leave out division by zero and count it.
    """

    def __init__(self, parts: dict):
        self.parts = parts

    def merge(self, other: "_Accumulator") -> "_Accumulator":
        return _Accumulator({name: stats.merge(other.parts[name]) for name, stats in self.parts.items()})

    def metrics(self, kind: str, width: int, width_b: int | None = None, frac_bits: int = 0) -> dict:
        main = self.parts["quotient" if kind == "div" else "exact"]
        values = main.metrics(kind, width, width_b, frac_bits)
        if kind == "div":
            values["excluded_division_by_zero"] = main.excluded
            integer = self.parts["integer"].metrics(kind, width, width_b, frac_bits)
            values.update({f"int_{name}": integer[name] for name in ("er", "med", "mred", "wce", "mse", "bias")})
        return values


def _frac_bits(operator) -> int:
    """Fraction bits of a divider's fixed-point quotient (0 for integer quotients)."""
    params = getattr(operator, "params", None) or {}
    return int(params.get("frac_bits", getattr(operator, "frac_bits", 0)) or 0)


def _integer_quotient(a: np.ndarray, b: np.ndarray, frac_bits: int, signed: bool) -> np.ndarray:
    """The exact fixed-point quotient ``floor(a * 2**f / b)`` (``b != 0``), as ``exact_div`` defines it.

    Signed dividers divide the magnitudes and negate the quotient when the signs
    differ (rounding towards zero), as ``approx_units/dividers.py`` documents.
    """
    if not signed:
        return (a.astype(np.uint64) << np.uint64(frac_bits)) // b.astype(np.uint64)
    magnitude = (np.abs(a) << frac_bits) // np.abs(b)
    return np.where((a < 0) != (b < 0), -magnitude, magnitude)


def _stats_of(operator, a: np.ndarray, b: np.ndarray) -> _Accumulator:
    """The statistics of a set of operand pairs: ``a`` and ``b`` of equal length, or a column and a row.

    A column ``a[:, None]`` and a row ``b[None, :]`` stand for every pair of their values.
    """
    if isinstance(operator, _CompiledOperator):
        return _Accumulator(operator.evaluator.pair_stats(a, b))
    stats = None
    for a_part, b_part, approx in _model_tiles(operator, a, b):
        tile = _tile_stats(operator, a_part, b_part, approx)
        stats = tile if stats is None else stats.merge(tile)
    return stats


def _model_tiles(operator, a: np.ndarray, b: np.ndarray):
    """``(a, b, model output)`` for cache-sized parts of the pairs, which broadcast to 2-D.

    A traced library unit is evaluated tile by tile (:meth:`Unit.model_tiles`),
    so each tile's statistics are taken while the tile is still in the cache, and the
    per-operand logic of an outer product runs once per operand value.  Other operators
    (Verilog netlists) get the pairs spelled out in one call.
    """
    a, b = (x.reshape(-1, 1) if x.ndim == 1 else x for x in (np.asarray(a), np.asarray(b)))
    if not _is_traced(operator):
        a_all, b_all = (x.ravel() for x in np.broadcast_arrays(a, b))
        yield a_all, b_all, np.asarray(operator.model(a_all, b_all))
        return
    for rows, cols, values in operator.model_tiles(a, b):
        yield _part(a, rows, cols), _part(b, rows, cols), values


def _is_traced(operator) -> bool:
    """True for a library unit, whose model is the numpy interpretation of its traced graph."""
    return isinstance(operator, Unit)


def _part(operand: np.ndarray, rows: slice, cols: slice) -> np.ndarray:
    """The part of a 2-D ``operand`` that the tile ``rows x cols`` of the broadcast pairs reads."""
    return operand[rows if operand.shape[0] > 1 else slice(None),
                   cols if operand.shape[1] > 1 else slice(None)]


def _tile_stats(operator, a: np.ndarray, b: np.ndarray, approx: np.ndarray) -> _Accumulator:
    """The statistics of model results ``approx`` for the operands ``a`` and ``b`` (broadcasting)."""
    if operator.kind == "add":
        return _Accumulator({"exact": ErrorStats.of(a + b, approx)})
    if operator.kind == "mul":
        # Unsigned 32 x 32 products need all 64 bits: multiply as uint64 (exact below 2**64).
        exact = a * b if _is_signed(operator) else \
            a.astype(np.uint64, copy=False) * b.astype(np.uint64, copy=False)
        return _Accumulator({"exact": ErrorStats.of(exact, approx)})
    if operator.kind != "div":
        raise ValueError(f"unit kind must be add, mul or div, not {operator.kind!r}")
    a, b, approx = (x.ravel() for x in np.broadcast_arrays(a, b, approx))
    keep = b != 0
    exact = _integer_quotient(a[keep], b[keep], _frac_bits(operator), _is_signed(operator))
    integer = ErrorStats.of(exact, approx[keep])
    integer.excluded = int(a.size - keep.sum())
    quotient = ErrorStats.of_quotient(a, b, approx, frac_bits=_frac_bits(operator))
    return _Accumulator({"quotient": quotient, "integer": integer})


def _exhaustive_task(subject, a_lo: int, a_hi: int, b_range: tuple[int, int]):
    operator = _operator(subject)
    # Unsigned operands as uint64, the type of the exact results, which then needs no conversion per tile.
    dtype = np.uint64 if min(a_lo, b_range[0]) >= 0 else np.int64
    a = np.arange(a_lo, a_hi, dtype=dtype)[:, None]
    b = np.arange(*b_range, dtype=dtype)[None, :]
    return _stats_of(operator, a, b), a.size * b.size


def _sampled_task(subject, distribution, seed, count: int, ranges):
    operator = _operator(subject)
    rng = np.random.default_rng(seed)
    stats = None
    for start in range(0, count, CHUNK_PAIRS):
        a, b = distribution.sample(rng, min(CHUNK_PAIRS, count - start), ranges)
        chunk = _stats_of(operator, a, b)
        stats = chunk if stats is None else stats.merge(chunk)
    return stats, count


def _pairs_task(subject, a: np.ndarray, b: np.ndarray):
    return _stats_of(_operator(subject), a, b), a.size


@dataclass
class _CompiledOperator:
    """A task's operator when the compiled engine runs it (in a thread of this process)."""
    evaluator: object
    kind: str


#: Engines :func:`evaluate` accepts.
ENGINES = ("auto", "compiled", "numpy")
#: Below this many pairs, ``engine="auto"`` keeps the numpy interpreter: it is done
#: before a kernel that is not yet in the cache has compiled (about a second).
_COMPILED_THRESHOLD = 1 << 22
_FALLBACK_SAID: list = []


def _choose_engine(operator, engine: str, executor, total: int):
    """The compiled :class:`~approx_units.compiled.Evaluator` to run, or None for the numpy engine.

    ``auto`` compiles a library unit or a netlist for evaluations of at least
    :data:`_COMPILED_THRESHOLD` pairs run here (no ``executor``); without a C
    compiler it says so once on stderr and uses numpy. ``compiled`` insists.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "numpy" or (engine == "auto" and (executor is not None or total < _COMPILED_THRESHOLD)):
        return None
    from . import compiled      # ctypes and a C compiler: only when this engine runs
    if compiled.kernel_spec(operator) is None:
        if engine == "compiled":
            raise ValueError(f"{getattr(operator, 'name', operator)!r} has no dataflow graph to compile")
        return None
    try:
        return compiled.evaluator_for(operator)
    except compiled.CompilerUnavailable as error:
        if engine == "compiled":
            raise
        if not _FALLBACK_SAID:
            _FALLBACK_SAID.append(True)
            print(f"axhls: {error}; the error engine falls back to the numpy interpreter (slower): "
                  f"install gcc or set CC", file=sys.stderr)
        return None


def evaluate(subject, *, exhaustive: bool | None = None, samples: int | None = None,
             distribution=None, seed: int = 0, workers: int | None = None,
             executor: Executor | None = None, progress: bool | None = None,
             engine: str = "auto") -> Evaluation:
    """Measure the error metrics of a unit.

    Parameters
    ----------
    subject : LibraryUnit or operator
        A :class:`LibraryUnit` recipe, or any picklable object with ``model(a, b)``,
        ``kind``, ``width`` and ``name`` (a :class:`~approx_units.verilog_eval.GateNetlist`).
    exhaustive : bool or None
        Evaluate every operand pair.  ``None`` means: exhaustively when the operands
        total at most :data:`DEFAULT_EXHAUSTIVE_BITS` bits and no ``samples`` or
        distribution is given, by Monte Carlo otherwise.
    samples : int or None
        Monte Carlo sample count (default 2^20 when sampling).
    distribution : Uniform, Histogram, Pairs or None
        The operand distribution; uniform if ``None``.
    seed : int
        Seed of the Monte Carlo batches; the same seed gives the same result.
    workers : int or None
        Processes of the local pool (default: every core); 1 runs in this process.
    executor : concurrent.futures.Executor or None
        Run the tasks there instead (for example a Dask client's executor).
    progress : bool or None
        Show a progress bar; by default only when stderr is a terminal.
    engine : str
        ``"compiled"``: the unit's graph compiled to native code with its error
        statistics (:mod:`approx_units.compiled`), on ``workers`` threads;
        ``"numpy"``: the numpy interpreter on the process pool (or ``executor``);
        ``"auto"`` (default): compiled when a C compiler is present, the run is
        local and has at least 2^22 pairs. Both give the same metrics.

    Raises
    ------
    CompilerUnavailable
        With ``engine="compiled"`` when there is no working C compiler.
    ValueError
        If exhaustive evaluation is asked for more than :data:`EXHAUSTIVE_LIMIT_BITS`
        operand bits, if ``samples`` is given together with ``exhaustive=True`` or is
        not positive, if ``workers`` is not positive or ``seed`` negative, or if the
        distribution does not fit the operands.
    """
    # Checked whatever the run's size: a small run that never starts a pool must not accept
    # what a large one would refuse.
    if workers is not None and workers < 1:
        raise ValueError(f"workers must be a positive number of processes, not {workers}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {seed}")
    started = time.perf_counter()
    operator = _operator(subject)
    distribution = distribution if distribution is not None else Uniform()
    a_width, b_width = _operand_widths(operator)
    signed = _is_signed(operator)
    ranges = (operand_range(a_width, signed), operand_range(b_width, signed))
    total_bits = a_width + b_width
    if samples is not None and samples <= 0:
        raise ValueError(f"samples must be a positive number of operand pairs, not {samples}")
    if exhaustive and (samples is not None or not isinstance(distribution, Uniform)):
        raise ValueError("an exhaustive evaluation takes neither a sample count nor a distribution")
    if exhaustive is None:
        exhaustive = (samples is None and isinstance(distribution, Uniform)
                      and total_bits <= DEFAULT_EXHAUSTIVE_BITS)
    if exhaustive and total_bits > EXHAUSTIVE_LIMIT_BITS:
        raise ValueError(f"exhaustive evaluation of {a_width}x{b_width}-bit operands means 2^{total_bits} "
                         f"pairs; the limit is 2^{EXHAUSTIVE_LIMIT_BITS} (16x16); use Monte Carlo "
                         f"sampling (--samples N) instead")

    if exhaustive:
        task_pairs = CHUNK_PAIRS
        if _is_traced(operator):
            task_pairs = min(TILED_TASK_PAIRS, max(CHUNK_PAIRS, (1 << total_bits) // _MIN_TASKS))
        rows = max(1, task_pairs // (ranges[1][1] - ranges[1][0]))
        tasks = [(_exhaustive_task, subject, lo, min(lo + rows, ranges[0][1]), ranges[1])
                 for lo in range(ranges[0][0], ranges[0][1], rows)]
        total = 1 << total_bits
    elif isinstance(distribution, Pairs):
        tasks = [(_pairs_task, subject, part_a, part_b)
                 for part_a, part_b in zip(np.array_split(distribution.a, min(BATCHES, distribution.a.size)),
                                           np.array_split(distribution.b, min(BATCHES, distribution.b.size)))]
        total = distribution.a.size
    else:
        total = samples if samples is not None else 1 << 20
        counts = [total // BATCHES + (index < total % BATCHES) for index in range(BATCHES)]
        seeds = np.random.SeedSequence(seed).spawn(BATCHES)
        tasks = [(_sampled_task, subject, distribution, child, count, ranges)
                 for child, count in zip(seeds, counts) if count > 0]

    evaluator = _choose_engine(operator, engine, executor, total)
    if evaluator is None:
        results = _run_tasks(tasks, total, workers, executor, progress)
    elif exhaustive:
        results = [_Accumulator(evaluator.range_stats(
            ranges[0], ranges[1], workers=workers,
            progress=sys.stderr.isatty() if progress is None else progress))]
    else:
        # Samples are drawn as the numpy engine draws them; the threads run the compiled kernel.
        from concurrent.futures import ThreadPoolExecutor
        compiled_operator = _CompiledOperator(evaluator, operator.kind)
        threads = ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1)
        try:
            results = _run_tasks([(function, compiled_operator, *arguments)
                                  for function, _, *arguments in tasks], total, workers, threads, progress)
        finally:
            threads.shutdown(wait=True, cancel_futures=True)
    pooled = results[0]
    for stats in results[1:]:
        pooled = pooled.merge(stats)
    kind = operator.kind
    metric_args = (kind, a_width, b_width, _frac_bits(operator))
    metric_values = pooled.metrics(*metric_args)
    ci95 = {}
    if not exhaustive and len(results) >= 2:
        per_batch = [stats.metrics(*metric_args) for stats in results]
        t = _t_quantile(len(results) - 1)
        for name, value in metric_values.items():
            if name in _EXTREMES or not isinstance(value, (int, float)) or value is None:
                continue
            values = np.array([batch.get(name) for batch in per_batch], dtype=np.float64)
            values = values[np.isfinite(values)]
            if values.size < 2 or not math.isfinite(value):
                continue
            half = t * values.std(ddof=1) / math.sqrt(values.size)
            low, high = _DOMAINS.get(name, (0.0 if name in _NON_NEGATIVE else -math.inf, math.inf))
            ci95[name] = [float(max(low, value - half)), float(min(high, value + half))]
    params = dict(getattr(operator, "params", {}) or {})
    return Evaluation(unit=getattr(operator, "name", str(subject)), kind=kind, width=a_width,
                      params=params, exhaustive=bool(exhaustive),
                      samples=total,
                      metrics=metric_values, ci95=ci95, distribution="all pairs" if exhaustive
                      else distribution.describe(), seconds=time.perf_counter() - started)


#: Two-sided 95 % quantiles of Student's t for 1..31 degrees of freedom.
_T_TABLE = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
            2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
            2.060, 2.056, 2.052, 2.048, 2.045, 2.042, 2.040)


def _t_quantile(degrees: int) -> float:
    """t(0.975, degrees); only Pairs with fewer than BATCHES pairs use fewer than 31."""
    return _T_TABLE[min(degrees, len(_T_TABLE)) - 1]


def _keep_freed_memory() -> None:
    """Worker initialiser: let glibc keep freed chunk arrays instead of unmapping them.

    Each chunk allocates dozens of multi-megabyte temporaries; by default glibc
    maps each one afresh and the kernel zeroes its pages, which costs about a third
    of a worker's CPU time in page faults.  Raising the mmap and trim thresholds
    makes the arrays reuse the same heap memory (a worker's heap then stays at its
    peak, a few hundred MB).  Elsewhere than glibc this does nothing.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
        libc.mallopt(M_MMAP_THRESHOLD, 1 << 28)
        libc.mallopt(M_TRIM_THRESHOLD, 1 << 30)
    except (OSError, AttributeError):
        pass


def _start_worker() -> None:
    """Initialiser of the evaluation's own process pool."""
    interrupts.ignore_interrupts()
    _keep_freed_memory()


def _run_tasks(tasks, total: int, workers, executor, progress) -> list:
    if progress is None:
        progress = sys.stderr.isatty()
    bar = tqdm(total=total, unit="pair", unit_scale=True, file=sys.stderr, disable=not progress,
               leave=False)
    results = [None] * len(tasks)
    try:
        if executor is None and (workers == 1 or total < _PARALLEL_THRESHOLD or (os.cpu_count() or 1) == 1):
            for index, (function, *arguments) in enumerate(tasks):
                stats, count = function(*arguments)
                results[index] = stats
                bar.update(count)
            return results
        own_pool = executor is None
        with artefacts.interrupts_deferred() as interrupt:
            pool = executor if executor is not None else ProcessPoolExecutor(max_workers=workers,
                                                                             initializer=_start_worker)
            try:
                with interrupts.interrupts_held():
                    futures = {pool.submit(function, *arguments): index
                               for index, (function, *arguments) in enumerate(tasks)}
                for future in interrupts.as_completed(futures, interrupt):
                    stats, count = future.result()
                    results[futures[future]] = stats
                    bar.update(count)
            finally:
                if own_pool:
                    pool.shutdown(cancel_futures=True)
        return results
    finally:
        bar.close()
