"""Cycles and whole-design measurement of explored assignments.

* :class:`CycleModel`: the search's cycles estimate.  Each kernel is compiled under the
  assignment (once per distinct assignment of its own sites), and its schedule (every
  block's II and length) is its key: one simulation per distinct schedule, on the
  arguments the kernel receives in the exact run (the representative input), gives the
  cycles of every assignment with that schedule.
* :func:`verify_point`: one assignment compiled, simulated on the arguments each kernel
  receives in the assignment's own Python run (hardware equal to that run bit for bit,
  cycles measured), and synthesised, placed and routed whole (Fmax the median over the
  seeds); ADP = LUT-eq x cycles / Fmax, as ``benchmarks/apps.py`` defines it.

The simulator is the caller's (``simulate(kernel, args) -> run`` with ``cycles`` and
``match``, e.g. :func:`sim.run`): :mod:`sim` sits above :mod:`hls` and is not imported here.
"""

from __future__ import annotations

import copy
import hashlib
import json
import statistics

from approx_units.synth import synthesize_kernel_seeds

from ..compiler import compile_kernel
from .space import ExploreError

__all__ = ["CycleModel", "kernel_calls", "schedule_key", "verify_point", "adp"]


def adp(lut_equivalents: float, cycles: int, fmax_mhz: float) -> float:
    """Area-delay product as ``benchmarks/apps.py`` defines it: LUT-eq x latency (cycles / Fmax, us)."""
    return lut_equivalents * cycles / fmax_mhz


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _plain(value):
    # A copy as the kernel received it: arrays (lists, numpy) as lists of int, scalars as int.
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return int(value)


class _Recorder:
    """``kernel`` as a chain's ``run`` calls it, keeping each call's arguments as the kernel received them."""

    def __init__(self, kernel, calls: list):
        self.kernel, self.calls, self.name = kernel, calls, kernel.name

    def __call__(self, *args, **kwargs):
        bound = self.kernel.golden_model().match(args, kwargs)
        self.calls.append((self.kernel.name, {name: _plain(value) for name, value in bound.items()}))
        return self.kernel(*args, **kwargs)


def kernel_calls(kernels, data, run) -> list[tuple[str, dict]]:
    """``(kernel name, arguments)`` of every kernel call of the Python run of ``kernels`` on ``data``
    (``run(kernels, data)`` for a chain; one call per argument dict for one kernel without ``run``)."""
    calls: list = []
    recorders = tuple(_Recorder(kernel, calls) for kernel in kernels)
    if run is not None:
        run(recorders, data)
    else:
        (recorder,) = recorders
        for arguments in data:
            recorder(**copy.deepcopy(arguments))
    return calls


def schedule_key(compiled) -> tuple:
    """What the cycles of a kernel on given arguments depend on: each block's II and length, and each
    overlapped loop's overlap."""
    blocks = tuple((scheduled.ii, scheduled.length) for scheduled in compiled.schedules.values())
    overlaps = tuple(sorted((name, repr(value)) for name, value in compiled.overlaps.items()))
    return blocks, overlaps


class CycleModel:
    """Estimated cycles of the assignments of ``space``: one simulation per distinct schedule.

    Parameters
    ----------
    space : hls.explore.space.Space
    data, run
        As :func:`hls.explore.explore` takes them.
    simulate : callable
        ``simulate(kernel, args)`` -> an object with ``cycles`` (:func:`sim.run`).
    cache : approx_units.synth.ResultCache
        Simulated cycles are kept here, keyed by the exact kernel's Verilog, the schedule and the arguments.
    progress : callable, optional
        ``progress(text)`` before each simulation.

    Attributes
    ----------
    calls : list of (str, dict)
        The exact run's kernel calls: the representative input of each kernel.
    simulations : int
        Simulations run (not answered by the cache) so far.
    """

    def __init__(self, space, data, run, simulate, cache, *, progress=None):
        self.space, self.simulate, self.cache = space, simulate, cache
        self.say = progress or (lambda text: None)
        try:
            self.calls = kernel_calls(space.kernels, data, run)
        except Exception as error:      # the user's run, on the exact kernels
            raise ExploreError(f"the exact run raised {type(error).__name__}: {' '.join(str(error).splitlines())}") \
                from None
        self._exact_verilog = {}
        self._by_assignment: dict = {}
        self._by_schedule: dict = {}
        self.simulations = 0

    def kernel_cycles(self, kernel, mapping: dict) -> int:
        """Cycles of ``kernel`` under its ``approx=`` ``mapping`` over its calls in the exact run."""
        assignment = (kernel.name, tuple(sorted((key, unit.label) for key, unit in mapping.items())))
        if assignment in self._by_assignment:
            return self._by_assignment[assignment]
        configured = kernel.with_approx(mapping)
        compiled = compile_kernel(configured)
        key = (kernel.name, schedule_key(compiled))
        if key not in self._by_schedule:
            if kernel.name not in self._exact_verilog:
                self._exact_verilog[kernel.name] = compile_kernel(kernel).verilog()
            arguments = [args for name, args in self.calls if name == kernel.name]
            stored = "explore-cycles-" + _digest([self._exact_verilog[kernel.name], key[1], arguments])
            cached = self.cache.get(stored)
            if cached is None:
                self.say(f"simulate {kernel.name} (schedule {len(self._by_schedule) + 1})")
                cycles = sum(self.simulate(configured, copy.deepcopy(args)).cycles for args in arguments)
                self.simulations += 1
                self.cache.put(stored, {"cycles": cycles})
            else:
                cycles = cached["cycles"]
            self._by_schedule[key] = cycles
        self._by_assignment[assignment] = self._by_schedule[key]
        return self._by_schedule[key]

    def cycles(self, selection) -> int:
        """Estimated cycles of the whole program under ``selection``."""
        mapping = self.space.mapping(selection)
        return sum(self.kernel_cycles(kernel, mapping[kernel.name]) for kernel in self.space.kernels)


