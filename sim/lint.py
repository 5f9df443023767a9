"""``verilator --lint-only -Wall`` on the Verilog that Amaranth generates, with a documented waiver list.

Amaranth hands its netlist to Yosys's ``write_verilog``, whose output is
correct but written for machines: it relies on Verilog's implicit width
rules, keeps every intermediate wire, gives registers initial values and
writes ``case`` statements after a default assignment. Verilator's ``-Wall``
flags all of those. Each such warning class is waived below *with the reason
it cannot indicate a bug in a design that went through Amaranth*; anything
else (undriven outputs, latches, multiple drivers, combinational loops,
syntax that other tools reject) is reported.

Use :func:`lint_verilog` on a string, or :func:`lint_component` on an
Amaranth component. ``python -m sim.lint FILE.v [TOP]`` lints a file and
exits 1 if anything is left after the waivers.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ToolUnavailable
from .tools import find_verilator, tool_environment

__all__ = ["Waiver", "WAIVERS", "LintMessage", "LintReport", "lint_verilog", "lint_component"]


@dataclass(frozen=True)
class Waiver:
    """A class of Verilator warning accepted in Amaranth's output.

    Attributes
    ----------
    code : str
        Verilator's warning code, e.g. ``"WIDTHEXPAND"``.
    reason : str
        Why the warning cannot indicate a bug in Amaranth-generated Verilog.
    message : str
        A regular expression the warning text must match (``search``) to be waived;
        ``""`` waives every warning with this code.
    zero_width_only : bool
        Waive it only when the signal the warning names (``'name'``) is declared
        zero bits wide (``[-1:0]``) in the Verilog.
    """

    code: str
    reason: str
    message: str = ""
    zero_width_only: bool = False

    def waives(self, warning: "LintMessage", zero_width: frozenset = frozenset()) -> bool:
        if warning.code != self.code or re.search(self.message, warning.text) is None:
            return False
        if self.zero_width_only:
            named = re.search(r"'([^']+)'", warning.text)
            return named is not None and named.group(1) in zero_width
        return True


#: The waiver list; ``docs/verification.md`` repeats it for readers.
WAIVERS: tuple[Waiver, ...] = (
    Waiver("WIDTHEXPAND",
           "Yosys writes operands at their own width and relies on Verilog's implicit "
           "zero/sign extension (IEEE 1364 5.4.1); Amaranth has already fixed every "
           "operation's result width, and the extension is the intended one."),
    Waiver("WIDTHTRUNC",
           "Yosys writes `!x` on multi-bit values for Amaranth's Value.bool() inverted "
           "and for FSM state tests; Verilator reads that as a 1-bit context truncation.",
           r"Logical operator (LOGNOT|LOGAND|LOGOR)"),
    Waiver("UNUSEDSIGNAL",
           "Yosys keeps one wire per operation result (including carry bits that the "
           "assignment then drops) and keeps named Amaranth signals for debugging "
           "and waveforms even where only an alias of them is read."),
    Waiver("PROCASSINIT",
           "Amaranth gives every register its init value as a Verilog initialiser "
           "(the FPGA power-up value) and also assigns it in its always block; "
           "that is the intended pairing."),
    Waiver("CASEINCOMPLETE",
           "Yosys writes each process as a default assignment followed by a `casez` "
           "over the cases that override it; a missing case keeps the default, so no "
           "latch results."),
    Waiver("DECLFILENAME",
           "Amaranth writes a design and all its submodules into one file, which "
           "cannot be named after every module."),
    Waiver("ASCRANGE",
           "Amaranth writes a zero-width signal (the address of a one-element bank of a "
           "completely partitioned array) as [-1:0]; it carries no bits.",
           r"\[-1:0\]"),
    Waiver("UNDRIVEN",
           "A zero-width output (a one-element bank's address) has no bits to drive; "
           "undriven signals with bits are still reported.",
           zero_width_only=True),
)

#: A signal declared zero bits wide in Yosys's Verilog.
_ZERO_WIDTH = re.compile(r"\[-1:0\]\s+(\w+)\s*;")


@dataclass(frozen=True)
class LintMessage:
    """One line of Verilator's output.

    Attributes
    ----------
    severity : str
        ``"Warning"`` or ``"Error"``.
    code : str
        e.g. ``"WIDTHEXPAND"``; ``""`` for errors without a code.
    line : int
    column : int
    text : str
    """

    severity: str
    code: str
    line: int
    column: int
    text: str

    def __str__(self) -> str:
        code = f"-{self.code}" if self.code else ""
        return f"%{self.severity}{code}: {self.line}:{self.column}: {self.text}"


@dataclass
class LintReport:
    """All messages of one lint run, split by the waiver list.

    Attributes
    ----------
    top : str
    messages : list[LintMessage]
    waived : list[LintMessage]
        Warnings that a waiver in ``WAIVERS`` accepts.
    problems : list[LintMessage]
        Everything else; the design is clean when this is empty.
    """

    top: str
    messages: list[LintMessage] = field(default_factory=list)
    waived: list[LintMessage] = field(default_factory=list)
    problems: list[LintMessage] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        lines = [f"{self.top}: {len(self.problems)} problem(s), {len(self.waived)} waived warning(s)"]
        lines += [f"  {message}" for message in self.problems]
        return "\n".join(lines)


_MESSAGE = re.compile(r"^%(Warning|Error)(?:-([A-Z0-9_]+))?: (?:[^:\n]*:(\d+):(\d+): )?(.*)$")


def parse_messages(output: str) -> list[LintMessage]:
    """Parse Verilator's ``%Warning-CODE: file:line:col: text`` lines, ignoring its final summary."""
    messages = []
    for line in output.splitlines():
        match = _MESSAGE.match(line)
        if match is None:
            continue
        severity, code, lineno, column, text = match.groups()
        if severity == "Error" and text.startswith("Exiting due to"):
            continue
        messages.append(LintMessage(severity, code or "", int(lineno or 0), int(column or 0), text))
    return messages


