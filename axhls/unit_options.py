"""How the ``units`` commands name a unit: ``UNIT --width N --param NAME=VALUE ...``, or a Verilog file's widths."""

from __future__ import annotations

import approx_units

from .arguments import integer
from .command import CommandError

__all__ = ["parse_params", "get_unit", "library_unit", "verilog_arguments", "verilog_widths", "add_frac_bits_option",
           "verilog_frac_bits"]


def parse_params(pairs: list[str] | None) -> dict:
    params = {}
    for text in pairs or []:
        name, sep, value = text.partition("=")
        if not sep or not name:
            raise CommandError(f"--param expects NAME=VALUE, got {text!r}")
        lowered = value.lower()
        if lowered in ("true", "false"):
            params[name] = lowered == "true"
            continue
        try:
            params[name] = int(value, 0)
        except ValueError:
            raise CommandError(f"--param {name}: value must be an integer or true/false, got {value!r}") from None
    return params


def get_unit(name: str, width: int, stages: int, params: dict, signed: bool):
    if signed:
        if params.get("signed") is False:
            raise CommandError("--signed and --param signed=false disagree; give one of them")
        params = {**params, "signed": True}
    try:
        return approx_units.get(name, width=width, stages=stages, **params)
    except approx_units.UnknownUnitError as error:
        raise CommandError(str(error)) from None
    except ValueError as error:
        raise CommandError(f"{name}: {error}") from None


def library_unit(args):
    """The library unit an ``eval``/``area`` command names, with its widths checked."""
    if not args.unit:
        raise CommandError("give a unit id (see `axhls units list`) or --verilog FILE --top MODULE")
    width = args.width_a if args.width_a is not None else args.width
    if width is None:
        raise CommandError(f"{args.unit}: give the operand width with --width N (4..32)")
    if args.width is not None and args.width_a is not None and args.width != args.width_a:
        raise CommandError(f"--width {args.width} and --width-a {args.width_a} disagree")
    params = parse_params(args.param)
    width_b = args.width_b
    if width_b is None and args.width_a is not None and args.width is not None:
        width_b = args.width
    if width_b is not None and width_b != width:
        if "width_b" in params and params["width_b"] != width_b:
            raise CommandError(f"--width-b {width_b} and --param width_b={params['width_b']} disagree")
        params["width_b"] = width_b
    return get_unit(args.unit, width, args.stages, params, args.signed)


def verilog_arguments(args, *, done: str) -> tuple[int | None, int | None]:
    """Check the options of a command run on ``--verilog FILE`` and return the operand widths to check.

    ``done`` says what happens to the module (``"evaluated"``), for the message
    refusing the options that describe library units.
    """
    if not args.top:
        raise CommandError("--verilog needs --top MODULE")
    if args.unit:
        raise CommandError(f"give either a unit id or --verilog, not both (got {args.unit!r})")
    if args.param or getattr(args, "stages", 0):
        raise CommandError(f"--param and --stages describe library units; a --verilog module is {done} as it is")
    return verilog_widths(args)


def verilog_widths(args) -> tuple[int | None, int | None]:
    """The operand widths a --verilog module's ports must have (``None``: take the port's).

    ``--width-a``/``--width-b`` where the command has them, else ``--width`` for both.
    """
    width_a, width_b = getattr(args, "width_a", None), getattr(args, "width_b", None)
    return (args.width if width_a is None else width_a), (args.width if width_b is None else width_b)


def add_frac_bits_option(parser, circuits: str) -> None:
    """``--frac-bits F``: the fraction bits of a third-party divider's quotient (``circuits`` says which)."""
    parser.add_argument("--frac-bits", type=integer(0, 32), metavar="F",
                        help=f"with {circuits}: the quotient's fraction bits, as the library dividers' "
                             "frac_bits (the circuit computes a * 2^F / b; default 0)")


def verilog_frac_bits(args, *, verilog: bool = True) -> int:
    """The ``frac_bits`` of :func:`~approx_units.verilog_eval.load_verilog` that ``--frac-bits`` gives (0 without it).

    Raises
    ------
    CommandError
        ``--frac-bits`` for a circuit that is not ``--kind div``, or (``verilog`` false) for a library unit.
    """
    if args.frac_bits is None:
        return 0
    if not verilog:
        raise CommandError("--frac-bits describes a --verilog divider; a library divider takes --param frac_bits=F")
    if args.kind != "div":
        raise CommandError(f"--frac-bits describes a divider's quotient; a --kind {args.kind} circuit has none")
    return args.frac_bits
