"""Third-party circuits in a folder, measured as library units are: error and area per file.

EvoApproxLib and similar libraries ship each circuit as ``NAME.v`` defining
module ``NAME``. :func:`survey_files` lists such a folder (cell-library
netlists, ``*_pdk45.v``, left out); :func:`characterise_file` evaluates one
circuit (:func:`approx_units.evaluate.evaluate` on its gate netlist) and
synthesises it (:func:`approx_units.synth.synthesize_verilog`), returning one
row that ``axhls units survey`` prints and ``axhls units pareto --with-verilog``
plots. A circuit that cannot be read or synthesised gives a row with an
``error`` instead of an exception, so one bad file does not end a survey.
"""

from __future__ import annotations

from pathlib import Path

from . import evaluate, synth
from .verilog_eval import DEFAULT_PORT_NAMES, VerilogError, load_verilog, port_widths

__all__ = ["survey_files", "characterise_file"]


def survey_files(directory: str | Path) -> list[Path]:
    """The circuits of ``directory``: ``*.v`` files, cell-library netlists left out, sorted by name."""
    return sorted(path for path in Path(directory).glob("*.v") if not path.stem.endswith("_pdk45"))


def _ports(path: Path, requested: dict[str, str | None]) -> dict[str, str | None]:
    """``port_a``/``port_b``/``port_o`` for :func:`load_verilog`: of each role's requested names (then its
    defaults), the first that module ``path.stem`` has; the first requested one if it has none, so that
    the error names it."""
    chosen = {f"port_{role}": None for role in requested}
    if not any(requested.values()):
        return chosen
    ports = port_widths(path, path.stem)
    for role, names in requested.items():
        if names:
            wanted = [name.strip() for name in names.split(",") if name.strip()]
            chosen[f"port_{role}"] = next((name for name in [*wanted, *DEFAULT_PORT_NAMES[role]] if name in ports),
                                          wanted[0] if wanted else None)
    return chosen


def characterise_file(path: str | Path, kind: str, *, signed: bool = False, target: str | None = "ecp5",
                      timing: bool = True, samples: int | None = None, seed: int = 0,
                      workers: int | None = None, cache: synth.ResultCache | None = None,
                      port_a: str | None = None, port_b: str | None = None, port_o: str | None = None,
                      frac_bits: int = 0) -> dict:
    """Error metrics and (unless ``target`` is ``None``) area of the circuit in ``path``.

    ``port_a``, ``port_b`` and ``port_o`` name the operand and result ports
    (EvoApproxLib's mul8u_2NDH calls its result ``Z``): a comma-separated list
    of names, of which the circuit's first port is taken, and failing those
    the defaults of :func:`~approx_units.verilog_eval.load_verilog`
    (``O``/``o``), so that one set of names serves a whole folder.
    ``frac_bits`` is a divider's quotient fraction bits (the circuits compute
    ``a * 2**frac_bits / b``), as :func:`~approx_units.verilog_eval.load_verilog` takes it.

    Returns
    -------
    dict
        ``circuit``, ``file``, ``widths`` (``"n x m"``), ``exhaustive``, ``samples``,
        ``metrics`` (as :func:`~approx_units.evaluate.evaluate`), ``mred_pct``,
        ``wce_pct``, ``er_pct``, and with a target ``luts``, ``carry``,
        ``lut_equivalents``, ``fmax_mhz``; or ``circuit``, ``file`` and ``error``
        (one line) when it cannot be measured.
    """
    path = Path(path)
    row = {"circuit": path.stem, "file": str(path)}
    try:
        ports = _ports(path, {"a": port_a, "b": port_b, "o": port_o})
        netlist = load_verilog(path, path.stem, kind, signed=signed, frac_bits=frac_bits, **ports)
    except VerilogError as error:
        return {**row, "error": str(error)}
    result = evaluate.evaluate(netlist, samples=samples, seed=seed, workers=workers)
    metrics = result.metrics
    row.update({"widths": f"{netlist.width} x {netlist.width_b}", "exhaustive": result.exhaustive,
                "samples": result.samples, "metrics": metrics,
                "mred_pct": 100 * metrics["mred"], "wce_pct": metrics["wce_pct"], "er_pct": 100 * metrics["er"]})
    if target is not None:
        try:
            report = synth.synthesize_verilog(path.read_text(), path.stem, target, timing=timing, cache=cache)
        except synth.SynthesisError as error:
            return {**row, "error": " ".join(str(error).splitlines())}
        row.update({"luts": report.luts, "carry": report.carry, "lut_equivalents": report.lut_equivalents,
                    "fmax_mhz": report.fmax_mhz})
    return row
