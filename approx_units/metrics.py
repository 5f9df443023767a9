"""Error metrics of approximate units: the one place where they are defined.

Definitions (``e = approx - exact``, means over all evaluated input pairs):

* ER: fraction of pairs with ``e != 0``.
* MED (= MAE): mean ``|e|``.  NMED: MED / largest exact output, which is
  ``(2**n - 1) * (2**m - 1)`` for an n x m multiplier, ``2**(n+1) - 2`` for an
  n-bit adder and ``(2**n - 1) * 2**f`` for an n-bit divider with f fraction bits.
* MRED: mean of ``|e| / |exact|`` over pairs whose exact result is non-zero
  (as EvoApproxLib does); WCRE: the maximum of the same.
* WCE: maximum ``|e|``.  MSE: mean ``e**2``.
* bias: mean ``e``; relative bias: mean ``e / |exact|`` over non-zero exact.
* error variance: ``MSE - bias**2``.
* MAE% and WCE%: MED and WCE divided by ``2**(n+m)`` (multipliers),
  ``2**(n+1)`` (adders) or ``2**(n+f)`` (dividers), in percent (EvoApproxLib's
  normalisation).

Dividers are also measured against the real-valued quotient ``a / b``
(scaled by ``2**f``) with :meth:`ErrorStats.of_quotient`; pairs with
``b == 0`` are excluded and counted in ``excluded``.

Everything is built on :class:`ErrorStats`, a mergeable accumulator of
partial sums: evaluate chunks independently (in parallel if you like), add
the statistics together, then call :meth:`ErrorStats.metrics`. Sums are
float64 and counts Python ints, so 2**32 pairs do not overflow.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

__all__ = ["ErrorStats", "accumulate", "exact_results", "max_exact_output", "error_scale", "er", "med", "nmed", "mred",
           "wce", "wcre", "mse", "bias", "relative_bias", "error_variance", "mae_pct",
           "wce_pct", "METRIC_NAMES", "KIND_NOUNS"]

#: Each kind of unit as a sentence names it: "unit 'loa' is an adder, not a multiplier".
KIND_NOUNS = {"add": "an adder", "mul": "a multiplier", "div": "a divider"}

#: Keys of :meth:`ErrorStats.metrics`.
METRIC_NAMES = ("er", "med", "nmed", "mred", "wce", "wcre", "mse", "bias", "relative_bias",
                "error_variance", "mae_pct", "wce_pct")


def _errors(exact, approx):
    """Exact integer errors as int64 (valid while |approx - exact| < 2**63)."""
    exact, approx = np.asarray(exact), np.asarray(approx)
    if exact.dtype.kind == "f" or approx.dtype.kind == "f":
        raise TypeError("use ErrorStats.of_quotient for real-valued references")
    # Wrapping uint64 subtraction reinterpreted as int64 is exact for any
    # int64/uint64 inputs as long as the true difference fits in int64.
    return np.subtract(approx.astype(np.uint64, copy=False),
                       exact.astype(np.uint64, copy=False)).view(np.int64)


def _squared_and_relative_sums(error, magnitude) -> dict:
    """``sum_sq`` and the relative-error fields of :class:`ErrorStats`.

    ``error`` and ``magnitude`` (``|exact|``) are 1-D float64 arrays of the same
    size, both fresh temporaries: they are overwritten.
    """
    # Plain ufunc passes rather than np.dot: a multithreaded BLAS costs far more
    # than it saves on cache-sized arrays, and more still when the cores are busy.
    zero = magnitude == 0
    zeros = int(np.count_nonzero(zero))
    if zeros:
        # e / inf == 0: pairs whose exact result is zero add nothing to the relative
        # sums, which leaves them out without compacting the arrays.
        np.copyto(magnitude, np.inf, where=zero)
    relative = np.divide(error, magnitude, out=magnitude)
    sum_signed_rel = float(relative.sum())
    sum_sq = float(np.multiply(error, error, out=error).sum())
    sum_rel_sq = float(np.multiply(relative, relative, out=error).sum())
    np.abs(relative, out=relative)
    return {"sum_sq": sum_sq, "nonzero": int(error.size) - zeros, "sum_rel": float(relative.sum()),
            "sum_rel_sq": sum_rel_sq, "sum_signed_rel": sum_signed_rel,
            "max_rel": float(relative.max()) if relative.size else 0.0}


@dataclass
class ErrorStats:
    """Mergeable partial sums of an error distribution.

    Attributes
    ----------
    count : int
        Evaluated pairs.
    errors : int
        Pairs with a non-zero error.
    sum_abs, sum_err, sum_sq : float
        Sums of ``|e|``, ``e`` and ``e**2``.
    max_abs : int or float
        Largest ``|e|`` (an exact int for integer references).
    nonzero : int
        Pairs whose exact result is non-zero (the MRED population).
    sum_rel, sum_rel_sq, sum_signed_rel : float
        Sums of ``|e|/|exact|``, its square, and ``e/|exact|`` over that population.
    max_rel : float
        Largest ``|e|/|exact|``.
    excluded : int
        Pairs left out (division by zero for :meth:`of_quotient`).
    frac_bits : int or None
        A divider's quotient fraction bits, recorded by :func:`accumulate` so
        that :meth:`metrics` normalises dividers correctly; not a sum.
    """
    count: int = 0
    errors: int = 0
    sum_abs: float = 0.0
    sum_err: float = 0.0
    sum_sq: float = 0.0
    max_abs: int | float = 0
    nonzero: int = 0
    sum_rel: float = 0.0
    sum_rel_sq: float = 0.0
    sum_signed_rel: float = 0.0
    max_rel: float = 0.0
    excluded: int = 0
    frac_bits: int | None = None

    @classmethod
    def of(cls, exact, approx) -> "ErrorStats":
        """Statistics of integer results ``approx`` against integer ``exact`` (same shape)."""
        exact = np.asarray(exact)
        error = _errors(exact, approx).ravel()
        count = int(error.size)
        if count == 0:
            return cls()
        abs_error = np.abs(error)
        # abs(-2**63) wraps to -2**63, which reads as 2**63 unsigned: the overflow shows as the maximum.
        max_abs = int(abs_error.view(np.uint64).max())
        if max_abs >= 1 << 63:
            raise OverflowError("an error does not fit in 64 bits")
        if max_abs * count < 1 << 63:
            # Exact integer sums, rounded once (no int64 overflow is possible).
            sum_abs, sum_err = float(int(abs_error.sum())), float(int(error.sum()))
        else:
            sum_abs, sum_err = float(abs_error.sum(dtype=np.float64)), float(error.sum(dtype=np.float64))
        exact = exact.ravel()
        magnitude = exact.astype(np.float64)
        if exact.dtype.kind != "u":
            np.abs(magnitude, out=magnitude)
        return cls(count=count, errors=int(np.count_nonzero(error)), sum_abs=sum_abs, sum_err=sum_err,
                   max_abs=max_abs, **_squared_and_relative_sums(error.astype(np.float64), magnitude))

    @classmethod
    def of_quotient(cls, a, b, quotient, *, frac_bits: int = 0) -> "ErrorStats":
        """Statistics of a divider's ``quotient`` against the real ``a / b * 2**frac_bits``.

        Pairs with ``b == 0`` are excluded and counted in :attr:`excluded`.
        """
        a, b, quotient = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(quotient))
        keep = b != 0
        real = a[keep].astype(np.float64) / b[keep].astype(np.float64) * float(2 ** frac_bits)
        error = quotient[keep].astype(np.float64) - real
        abs_error = np.abs(error)
        return cls(count=int(error.size), errors=int(np.count_nonzero(error)),
                   sum_abs=float(abs_error.sum()), sum_err=float(error.sum()),
                   max_abs=float(abs_error.max()) if error.size else 0.0,
                   excluded=int(keep.size - np.count_nonzero(keep)),
                   **_squared_and_relative_sums(error, np.abs(real, out=real)))

    def merge(self, other: "ErrorStats") -> "ErrorStats":
        """Statistics of the union of both populations."""
        x, y = self.frac_bits, other.frac_bits
        if x is not None and y is not None and x != y:
            raise ValueError(f"cannot merge statistics of quotients with {x} and {y} fraction bits")
        merged = {name: max(getattr(self, name), getattr(other, name)) for name in _MAXIMA}
        merged.update((name, getattr(self, name) + getattr(other, name)) for name in _SUMS)
        return ErrorStats(frac_bits=x if x is not None else y, **merged)

    __add__ = merge

    def metrics(self, kind: str, width: int, width_b: int | None = None,
                frac_bits: int | None = None) -> dict:
        """All metrics of :data:`METRIC_NAMES` as a dict (see the module docstring).

        ``er``, ``mred`` and ``wcre`` are fractions; ``mae_pct`` and ``wce_pct`` percentages.
        ``frac_bits`` (dividers) defaults to the value :func:`accumulate` recorded, else 0.

        Raises
        ------
        ValueError
            If no pair was evaluated, or ``kind`` is not ``"add"``, ``"mul"`` or ``"div"``.
        """
        if frac_bits is None:
            frac_bits = self.frac_bits or 0
        scale = error_scale(kind, width, width_b, frac_bits)
        return {
            "er": self.er,
            "med": self.med,
            "nmed": self.med / max_exact_output(kind, width, width_b, frac_bits),
            "mred": self.mred,
            "wce": self.max_abs,
            "wcre": self.max_rel,
            "mse": self.mse,
            "bias": self.bias,
            "relative_bias": self.relative_bias,
            "error_variance": self.error_variance,
            "mae_pct": 100.0 * self.med / scale,
            "wce_pct": 100.0 * float(self.max_abs) / scale,
        }

    # Metrics that need no normalisation.

    def _count(self):
        if self.count == 0:
            raise ValueError("no input pairs were evaluated")
        return self.count

    @property
    def er(self) -> float:
        return self.errors / self._count()

    @property
    def med(self) -> float:
        return self.sum_abs / self._count()

    @property
    def mse(self) -> float:
        return self.sum_sq / self._count()

    @property
    def bias(self) -> float:
        return self.sum_err / self._count()

    @property
    def error_variance(self) -> float:
        return max(0.0, self.mse - self.bias ** 2)

    @property
    def mred(self) -> float:
        self._count()
        return self.sum_rel / self.nonzero if self.nonzero else 0.0

    @property
    def relative_bias(self) -> float:
        self._count()
        return self.sum_signed_rel / self.nonzero if self.nonzero else 0.0


#: The fields :meth:`ErrorStats.merge` takes the maximum of, and those it adds.
_MAXIMA = tuple(f.name for f in fields(ErrorStats) if f.name.startswith("max_"))
_SUMS = tuple(f.name for f in fields(ErrorStats) if f.name not in _MAXIMA and f.name != "frac_bits")


def exact_results(kind: str, a, b, *, frac_bits: int = 0) -> np.ndarray:
    """The exact results an ``add``, ``mul`` or ``div`` unit approximates.

    Adders: ``a + b``; multipliers: ``a * b``; dividers: ``a * 2**frac_bits / b``
    rounded towards zero (all ones where ``b == 0``, as the dividers do).
    Unsigned operands give ``uint64``, signed (negative-capable dtype with a
    negative value) ``int64``.
    """
    _check_kind(kind)
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    signed = bool((a.size and a.min() < 0) or (b.size and b.min() < 0))
    if kind == "add":
        return a.astype(np.int64) + b.astype(np.int64)
    if kind == "mul":
        if signed:
            return a.astype(np.int64) * b.astype(np.int64)
        return a.astype(np.uint64) * b.astype(np.uint64)
    magnitude_a = np.abs(a.astype(np.int64)).astype(np.uint64)
    magnitude_b = np.abs(b.astype(np.int64)).astype(np.uint64)
    safe_b = np.where(magnitude_b == 0, np.uint64(1), magnitude_b)
    quotient = (magnitude_a << np.uint64(frac_bits)) // safe_b
    if not signed:
        return np.where(magnitude_b == 0, np.iinfo(np.uint64).max, quotient)
    negative = (a < 0) != (b < 0)
    quotient = quotient.astype(np.int64)
    return np.where(magnitude_b == 0, -1, np.where(negative, -quotient, quotient))


def accumulate(unit, a, b) -> ErrorStats:
    """:class:`ErrorStats` of ``unit.model(a, b)`` against :func:`exact_results`.

    ``unit`` needs ``kind``, ``model`` and, for dividers, ``params["frac_bits"]``
    (0 when absent). Pairs with ``b == 0`` are excluded from a divider's
    statistics and counted in :attr:`ErrorStats.excluded`.
    """
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    approx = np.asarray(unit.model(a, b))
    if unit.kind != "div":
        return ErrorStats.of(exact_results(unit.kind, a, b), approx)
    frac_bits = int((getattr(unit, "params", None) or {}).get("frac_bits", 0))
    keep = b != 0
    exact = exact_results("div", a[keep], b[keep], frac_bits=frac_bits)
    stats = ErrorStats.of(exact, approx[keep])
    stats.excluded = int((~keep).sum())
    stats.frac_bits = frac_bits
    return stats


def _check_kind(kind):
    if kind not in ("add", "mul", "div"):
        raise ValueError(f"kind must be 'add', 'mul' or 'div', not {kind!r}")


def max_exact_output(kind: str, width: int, width_b: int | None = None, frac_bits: int = 0) -> int:
    """The NMED denominator: the largest exact result of an unsigned unit."""
    _check_kind(kind)
    width_b = width if width_b is None else width_b
    if kind == "mul":
        return ((1 << width) - 1) * ((1 << width_b) - 1)
    if kind == "add":
        return (1 << (width + 1)) - 2
    return ((1 << width) - 1) << frac_bits


def error_scale(kind: str, width: int, width_b: int | None = None, frac_bits: int = 0) -> int:
    """The MAE% / WCE% denominator (EvoApproxLib): ``2**(n+m)``, ``2**(n+1)`` or ``2**(n+f)``."""
    _check_kind(kind)
    width_b = width if width_b is None else width_b
    if kind == "mul":
        return 1 << (width + width_b)
    if kind == "add":
        return 1 << (width + 1)
    return 1 << (width + frac_bits)


# Thin vectorised functions over (exact, approx) arrays.

def er(exact, approx) -> float:
    """Error rate: fraction of pairs with any error."""
    return ErrorStats.of(exact, approx).er


def med(exact, approx) -> float:
    """Mean error distance, mean ``|approx - exact|``."""
    return ErrorStats.of(exact, approx).med


def nmed(exact, approx, *, kind: str, width: int, width_b: int | None = None,
         frac_bits: int = 0) -> float:
    """MED normalised by :func:`max_exact_output`."""
    return ErrorStats.of(exact, approx).metrics(kind, width, width_b, frac_bits)["nmed"]


def mred(exact, approx) -> float:
    """Mean relative error distance over pairs with non-zero exact result."""
    return ErrorStats.of(exact, approx).mred


def wce(exact, approx) -> int:
    """Worst-case (largest) absolute error."""
    return ErrorStats.of(exact, approx).max_abs


def wcre(exact, approx) -> float:
    """Worst-case relative error over pairs with non-zero exact result."""
    return ErrorStats.of(exact, approx).max_rel


def mse(exact, approx) -> float:
    """Mean squared error."""
    return ErrorStats.of(exact, approx).mse


def bias(exact, approx) -> float:
    """Mean signed error ``approx - exact``."""
    return ErrorStats.of(exact, approx).bias


def relative_bias(exact, approx) -> float:
    """Mean of ``(approx - exact) / |exact|`` over pairs with non-zero exact result."""
    return ErrorStats.of(exact, approx).relative_bias


def error_variance(exact, approx) -> float:
    """Variance of the signed error."""
    return ErrorStats.of(exact, approx).error_variance


def mae_pct(exact, approx, *, kind: str, width: int, width_b: int | None = None,
            frac_bits: int = 0) -> float:
    """MAE as a percentage of :func:`error_scale`."""
    return ErrorStats.of(exact, approx).metrics(kind, width, width_b, frac_bits)["mae_pct"]


def wce_pct(exact, approx, *, kind: str, width: int, width_b: int | None = None,
            frac_bits: int = 0) -> float:
    """WCE as a percentage of :func:`error_scale`."""
    return ErrorStats.of(exact, approx).metrics(kind, width, width_b, frac_bits)["wce_pct"]
