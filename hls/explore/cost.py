"""Estimated cost of one assignment: each operation's unit, synthesised alone at its operands' widths, plus
each kernel's exact remainder.

* An operation's cost is the LUT equivalents (LUT4 + 2 x CCU2C, :mod:`approx_units.synth`) of the
  library unit (:func:`hls.unit_operators.approx_unit`'s ``unit``, at the widths the kernel builds it
  at) synthesised alone for ECP5 (area only, cached in :class:`approx_units.synth.ResultCache`); an
  exact operation costs the library's exact unit of its kind (``exact_mul``, ``exact_div``,
  ``exact_add``) at the same widths.
* A kernel's *remainder* is its exact synthesis (:func:`approx_units.synth.synthesize_kernel_seeds`,
  the flow of ``benchmarks/apps.py``) less the cost of its operations when exact, once per copy.
* The estimate of an assignment is the sum of the remainders and of every copy's cost.

The estimate leaves out the sign handling around a unit and the pipeline registers the
scheduler adds; ``explore(verify=True)`` measures each front point whole and reports the error.
"""

from __future__ import annotations

import statistics

from approx_units.synth import synthesize_kernel_seeds, synthesize_unit

from ..approx import choice
from ..compiler import compile_kernel
from ..unit_operators import UnitWidthError, approx_unit

__all__ = ["CostModel", "EXACT_UNITS"]

#: The library unit an exact operation of each kind costs.
EXACT_UNITS = {"mul": "exact_mul", "div": "exact_div", "add": "exact_add"}


class CostModel:
    """LUT-equivalent estimates of the assignments of ``space``.

    Parameters
    ----------
    space : hls.explore.space.Space
    cache : approx_units.synth.ResultCache
    progress : callable, optional
        ``progress(text)`` before each unit and kernel is synthesised (or read from the cache).
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
        self._units: dict = {}
        say = progress or (lambda text: None)

        def unit_cost(selected, shapes) -> float | None:
            try:
                unit = approx_unit(selected, *shapes).unit
            except UnitWidthError:
                return None
            key = (unit.name, unit.width, unit.width_b, tuple(sorted(unit.params.items())))
            if key not in self._units:
                say(f"synthesise {selected.label} at {shapes[0].width}x{shapes[1].width} bits")
                self._units[key] = synthesize_unit(unit, "ecp5", timing=False, cache=cache).lut_equivalents
            return self._units[key]

        self.costs = []
        exact_of_kernel = {kernel.name: 0.0 for kernel in space.kernels}
        for site in space.sites:
            exact_unit = choice(site.operation.kind, EXACT_UNITS[site.operation.kind])
            row = []
            exact_total = 0.0
            exact_by_shape = {}
            for shapes, count in site.copies:
                exact_by_shape[shapes] = unit_cost(exact_unit, shapes) or 0.0
                exact_total += count * exact_by_shape[shapes]
            row.append(exact_total)
            for unit in site.units:
                total = 0.0
                for shapes, count in site.copies:
                    value = unit_cost(unit, shapes)
                    total += count * (exact_by_shape[shapes] if value is None else value)
                row.append(total)
            self.costs.append(row)
            exact_of_kernel[site.kernel] += exact_total
        self.exact, self.remainders = {}, {}
        for kernel in space.kernels:
            compiled = compile_kernel(kernel)
            say(f"synthesise the exact {kernel.name}")
            placed = synthesize_kernel_seeds(compiled.verilog(), compiled.ir.name, clock_mhz=kernel.clock_mhz,
                                             seeds=tuple(seeds), cache=cache)
            self.exact[kernel.name] = {"lut_equivalents": placed[0].lut_equivalents, "ffs": placed[0].ffs,
                                       "fmax_mhz": statistics.median(p.fmax_mhz for p in placed)}
            self.remainders[kernel.name] = placed[0].lut_equivalents - exact_of_kernel[kernel.name]

    def estimate(self, selection) -> float:
        """Estimated LUT equivalents of the kernels under ``selection``."""
        return sum(self.remainders.values()) + sum(row[int(index)] for row, index in zip(self.costs, selection))