def verify_point(space, selection, data, run, simulate, *, seeds=(1, 2, 3), cache=None, progress=None) -> dict:
    """Measure one assignment whole.

    Every kernel is compiled with its ``approx=`` mapping; each of its calls in the
    assignment's Python run is simulated (``simulate(kernel, args)``, which compares the
    hardware with the Python run), and the kernel is synthesised, placed and routed with
    each seed of ``seeds``.

    Returns
    -------
    dict
        ``lut_equivalents``, ``ffs`` (sums over the kernels), ``fmax_mhz`` (the slowest
        kernel's median), ``cycles`` (summed over every call), ``latency_us``, ``adp``,
        ``match`` (every call's hardware equal to its Python run) and ``kernels`` (each
        kernel's figures, Fmax of every seed).

    Raises
    ------
    ExploreError
        The assignment's Python run raises.
    """
    say = progress or (lambda text: None)
    mapping = space.mapping(selection)
    configured = tuple(kernel.with_approx(mapping[kernel.name]) for kernel in space.kernels)
    try:
        calls = kernel_calls(configured, data, run)
    except Exception as error:      # the user's run, on this assignment's kernels
        raise ExploreError(f"the run of an assignment raised {type(error).__name__}: "
                           f"{' '.join(str(error).splitlines())}") from None
    kernels = []
    for kernel in configured:
        compiled = compile_kernel(kernel)
        verilog = compiled.verilog()
        arguments = [args for name, args in calls if name == kernel.name]
        cycles, match = 0, True
        for index, args in enumerate(arguments):
            say(f"simulate {kernel.name} call {index + 1}/{len(arguments)}")
            stored = "explore-sim-" + _digest([verilog, args])
            measured = cache.get(stored) if cache is not None else None
            if measured is None:
                outcome = simulate(kernel, copy.deepcopy(args))
                measured = {"cycles": outcome.cycles, "match": bool(outcome.match)}
                if cache is not None:
                    cache.put(stored, measured)
            cycles += measured["cycles"]
            match = match and measured["match"]
        say(f"synthesise {kernel.name}")
        placed = synthesize_kernel_seeds(verilog, compiled.ir.name, clock_mhz=kernel.clock_mhz, seeds=tuple(seeds),
                                         cache=cache)
        kernels.append({"kernel": kernel.name, "lut_equivalents": placed[0].lut_equivalents, "ffs": placed[0].ffs,
                        "fmax_mhz": statistics.median(p.fmax_mhz for p in placed),
                        "fmax_mhz_seeds": [p.fmax_mhz for p in placed], "cycles": cycles, "match": match,
                        "calls": len(arguments)})
    lut_equivalents = sum(k["lut_equivalents"] for k in kernels)
    fmax = min(k["fmax_mhz"] for k in kernels)
    cycles = sum(k["cycles"] for k in kernels)
    return {"lut_equivalents": lut_equivalents, "ffs": sum(k["ffs"] for k in kernels), "fmax_mhz": fmax,
            "cycles": cycles, "latency_us": cycles / fmax, "adp": adp(lut_equivalents, cycles, fmax),
            "match": all(k["match"] for k in kernels), "kernels": kernels}
