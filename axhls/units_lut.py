"""``axhls units lut``: a unit's 256 x 256 lookup table for TFApprox or AdaPT."""

from __future__ import annotations

import artefacts
from approx_units import lut
from approx_units.verilog_eval import VerilogError, load_verilog

from .command import CommandError, print_json
from .unit_options import add_frac_bits_option, get_unit, parse_params, verilog_arguments, verilog_frac_bits

__all__ = ["register", "run_lut"]


def _subject(args):
    if args.verilog:
        width_a, width_b = verilog_arguments(args, done="tabulated")
        frac_bits = verilog_frac_bits(args)
        try:
            return load_verilog(args.verilog, args.top, args.kind, width_a, width_b=width_b, signed=args.signed,
                                frac_bits=frac_bits)
        except VerilogError as error:
            raise CommandError(str(error)) from None
    if not args.unit:
        raise CommandError("give a unit id (see `axhls units list`) or --verilog FILE --top MODULE")
    verilog_frac_bits(args, verilog=False)
    return get_unit(args.unit, args.width, 0, parse_params(args.param), args.signed)


def _signedness_hint(args, subject) -> str:
    """How to fix a subject whose signedness does not suit ``--format`` (empty if that is not the problem)."""
    wanted = lut.FORMATS[args.format][0]
    if lut.operands_signed(subject) == wanted:
        return ""
    if not wanted:
        return "; drop --signed (and --param signed=true)"
    if args.verilog:
        return "; add --signed if the module takes two's complement operands"
    return "; add --signed for the unit's signed variant"


def run_lut(args) -> int:
    """Handler of ``axhls units lut``."""
    if args.width != lut.OPERAND_WIDTH:
        raise CommandError(f"--width {args.width}: tfapprox and adapt tables are defined for "
                           f"{lut.OPERAND_WIDTH}-bit operands only (256 x 256 entries)")
    artefacts.check_file_destination(args.output)          # before the work, not after it
    subject = _subject(args)
    try:
        data = lut.encode(subject, args.format)
    except lut.LutError as error:
        raise CommandError(f"{error}{_signedness_hint(args, subject)}") from None
    artefacts.write_bytes(args.output, data, check=False)
    table = lut.decode(data, args.format)
    summary = {"file": str(args.output), "format": args.format, "unit": getattr(subject, "name", None),
               "entries": int(table.size), "min": int(table.min()), "max": int(table.max()),
               "bytes": len(data)}
    if args.json:
        print_json(summary)
    else:
        print(f"{args.output}: {args.format} table of {summary['unit']}, {summary['entries']} entries "
              f"({summary['min']}..{summary['max']})")
    return 0


def register(commands) -> None:
    parser = commands.add_parser(
        "lut", help="a unit's 256 x 256 lookup table for TFApprox or AdaPT",
        description="Write the lookup table of an 8-bit unit (or of a --verilog module): "
                    + "; ".join(f"{name}: {what}" for name, (_, _, what) in lut.FORMATS.items()) + ".")
    parser.add_argument("unit", metavar="UNIT", nargs="?", help="unit id (see `axhls units list`)")
    parser.add_argument("--width", type=int, default=lut.OPERAND_WIDTH, metavar="N",
                        help="operand width; both formats need 8 (the default)")
    parser.add_argument("--param", action="append", metavar="NAME=VALUE",
                        help="unit parameter, repeatable (for example --param k=4)")
    parser.add_argument("--signed", action="store_true", help="the two's complement variant (adapt needs it)")
    parser.add_argument("--format", required=True, choices=tuple(lut.FORMATS))
    parser.add_argument("-o", "--output", required=True, metavar="FILE", help="where to write the table")
    parser.add_argument("--verilog", metavar="FILE.v", help="take the table of a combinational Verilog module")
    parser.add_argument("--top", metavar="MODULE", help="the Verilog module (with --verilog)")
    parser.add_argument("--kind", default="mul", choices=("add", "mul", "div"),
                        help="the operation the Verilog module approximates (default mul)")
    add_frac_bits_option(parser, "--verilog --kind div")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run_lut)
