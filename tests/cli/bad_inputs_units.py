"""Bad inputs to ``axhls units ...``: each fails before any work starts, with one line and its exit status.

``ROWS`` is a table run by the table of every bad input, ``tests/cli/test_bad_inputs.py``.  Each row:

``id``
    a name for the case;
``files``
    files to create first, ``{relative path: text}``, in a fresh folder that is
    the working directory of the command (a path ending in ``/.keep`` makes an
    empty folder; the text is written as UTF-8 with ``surrogateescape``, so
    ``"\udcff"`` is the byte 0xff: ``bad_input_runner.run_row`` does both);
``argv``
    the arguments of ``axhls``;
``exit``
    the exit status;
``message``
    a regular expression searched in the one line that says what is wrong: the
    last line of stderr (argparse puts its usage above it), or the ``error`` of
    the one JSON object on stdout when the command was given ``--json`` (those
    rows have no ``^``/``$`` anchors, so that they match the JSON line too).

Numeric options out of range, unknown units and parameters, bad kinds,
unreadable or wrong Verilog, destinations that cannot be written and options
that contradict each other are all here.  None of the rows synthesises or
evaluates anything: a few read a Verilog file with Yosys, a fraction of a second.
"""

import io
from pathlib import Path

import numpy as np

#: An exact 8 x 8-bit multiplier, written for these tests (no third-party circuit).
MUL8 = """module mul8(input [7:0] a, input [7:0] b, output [15:0] o);
    assign o = a * b;
endmodule
"""

#: The approximate multiplier shipped in examples/ (a broken-array multiplier).
BAM8 = (Path(__file__).resolve().parents[2] / "examples" / "bam8.v").read_text()

#: An exact 8-bit adder with its carry.
ADD8 = """module add8(input [7:0] a, input [7:0] b, output [8:0] o);
    assign o = a + b;
endmodule
"""

#: A registered multiplier: state, which the error engine cannot evaluate.
REGISTERED = """module reg8(input clk, input [7:0] a, input [7:0] b, output reg [15:0] o);
    always @(posedge clk) o <= a * b;
endmodule
"""

def _npy(array) -> str:
    """``array`` as the bytes of a ``.npy`` file, in a row's text (see ``files``)."""
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue().decode("utf-8", errors="surrogateescape")


#: One array saved with np.save, where an .npz archive of a and b is expected.
ONE_ARRAY = _npy(np.arange(4))

EVAL = ["units", "eval"]
AREA = ["units", "area"]
EXPORT = ["units", "export"]
PARETO = ["units", "pareto"]
SWEEP = ["units", "sweep"]
LUT = ["units", "lut"]
SURVEY = ["units", "survey"]


def _row(id, argv, message, exit=2, files=None):
    return {"id": id, "files": files or {}, "argv": argv, "exit": exit, "message": message}


