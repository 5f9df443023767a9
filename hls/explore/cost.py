"""Estimated cost of one assignment: each operation as the compiler builds it, plus each kernel's exact
remainder.

* An operation's cost at one choice is measured on its *probe*: a kernel of one statement,
  ``return a OP b`` on parameters of the operation's operand shapes, compiled for the kernel's
  target with that choice (:func:`probe_kernel`), so its hardware is what the backend builds
  for the operation: the unit with its sign handling and clamp, pipelined to the clock, or for
  exact arithmetic the compiler's own multiplier (synthesis' ``*``, digit products or the
  library's multiplier) or divider.  The probe's LUT equivalents (LUT4 + 2 x CCU2C,
  ``synth_ecp5 -nodsp -nowidelut``, cached in :class:`approx_units.synth.ResultCache`) less
  those of its *base* (``return a``: the same handshake and result register, no operation)
  are the operation's cost.
* A kernel's *remainder* is its exact synthesis (:func:`approx_units.synth.synthesize_kernel_seeds`,
  the flow of ``benchmarks/apps.py``) less the cost of its operations when exact, once per copy.
* The estimate of an assignment is the sum of the remainders and of every copy's cost.

Whole-kernel synthesis also trims an operation's result bits that nothing reads and the
logic around the operation (narrowed registers, the schedule's delay lines) changes with the
unit's latency; ``explore(verify=True)`` measures each front point whole and reports the error;
``benchmarks/explore_cost.py`` prints the error's distribution on uniform configurations.
"""

from __future__ import annotations

import importlib.util
import statistics
import tempfile
from pathlib import Path

from amaranth.hdl import Shape, Signal

from approx_units.synth import synthesize_kernel_seeds, synthesize_verilog

from ..compiler import compile_kernel
from ..kernel import Kernel
from ..unit_operators import UnitWidthError, approx_unit

__all__ = ["CostModel", "probe_kernel", "probe_source", "OPERATORS", "error_distribution"]

#: The Python operator of each kind of approximable operation.
OPERATORS = {"mul": "*", "div": "//", "add": "+"}


def error_distribution(errors) -> dict:
    """The distribution of the estimate's errors ``errors`` (each in % of the measured figure):
    ``points``, ``within_10pct`` (how many have ``|error| <= 10``), ``share_within_10pct`` (0..1),
    ``median_pct`` (signed), ``median_abs_pct`` and ``worst_pct`` (the largest ``|error|``, signed);
    the last four ``None`` for no point."""
    errors = [float(error) for error in errors]
    if not errors:
        return {"points": 0, "within_10pct": 0, "share_within_10pct": None, "median_pct": None,
                "median_abs_pct": None, "worst_pct": None}
    within = sum(abs(error) <= 10 for error in errors)
    return {"points": len(errors), "within_10pct": within, "share_within_10pct": round(within / len(errors), 4),
            "median_pct": round(statistics.median(errors), 2),
            "median_abs_pct": round(statistics.median(abs(error) for error in errors), 2),
            "worst_pct": round(max(errors, key=lambda error: (abs(error), error)), 2)}


def _shape_text(shape: Shape) -> str:
    return f"{'signed' if shape.signed else 'unsigned'}({shape.width})"


