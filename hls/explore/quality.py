"""Quality of one assignment: the compiled golden model (:class:`hls.golden.CompiledModel` with every
candidate unit inlined) on the user's data, scored by the user's quality function.

Calling conventions (``docs/explore.md``)
-----------------------------------------
* ``data``: for one kernel, a list of argument dicts (one kernel call each; the
  kernel's arrays are copied for every call); for a chain, whatever ``run`` takes.
* ``run(kernels, data)``: the chain's program (``examples/apps/*.run``); it calls the
  kernels it is given, in the order given, as ``kernel(**arguments)``, and returns its
  output.  Without ``run`` (one kernel) the output is the list of
  ``{"return": value, ARRAY: [...], ...}`` of the calls.
* ``quality(reference, output, data) -> dict``: metrics of ``output`` against the
  exact run's ``reference`` (``examples/apps/*.quality``); the values the bound and
  the objective name must be numbers.
"""

from __future__ import annotations

import copy
import math
import operator
import re
from dataclasses import dataclass

from ..golden import CompiledModel
from .space import ExploreError

__all__ = ["Bound", "parse_bound", "QualityModel"]

_OPERATORS = {">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt}


@dataclass(frozen=True)
class Bound:
    """``metric >= value`` (higher is better) or ``metric <= value`` (lower is better)."""

    metric: str
    relation: str
    value: float

    @property
    def maximise(self) -> bool:
        return self.relation in (">=", ">")

    def holds(self, quality: float) -> bool:
        return _OPERATORS[self.relation](quality, self.value)

    def violation(self, quality: float) -> float:
        """How far ``quality`` is on the wrong side of the bound (0 or less: it holds)."""
        return self.value - quality if self.maximise else quality - self.value

    def __str__(self) -> str:
        return f"{self.metric}{self.relation}{self.value:g}"


def parse_bound(text: str) -> Bound:
    """``"psnr_db>=35"`` -> :class:`Bound`.

    Raises
    ------
    ExploreError
        Not METRIC>=NUMBER or METRIC<=NUMBER (or > / <).
    """
    match = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|>|<)\s*([-+0-9.eE]+)\s*", text or "")
    try:
        value = float(match.group(3)) if match else math.nan
    except ValueError:
        value = math.nan
    if match is None or not math.isfinite(value):
        raise ExploreError(f"--bound {text!r}: expected METRIC>=NUMBER or METRIC<=NUMBER, e.g. 'psnr_db>=35'")
    return Bound(match.group(1), match.group(2), value)


class _Switched:
    """A kernel as a chain's ``run`` calls it: its compiled model at one selection."""

    def __init__(self, model: CompiledModel, selection):
        self.model, self.selection = model, selection
        self.name = model.name

    def __call__(self, *args, **kwargs):
        return self.model.call(args, kwargs, selection=self.selection)


class QualityModel:
    """The metrics of each assignment of ``space``, from the compiled runs.

    Parameters
    ----------
    space : hls.explore.space.Space
    data : object
        See the module documentation.
    quality : callable
        ``quality(reference, output, data) -> dict``.
    run : callable, optional
        ``run(kernels, data) -> output``; required for a chain.
    names : tuple of str
        What names ``data``, ``quality`` and ``run`` in messages (``--data image:default_input``).

    Attributes
    ----------
    models : list of hls.golden.CompiledModel
        One per kernel, every site's units inlined.
    reference : object
        The exact run's output.

    Raises
    ------
    ExploreError
        A chain without ``run``, data of the wrong form, or ``run`` / ``quality`` raising.
    """

    def __init__(self, space, data, quality, run=None, *, names=("data", "quality", "run")):
        self.space, self.data, self.quality_function, self.run_function = space, data, quality, run
        self.names = dict(zip(("data", "quality", "run"), names))
        if run is None and len(space.kernels) != 1:
            raise ExploreError(f"a chain of {len(space.kernels)} kernels needs a run function (--run MODULE:FUNC)")
        if run is None:
            if not isinstance(data, (list, tuple)) or not data or not all(isinstance(a, dict) for a in data):
                raise ExploreError(f"{self.names['data']}: for one kernel, give a non-empty list of argument dicts "
                                   f"(one kernel call each), not {type(data).__name__}")
        self.models = []
        self._slices = []
        start = 0
        for kernel in space.kernels:
            choices = {site.key: list(site.units) for site in space.sites if site.kernel == kernel.name}
            self.models.append(CompiledModel(kernel, choices=choices))
            self._slices.append(slice(start, start + len(choices)))
            start += len(choices)
        self.reference = self.output([0] * len(space.sites))

    @property
    def fallback_reasons(self) -> list[str]:
        """Why a kernel runs its Python run instead of compiled code (empty when all are compiled)."""
        return [f"{model.name}: {model.fallback_reason}" for model in self.models if model.fallback_reason]

    def output(self, selection):
        """The program's output under ``selection`` (one int per site)."""
        switched = [_Switched(model, list(selection[part])) for model, part in zip(self.models, self._slices)]
        try:
            if self.run_function is not None:
                return self.run_function(tuple(switched), self.data)
            (kernel,) = switched
            outputs = []
            for arguments in self.data:
                arguments = copy.deepcopy(arguments)
                result = kernel(**arguments)
                outputs.append({"return": result, **{name: list(value) for name, value in arguments.items()
                                                     if isinstance(value, list)}})
            return outputs
        except ExploreError:
            raise
        except Exception as error:
            what = self.names["run"] if self.run_function is not None else self.names["data"]
            raise ExploreError(f"{what}: the run raised {type(error).__name__}: "
                               f"{' '.join(str(error).splitlines())}") from None

    def metrics(self, selection) -> dict:
        """``quality(reference, output, data)`` of ``selection``; its numbers as floats."""
        output = self.output(selection)
        try:
            metrics = self.quality_function(self.reference, output, self.data)
        except Exception as error:
            raise ExploreError(f"{self.names['quality']}: raised {type(error).__name__}: "
                               f"{' '.join(str(error).splitlines())}") from None
        if not isinstance(metrics, dict):
            raise ExploreError(f"{self.names['quality']}: must return a dict of metrics, not {type(metrics).__name__}")
        return {str(key): float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
                for key, value in metrics.items()}

    def check_metric(self, metrics: dict, metric: str) -> None:
        """Raise :class:`ExploreError` unless ``metrics`` has ``metric`` as a number."""
        value = metrics.get(metric)
        if not isinstance(value, float):
            numbers = sorted(key for key, v in metrics.items() if isinstance(v, float))
            what = "returns no metric" if metric not in metrics else "returns a non-number for"
            raise ExploreError(f"{self.names['quality']} {what} {metric!r}; its numeric metrics: "
                               f"{', '.join(numbers) or '(none)'}")