ROWS = [
    # --- the units group itself
    _row("units-without-sub-command", ["units"], r"a sub-command is required"),
    _row("units-unknown-sub-command", ["units", "frobnicate"], r"invalid choice: 'frobnicate'"),
    _row("list-unknown-option", ["units", "list", "--width", "8"], r"unrecognized arguments: --width 8"),

    # --- eval: naming the unit
    _row("eval-no-unit", EVAL, r"give a unit id \(see `axhls units list`\) or --verilog FILE --top MODULE"),
    _row("eval-unknown-unit", EVAL + ["nonesuch", "--width", "8"], r"unknown unit 'nonesuch'"),
    _row("eval-no-width", EVAL + ["drum"], r"drum: give the operand width with --width N \(4\.\.32\)"),
    _row("eval-width-0", EVAL + ["drum", "--width", "0"], r"drum: width=0 is out of range; allowed: 4\.\.32"),
    _row("eval-width-99", EVAL + ["drum", "--width", "99"], r"drum: width=99 is out of range; allowed: 4\.\.32"),
    _row("eval-width-not-a-number", EVAL + ["drum", "--width", "eight"],
         r"argument --width: invalid int value: 'eight'"),
    _row("eval-width-a-disagrees", EVAL + ["drum", "--width", "8", "--width-a", "10"],
         r"--width 8 and --width-a 10 disagree"),
    _row("eval-width-b-0", EVAL + ["drum", "--width", "8", "--width-b", "0"],
         r"drum: width_b=0 is out of range; allowed: 4\.\.32"),
    _row("eval-width-b-against-param", EVAL + ["drum", "--width", "8", "--width-b", "6", "--param", "width_b=4"],
         r"--width-b 6 and --param width_b=4 disagree"),
    _row("eval-stages-negative", EVAL + ["drum", "--width", "8", "--stages", "-1"],
         r"argument --stages: expected a non-negative integer, not -1"),
    _row("eval-stages-too-many", EVAL + ["drum", "--width", "8", "--stages", "99"],
         r"drum: stages=99 is out of range; allowed: 0\.\.16"),

    # --- eval: parameters
    _row("eval-param-without-value", EVAL + ["drum", "--width", "8", "--param", "k"],
         r"--param expects NAME=VALUE, got 'k'"),
    _row("eval-param-without-name", EVAL + ["drum", "--width", "8", "--param", "=6"],
         r"--param expects NAME=VALUE, got '=6'"),
    _row("eval-param-not-a-number", EVAL + ["drum", "--width", "8", "--param", "k=six"],
         r"--param k: value must be an integer or true/false, got 'six'"),
    _row("eval-param-unknown", EVAL + ["drum", "--width", "8", "--param", "q=3"], r"drum: .*'q'"),
    _row("eval-param-out-of-range", EVAL + ["drum", "--width", "8", "--param", "k=99"],
         r"drum: k=99 is out of range; allowed: 2\.\.8"),
    _row("eval-signed-against-param", EVAL + ["drum", "--width", "8", "--signed", "--param", "signed=false"],
         r"--signed and --param signed=false disagree"),

    # --- eval: sampling and workers
    _row("eval-samples-0", EVAL + ["drum", "--width", "8", "--samples", "0"],
         r"argument --samples: expected a positive integer, not 0"),
    _row("eval-samples-negative", EVAL + ["drum", "--width", "8", "--samples", "-5"],
         r"argument --samples: expected a positive integer, not -5"),
    _row("eval-samples-not-a-number", EVAL + ["drum", "--width", "8", "--samples", "1e6"],
         r"argument --samples: expected a positive integer, not '1e6'"),
    _row("eval-samples-and-exhaustive", EVAL + ["drum", "--width", "8", "--samples", "10", "--exhaustive"],
         r"argument --exhaustive: not allowed with argument --samples"),
    _row("eval-exhaustive-too-wide", EVAL + ["drum", "--width", "32", "--exhaustive"],
         r"exhaustive evaluation of 32x32-bit operands means 2\^64 pairs; the limit is 2\^32"),
    _row("eval-seed-negative", EVAL + ["drum", "--width", "8", "--samples", "100", "--seed", "-1"],
         r"argument --seed: expected a non-negative integer, not -1"),
    _row("eval-seed-not-a-number", EVAL + ["drum", "--width", "8", "--seed", "x"],
         r"argument --seed: expected a non-negative integer, not 'x'"),
    _row("eval-workers-0", EVAL + ["drum", "--width", "8", "--workers", "0"],
         r"argument --workers: expected a positive integer, not 0"),
    _row("eval-workers-negative-small", EVAL + ["drum", "--width", "8", "--workers", "-3"],
         r"argument --workers: expected a positive integer, not -3"),
    _row("eval-workers-negative-large", EVAL + ["drum", "--width", "16", "--samples", "20000000", "--workers", "-3"],
         r"argument --workers: expected a positive integer, not -3"),
    _row("eval-json-error", EVAL + ["drum", "--width", "0", "--json"], r"drum: width=0 is out of range"),
    _row("eval-json-usage-error", EVAL + ["drum", "--width", "8", "--seed", "-1", "--json"],
         r"axhls units eval: argument --seed: expected a non-negative integer, not -1"),

    # --- eval: operand distributions
    _row("eval-pairs-missing", EVAL + ["drum", "--width", "8", "--pairs", "pairs.npz"],
         r"pairs\.npz: expected an \.npz file with arrays 'a' and 'b' \(No such file or directory\)"),
    _row("eval-pairs-not-npz", EVAL + ["drum", "--width", "8", "--pairs", "pairs.npz"],
         r"pairs\.npz: expected an \.npz file with arrays 'a' and 'b' \(it is not an \.npz archive\)", files={"pairs.npz": "a b\n1 2\n"}),
    _row("eval-pairs-one-array", EVAL + ["drum", "--width", "8", "--pairs", "pairs.npz"],
         r"pairs\.npz: expected an \.npz file with arrays 'a' and 'b' \(it holds one array, not an archive\)",
         files={"pairs.npz": ONE_ARRAY}),
    _row("eval-histogram-missing", EVAL + ["drum", "--width", "8", "--histogram-a", "h.txt"],
         r"h\.txt: cannot read histogram"),
    _row("eval-histogram-negative", EVAL + ["drum", "--width", "8", "--histogram-a", "h.txt"],
         r"histogram of operand a must hold finite non-negative weights", files={"h.txt": "1\n-2\n3\n"}),

    # --- eval --verilog
    _row("eval-unit-and-verilog", EVAL + ["drum", "--verilog", "mul8.v", "--top", "mul8", "--kind", "mul"],
         r"give either a unit id or --verilog, not both \(got 'drum'\)", files={"mul8.v": MUL8}),
    _row("eval-verilog-without-kind", EVAL + ["--verilog", "mul8.v", "--top", "mul8"],
         r"--verilog needs --top MODULE and --kind add\|mul\|div", files={"mul8.v": MUL8}),
    _row("eval-verilog-without-top", EVAL + ["--verilog", "mul8.v", "--kind", "mul"],
         r"--verilog needs --top MODULE", files={"mul8.v": MUL8}),
    _row("eval-verilog-bad-kind", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "sub"],
         r"argument --kind: invalid choice: 'sub'", files={"mul8.v": MUL8}),
    _row("eval-verilog-param", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "mul", "--param", "k=3"],
         r"--param and --stages describe library units; a --verilog module is evaluated as it is",
         files={"mul8.v": MUL8}),
    _row("eval-verilog-missing-file", EVAL + ["--verilog", "none.v", "--top", "none", "--kind", "mul"],
         r"none\.v: no such file"),
    _row("eval-verilog-syntax-error", EVAL + ["--verilog", "bad.v", "--top", "bad", "--kind", "mul"],
         r"bad\.v:.*syntax error", files={"bad.v": "module bad(input a; endmodule\n"}),
    _row("eval-verilog-not-text", EVAL + ["--verilog", "bin.v", "--top", "bin", "--kind", "mul"],
         r"bin\.v: cannot be read", files={"bin.v": "\udcff\udcfe"}),
    _row("eval-verilog-wrong-top", EVAL + ["--verilog", "mul8.v", "--top", "mul16", "--kind", "mul"],
         r"mul8\.v: no module 'mul16'; the file defines mul8 \(choose one with --top\)", files={"mul8.v": MUL8}),
    _row("eval-verilog-multiplier-as-divider", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "div"],
         r"mul8\.v: module 'mul8' is a multiplier, not a divider: .*\(is --kind right\?\)", files={"mul8.v": MUL8}),
    _row("eval-verilog-approximate-multiplier-as-divider",
         EVAL + ["--verilog", "bam8.v", "--top", "bam8", "--kind", "div"],
         r"bam8\.v: module 'bam8' is a multiplier, not a divider", files={"bam8.v": BAM8}),
    _row("eval-verilog-multiplier-as-adder", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "add"],
         r"mul8\.v: an adder of 8 x 8 bits gives 8 or 9 result bits, but port o of 'mul8' has 16 \(is --kind right\?\)",
         files={"mul8.v": MUL8}),
    _row("eval-verilog-adder-as-divider", EVAL + ["--verilog", "add8.v", "--top", "add8", "--kind", "div"],
         r"add8\.v: module 'add8' is an adder, not a divider", files={"add8.v": ADD8}),
    _row("eval-verilog-width-mismatch", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "mul",
                                                "--width", "4"],
         r"operand port a of 'mul8' must be a 4-bit input, found a 8-bit input", files={"mul8.v": MUL8}),
    _row("eval-verilog-missing-port", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "mul",
                                              "--port-a", "x"],
         r"module 'mul8' has no port 'x' \(its ports: a, b, o\); name it with --port-a", files={"mul8.v": MUL8}),
    _row("eval-verilog-sequential", EVAL + ["--verilog", "reg8.v", "--top", "reg8", "--kind", "mul"],
         r"reg8\.v: module 'reg8' .*(not combinational|no port)", files={"reg8.v": REGISTERED}),
    _row("eval-frac-bits-of-a-multiplier", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "mul",
                                                  "--frac-bits", "4"],
         r"--frac-bits describes a divider's quotient; a --kind mul circuit has none", files={"mul8.v": MUL8}),
    _row("eval-frac-bits-of-a-library-unit", EVAL + ["mitchell_div", "--width", "8", "--frac-bits", "4"],
         r"--frac-bits describes a --verilog divider; a library divider takes --param frac_bits=F"),
    _row("eval-frac-bits-too-many", EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "div",
                                           "--frac-bits", "33"],
         r"argument --frac-bits: expected an integer from 0 to 32, not 33", files={"mul8.v": MUL8}),
    _row("eval-verilog-divider-too-narrow-for-its-fraction",
         EVAL + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "div", "--frac-bits", "12"],
         r"mul8\.v: a divider of 8 x 8 bits with 12 fraction bits gives 20\.\.28 result bits, but port o of "
         r"'mul8' has 16 \(are --kind and --frac-bits right\?\)", files={"mul8.v": MUL8}),

    # --- area
    _row("area-no-target", AREA + ["drum", "--width", "8"], r"the following arguments are required: --target"),
    _row("area-bad-target", AREA + ["drum", "--width", "8", "--target", "stratix"],
         r"argument --target: invalid choice: 'stratix'"),
    _row("area-unknown-unit", AREA + ["nonesuch", "--width", "8", "--target", "ecp5", "--cache-dir", "cache"],
         r"unknown unit 'nonesuch'"),
    _row("area-width-0", AREA + ["drum", "--width", "0", "--target", "ecp5", "--cache-dir", "cache"],
         r"drum: width=0 is out of range"),
    _row("area-stages-negative", AREA + ["drum", "--width", "8", "--stages", "-2", "--target", "ecp5"],
         r"argument --stages: expected a non-negative integer, not -2"),
    _row("area-signed-against-param", AREA + ["drum", "--width", "8", "--signed", "--param", "signed=false",
                                              "--target", "ecp5", "--cache-dir", "cache"],
         r"--signed and --param signed=false disagree"),
    _row("area-cache-dir-is-a-file", AREA + ["drum", "--width", "8", "--target", "ecp5", "--cache-dir", "cache"],
         r"^axhls: cache: exists and is not a directory", files={"cache": "not a folder\n"}),
    _row("area-verilog-without-top", AREA + ["--verilog", "mul8.v", "--target", "ecp5", "--cache-dir", "cache"],
         r"--verilog needs --top MODULE", files={"mul8.v": MUL8}),
    _row("area-verilog-wrong-kind", AREA + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "div",
                                            "--target", "ecp5", "--cache-dir", "cache"],
         r"mul8\.v: module 'mul8' is a multiplier, not a divider", files={"mul8.v": MUL8}),

    # --- export
    _row("export-jobs-0", EXPORT + ["-o", "out", "--jobs", "0"], r"argument --jobs: expected a positive integer, not 0"),
    _row("export-jobs-negative", EXPORT + ["-o", "out", "--jobs", "-1"],
         r"argument --jobs: expected a positive integer, not -1"),
    _row("export-unknown-target", EXPORT + ["-o", "out", "--targets", "ecp5,stratix"],
         r"--targets: unknown target 'stratix'; choose from ecp5, xc7, ice40"),
    _row("export-unknown-unit", EXPORT + ["-o", "out", "--no-synth", "--units", "loa,nonesuch"],
         r"--units: unknown unit 'nonesuch'; known units: "),
    _row("export-widths-not-numbers", EXPORT + ["-o", "out", "--no-synth", "--widths", "8,x"],
         r"--widths expects comma-separated integers, got '8,x'"),
    _row("export-output-is-a-file", EXPORT + ["-o", "out", "--no-synth"], r"^axhls: out: exists and is not a directory",
         files={"out": "a file\n"}),
    _row("export-output-under-a-file", EXPORT + ["-o", "out/catalog", "--no-synth"],
         r"^axhls: out/catalog: out is not a directory", files={"out": "a file\n"}),
    _row("export-json-error", EXPORT + ["-o", "out", "--no-synth", "--units", "nonesuch", "--json"],
         r"--units: unknown unit 'nonesuch'"),

    # --- pareto
    _row("pareto-no-kind", PARETO + ["--width", "8"], r"the following arguments are required: --kind"),
    _row("pareto-bad-kind", PARETO + ["--kind", "sub", "--width", "8"], r"argument --kind: invalid choice: 'sub'"),
    _row("pareto-adder-as-multiplier", PARETO + ["--units", "loa", "--kind", "mul", "--width", "8",
                                                 "--cache-dir", "cache"],
         r"^axhls: unit 'loa' is an adder, not a multiplier$"),
    _row("pareto-unknown-unit", PARETO + ["--units", "nonesuch", "--kind", "mul", "--width", "8",
                                          "--cache-dir", "cache"], r"unknown unit 'nonesuch'"),
    _row("pareto-width-0", PARETO + ["--kind", "mul", "--width", "0", "--cache-dir", "cache"],
         r"width=0 is out of range; allowed: 4\.\.32"),
    _row("pareto-plot-suffix", PARETO + ["--kind", "mul", "--width", "8", "-o", "plot.txt"],
         r"-o plot\.txt: the plot must be \.png, \.svg or \.pdf"),
    _row("pareto-plot-folder-missing", PARETO + ["--kind", "mul", "--width", "8", "-o", "nowhere/plot.png"],
         r"^axhls: nowhere/plot\.png: directory nowhere does not exist"),
    _row("pareto-samples-0", PARETO + ["--kind", "mul", "--width", "8", "--samples", "0"],
         r"argument --samples: expected a positive integer, not 0"),
    _row("pareto-seed-negative", PARETO + ["--kind", "mul", "--width", "8", "--seed", "-1"],
         r"argument --seed: expected a non-negative integer, not -1"),
    _row("pareto-with-verilog-not-a-folder", PARETO + ["--kind", "mul", "--width", "8", "--with-verilog", "evo8",
                                                       "--cache-dir", "cache"],
         r"--with-verilog evo8: not a directory"),
    _row("pareto-with-verilog-empty", PARETO + ["--kind", "mul", "--width", "8", "--with-verilog", "evo8",
                                                "--cache-dir", "cache"],
         r"--with-verilog evo8: no Verilog files \(\*\.v\) in it", files={"evo8/.keep": ""}),
    _row("pareto-unknown-metric", PARETO + ["--kind", "mul", "--width", "8", "--metric", "accuracy",
                                            "--cache-dir", "cache"], r"unknown metric 'accuracy'"),
    _row("pareto-budget-0", PARETO + ["--kind", "mul", "--width", "8", "--budget", "0"],
         r"argument --budget: expected a number above 0, not 0"),
    _row("pareto-budget-not-a-number", PARETO + ["--kind", "mul", "--width", "8", "--budget", "soon"],
         r"argument --budget: expected a number above 0, not 'soon'"),
    _row("pareto-port-without-verilog", PARETO + ["--kind", "mul", "--width", "8", "--port-o", "Z",
                                                  "--cache-dir", "cache"],
         r"^axhls: --port-a/--port-b/--port-o name the ports of the --with-verilog circuits; add --with-verilog DIR$"),
    _row("pareto-port-empty", PARETO + ["--kind", "mul", "--width", "8", "--port-o", "", "--with-verilog", "evo8"],
         r"argument --port-o: expected Verilog port names separated by commas, not ''"),

    # --- sweep
    _row("sweep-no-units", SWEEP, r"the following arguments are required: --units"),
    _row("sweep-unknown-unit", SWEEP + ["--units", "loa,nonesuch"], r"--units: unknown unit 'nonesuch'; known units: "),
    _row("sweep-jobs-0", SWEEP + ["--units", "loa", "--jobs", "0"], r"argument --jobs: expected a positive integer, not 0"),
    _row("sweep-jobs-negative", SWEEP + ["--units", "loa", "--jobs", "-2"],
         r"argument --jobs: expected a positive integer, not -2"),
    _row("sweep-widths-not-numbers", SWEEP + ["--units", "loa", "--widths", "8,wide"],
         r"--widths expects comma-separated values, got '8,wide'"),
    _row("sweep-stages-not-numbers", SWEEP + ["--units", "loa", "--stages", "0,deep"],
         r"--stages expects integers or 'rec', got '0,deep'"),
    _row("sweep-unknown-target", SWEEP + ["--units", "loa", "--targets", "stratix"],
         r"--targets: unknown target 'stratix'; choose from ecp5, xc7, ice40 or none"),
    _row("sweep-unknown-param", SWEEP + ["--units", "loa,drum", "--param", "q=1,2", "--targets", "none"],
         r"--param q: no selected unit has it \(loa: l, signed; drum: k, signed, width_b\)"),
    _row("sweep-param-without-values", SWEEP + ["--units", "loa", "--param", "l"],
         r"--param expects NAME=V1,V2,\.\.\., got 'l'"),
    _row("sweep-param-not-numbers", SWEEP + ["--units", "loa", "--param", "l=two,four"],
         r"--param l: values must be integers or true/false, got 'two,four'"),
    _row("sweep-samples-0", SWEEP + ["--units", "loa", "--samples", "0"],
         r"argument --samples: expected a positive integer, not 0"),
    _row("sweep-seed-negative", SWEEP + ["--units", "loa", "--seed", "-1"],
         r"argument --seed: expected a non-negative integer, not -1"),
    _row("sweep-connect-timeout-0", SWEEP + ["--units", "loa", "--connect-timeout", "0"],
         r"argument --connect-timeout: expected a number above 0, not 0"),
    _row("sweep-db-is-a-folder", SWEEP + ["--units", "loa", "--targets", "none", "--db", "results"],
         r"^axhls: results: is a directory; expected a file name", files={"results/.keep": ""}),
    _row("sweep-empty-grid", SWEEP + ["--units", "loa", "--widths", "2", "--targets", "none", "--db", "s.sqlite"],
         r"the grid is empty: .*width=2 is out of range"),
    _row("sweep-json-error", SWEEP + ["--units", "nonesuch", "--json"], r"--units: unknown unit 'nonesuch'"),
    _row("sweep-json-usage-error", SWEEP + ["--units", "loa", "--jobs", "0", "--json"],
         r"axhls units sweep: argument --jobs: expected a positive integer, not 0"),

    # --- lut
    _row("lut-adapt-needs-signed", LUT + ["drum", "--format", "adapt", "-o", "drum8.h"],
         r"^axhls: adapt tables take signed \(two's complement\) operands, but 'drum' takes unsigned ones; "
         r"add --signed for the unit's signed variant$"),
    _row("lut-tfapprox-takes-unsigned", LUT + ["drum", "--signed", "--format", "tfapprox", "-o", "drum8.bin"],
         r"tfapprox tables take unsigned operands, but 'drum' takes signed ones; drop --signed"),
    _row("lut-verilog-adapt-needs-signed", LUT + ["--verilog", "mul8.v", "--top", "mul8", "--format", "adapt",
                                                  "-o", "mul8.h"],
         r"'mul8' takes unsigned ones; add --signed if the module takes two's complement operands",
         files={"mul8.v": MUL8}),
    _row("lut-width-16", LUT + ["drum", "--width", "16", "--format", "tfapprox", "-o", "drum.bin"],
         r"--width 16: tfapprox and adapt tables are defined for 8-bit operands only"),
    _row("lut-no-output", LUT + ["drum", "--format", "tfapprox"], r"the following arguments are required: -o/--output"),
    _row("lut-bad-format", LUT + ["drum", "--format", "onnx", "-o", "x"], r"argument --format: invalid choice: 'onnx'"),
    _row("lut-json-usage-error", LUT + ["drum", "--format", "onnx", "-o", "x", "--json"],
         r"axhls units lut: argument --format: invalid choice: 'onnx'"),
    _row("lut-no-unit", LUT + ["--format", "tfapprox", "-o", "x.bin"], r"give a unit id \(see `axhls units list`\)"),
    _row("lut-unknown-unit", LUT + ["nonesuch", "--format", "tfapprox", "-o", "x.bin"], r"unknown unit 'nonesuch'"),
    _row("lut-output-folder-missing", LUT + ["drum", "--format", "tfapprox", "-o", "nowhere/drum.bin"],
         r"^axhls: nowhere/drum\.bin: directory nowhere does not exist"),
    _row("lut-output-is-a-folder", LUT + ["drum", "--format", "tfapprox", "-o", "tables"],
         r"^axhls: tables: is a directory; expected a file name", files={"tables/.keep": ""}),
    _row("lut-signed-against-param", LUT + ["drum", "--signed", "--param", "signed=false", "--format", "adapt",
                                            "-o", "x.h"], r"--signed and --param signed=false disagree"),
    _row("lut-frac-bits-of-a-multiplier", LUT + ["--verilog", "mul8.v", "--top", "mul8", "--frac-bits", "4",
                                                 "--format", "tfapprox", "-o", "x.bin"],
         r"^axhls: --frac-bits describes a divider's quotient; a --kind mul circuit has none$", files={"mul8.v": MUL8}),
    _row("lut-frac-bits-of-a-library-unit", LUT + ["mitchell_div", "--frac-bits", "4", "--format", "tfapprox",
                                                   "-o", "x.bin"],
         r"--frac-bits describes a --verilog divider; a library divider takes --param frac_bits=F"),
    _row("lut-frac-bits-too-many", LUT + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "div", "--frac-bits", "33",
                                          "--format", "tfapprox", "-o", "x.bin"],
         r"argument --frac-bits: expected an integer from 0 to 32, not 33", files={"mul8.v": MUL8}),
    _row("lut-verilog-divider-too-narrow-for-its-fraction",
         LUT + ["--verilog", "mul8.v", "--top", "mul8", "--kind", "div", "--frac-bits", "12", "--format", "tfapprox",
                "-o", "x.bin"],
         r"mul8\.v: a divider of 8 x 8 bits with 12 fraction bits gives 20\.\.28 result bits, but port o of "
         r"'mul8' has 16 \(are --kind and --frac-bits right\?\)", files={"mul8.v": MUL8}),
    _row("lut-param-out-of-range", LUT + ["drum", "--param", "k=99", "--format", "tfapprox", "-o", "x.bin"],
         r"drum: k=99 is out of range; allowed: 2\.\.8"),

    # --- survey
    _row("survey-no-kind", SURVEY + ["evo8"], r"the following arguments are required: --kind"),
    _row("survey-not-a-folder", SURVEY + ["evo8", "--kind", "mul", "--target", "none"], r"^axhls: evo8: not a directory"),
    _row("survey-empty-folder", SURVEY + ["evo8", "--kind", "mul", "--target", "none"],
         r"^axhls: evo8: no Verilog files \(\*\.v\) in it", files={"evo8/.keep": ""}),
    _row("survey-workers-0", SURVEY + ["evo8", "--kind", "mul", "--workers", "0"],
         r"argument --workers: expected a positive integer, not 0"),
    _row("survey-samples-negative", SURVEY + ["evo8", "--kind", "mul", "--samples", "-1"],
         r"argument --samples: expected a positive integer, not -1"),
    _row("survey-seed-negative", SURVEY + ["evo8", "--kind", "mul", "--seed", "-7"],
         r"argument --seed: expected a non-negative integer, not -7"),
    _row("survey-bad-target", SURVEY + ["evo8", "--kind", "mul", "--target", "stratix"],
         r"argument --target: invalid choice: 'stratix'"),
    _row("survey-port-empty-name", SURVEY + ["evo8", "--kind", "mul", "--port-o", "O,"],
         r"argument --port-o: expected Verilog port names separated by commas, not 'O,'"),
    _row("survey-frac-bits-of-a-multiplier", SURVEY + ["evo8", "--kind", "mul", "--frac-bits", "8"],
         r"^axhls: --frac-bits describes a divider's quotient; a --kind mul circuit has none$"),
    _row("survey-frac-bits-negative", SURVEY + ["evo8", "--kind", "div", "--frac-bits", "-1"],
         r"argument --frac-bits: expected an integer from 0 to 32, not -1"),
    _row("survey-port-not-a-name", SURVEY + ["evo8", "--kind", "mul", "--port-a", "a b"],
         r"argument --port-a: expected Verilog port names separated by commas, not 'a b'"),
]