def lint_verilog(verilog: str, top: str, waivers: tuple[Waiver, ...] = WAIVERS) -> LintReport:
    """Run ``verilator --lint-only -Wall`` on ``verilog`` with ``top`` as top module.

    Raises
    ------
    ToolUnavailable
        If no Verilator >= 5.036 is installed.
    """
    tool = find_verilator()
    with tempfile.TemporaryDirectory(prefix="axhls-lint-") as directory:
        source = Path(directory) / f"{top}.v"
        source.write_text(verilog)
        with tool_environment(tool):
            completed = subprocess.run(
                [str(tool.executable), "--lint-only", "-Wall", "--top-module", top, source.name],
                cwd=directory, capture_output=True, text=True, timeout=300)
    report = LintReport(top)
    report.messages = parse_messages(completed.stderr + completed.stdout)
    zero_width = frozenset(_ZERO_WIDTH.findall(verilog))
    for message in report.messages:
        if message.severity == "Warning" and any(waiver.waives(message, zero_width) for waiver in waivers):
            report.waived.append(message)
        else:
            report.problems.append(message)
    if completed.returncode != 0 and not report.messages:
        report.problems.append(LintMessage("Error", "", 0, 0,
                                           f"verilator exited with status {completed.returncode}: "
                                           f"{completed.stderr.strip()[-500:]}"))
    return report


def lint_component(component, name: str, waivers: tuple[Waiver, ...] = WAIVERS) -> LintReport:
    """Convert an Amaranth component with :func:`amaranth.back.verilog.convert` and lint it."""
    from amaranth.back import verilog  # heavy, and `python -m sim.lint FILE.v` does without it
    return lint_verilog(verilog.convert(component, name=name), name, waivers)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not 1 <= len(argv) <= 2:
        print("usage: python -m sim.lint FILE.v [TOP]", file=sys.stderr)
        return 2
    path = Path(argv[0])
    try:
        text = path.read_text()
    except OSError as error:
        print(f"sim.lint: cannot read {path}: {error.strerror}", file=sys.stderr)
        return 2
    top = argv[1] if len(argv) == 2 else path.stem
    try:
        report = lint_verilog(text, top)
    except ToolUnavailable as error:
        print(f"sim.lint: {error}", file=sys.stderr)
        return 2
    print(report.summary())
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