def _result_shape(kind: str, a: Shape, b: Shape) -> Shape:
    x, y = Signal(a), Signal(b)
    return {"mul": lambda: x * y, "div": lambda: x // y, "add": lambda: x + y}[kind]().shape()


def probe_source(kind: str | None, a: Shape, b: Shape, result_kind: str | None = None) -> str:
    """The source of the probe kernel ``probe(a, b) -> result: return a OP b`` (``kind`` ``None``:
    the base, ``return a``, of the result shape of ``result_kind``)."""
    result = _result_shape(kind or result_kind, a, b)
    body = f"a {OPERATORS[kind]} b" if kind else "a"
    return ("from amaranth import signed, unsigned\n\n\n"
            f"def probe(a: {_shape_text(a)}, b: {_shape_text(b)}) -> {_shape_text(result)}:\n"
            f"    return {body}\n")


def probe_kernel(kind: str | None, a: Shape, b: Shape, target, unit=None, *, result_kind: str | None = None):
    """The probe of one operation (:func:`probe_source`) compiled for ``target``, its operation
    replaced by ``unit`` (an :class:`hls.approx.UnitChoice`, or ``None`` for exact).

    Returns
    -------
    hls.compiler.CompiledKernel
        Compiled while its source file exists (the front end reads it).
    """
    with tempfile.TemporaryDirectory(prefix="axhls-probe-") as folder:
        path = Path(folder, "probe.py")
        path.write_text(probe_source(kind, a, b, result_kind))
        spec = importlib.util.spec_from_file_location("_axhls_cost_probe", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        kernel = Kernel(module.probe, target=target)
        if unit is not None:
            (operation,) = kernel.analyze().operations
            kernel = kernel.with_approx({operation.key: unit})
        compiled = compile_kernel(kernel)
        compiled.verilog()          # generated (and kept) while the file is there
        return compiled


class CostModel:
    """LUT-equivalent estimates of the assignments of ``space``.

    Parameters
    ----------
    space : hls.explore.space.Space
    cache : approx_units.synth.ResultCache
    progress : callable, optional
        ``progress(text)`` before each probe and kernel is synthesised (or read from the cache).
    seeds : sequence of int
        Placement seeds of each kernel's exact synthesis (its Fmax is their median).

    Attributes
    ----------
    exact : dict of str to dict
        Per kernel: ``lut_equivalents``, ``ffs``, ``fmax_mhz`` of the exact kernel.
    remainders : dict of str to float
        Per kernel: the exact LUT equivalents less its operations' exact cost.
    costs : list of list of float
        ``costs[site][choice]``: LUT equivalents of all the site's copies at that choice.
    """

    def __init__(self, space, cache, *, progress=None, seeds=(1,)):
        self.space, self.cache = space, cache
        self._probes: dict = {}
        say = progress or (lambda text: None)
        targets = {kernel.name: kernel.target for kernel in space.kernels}

        def synthesised(compiled) -> float:
            return synthesize_verilog(compiled.verilog(), compiled.ir.name, "ecp5", timing=False,
                                      cache=cache).lut_equivalents

        def probe_cost(kind, unit, shapes, target) -> float | None:
            if unit is not None:
                try:
                    approx_unit(unit, *shapes)
                except UnitWidthError:
                    return None
            key = (kind, unit, shapes, target)
            if key not in self._probes:
                base_key = (None, kind, shapes, target)
                if base_key not in self._probes:
                    self._probes[base_key] = synthesised(probe_kernel(None, *shapes, target, result_kind=kind))
                say(f"synthesise {unit.label if unit else 'exact ' + kind} at {shapes[0].width}x{shapes[1].width} bits")
                self._probes[key] = synthesised(probe_kernel(kind, *shapes, target, unit)) - self._probes[base_key]
            return self._probes[key]

        self.costs = []
        exact_of_kernel = {kernel.name: 0.0 for kernel in space.kernels}
        for site in space.sites:
            kind, target = site.operation.kind, targets[site.kernel]
            exact_by_shape = {shapes: probe_cost(kind, None, shapes, target) for shapes, _ in site.copies}
            row = [sum(count * exact_by_shape[shapes] for shapes, count in site.copies)]
            for unit in site.units:
                total = 0.0
                for shapes, count in site.copies:
                    value = probe_cost(kind, unit, shapes, target)
                    total += count * (exact_by_shape[shapes] if value is None else value)
                row.append(total)
            self.costs.append(row)
            exact_of_kernel[site.kernel] += row[0]
        self.exact, self.remainders = {}, {}
        for kernel in space.kernels:
            compiled = compile_kernel(kernel)
            say(f"synthesise the exact {kernel.name}")
            placed = synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=kernel.clock_mhz,
                                             seeds=tuple(seeds), cache=cache)
            self.exact[kernel.name] = {"lut_equivalents": placed[0].lut_equivalents, "ffs": placed[0].ffs,
                                       "fmax_mhz": statistics.median(p.fmax_mhz for p in placed)}
            self.remainders[kernel.name] = placed[0].lut_equivalents - exact_of_kernel[kernel.name]
        self._sites_of = {kernel.name: [i for i, site in enumerate(space.sites) if site.kernel == kernel.name]
                          for kernel in space.kernels}

    def saving(self, selection) -> dict[str, float]:
        """Per kernel: the probes' LUT equivalents saved against exact under ``selection``."""
        return {name: sum(self.costs[i][0] - self.costs[i][int(selection[i])] for i in sites)
                for name, sites in self._sites_of.items()}

    def kernel_estimates(self, selection) -> dict[str, float]:
        """Estimated LUT equivalents of each kernel under ``selection``."""
        saving = self.saving(selection)
        return {name: self.exact[name]["lut_equivalents"] - saving[name]
                for name in self._sites_of}

    def estimate(self, selection) -> float:
        """Estimated LUT equivalents of the kernels under ``selection``."""
        return sum(self.kernel_estimates(selection).values())
