"""The sample outputs in README.md and docs/*.md, regenerated from the commands that print them.

    python benchmarks/docs_samples.py            # rewrite every stale sample in place
    python benchmarks/docs_samples.py --check    # exit 1, naming each stale sample, change nothing

A sample is a fenced block right after a marker line naming its command::

    <!-- sample: axhls report examples/gsumif.py:gsumif -->
    ```
    kernel gsumif at 100 MHz
    ...
    ```

The command runs in the repository's root (``axhls`` as ``python -m axhls`` of
this interpreter, ``python`` as this interpreter, ``PYTHONHASHSEED=0``), and the
block becomes what a terminal would show: stdout and stderr together.  Exit
status 1 (a finding, as ``axhls check`` reports an overflow) is shown like 0;
any other failure stops the script, so no error message lands in the docs.  A block whose first line is ``$ COMMAND`` keeps that line and
shows the output below it.  Options in brackets after ``sample``:

* ``json-indent``: the one JSON line of stdout, indented by two spaces per level;
* ``mask=KEY``: the value of the top-level JSON key ``KEY`` shown as ``"..."``
  (with ``json-indent``; for fields that change from run to run, such as
  ``compile_seconds``).

A table of figures is a Markdown table right after a marker line naming the
command that prints it (``benchmarks/docs_figures.py``)::

    <!-- figures: python benchmarks/docs_figures.py mitchell-mred -->
    | unit | 8 bits (exhaustive) | 16 bits | ...

``--figures`` also rewrites (or with ``--check``, checks) those tables, which
takes synthesis (cached) and sampled 16- and 32-bit evaluations:

    EVOAPPROXLIB=/path/to/evoapproxlib.git python benchmarks/docs_samples.py --figures

``tests/test_readme.py`` reruns each table's command with ``--cheap``: the
8-bit error figures, exhaustively, against the table as it stands.

Other figures that take synthesis or long runs are not rerun here: their blocks and
tables carry ``<!-- measured: SCRIPT ... -->`` instead (or name the
``benchmarks/`` script in the text above them), and ``tests/test_readme.py``
checks that each does and that the script exists.  The lead reruns this script
after merging, since a change to the compiler changes its reports.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: ``<!-- sample: COMMAND -->`` or ``<!-- sample[OPTION, ...]: COMMAND -->``.
MARKER = re.compile(r"^<!-- sample(?:\[(?P<options>[^\]]*)\])?: (?P<command>.+?) -->$")
#: ``<!-- figures: COMMAND -->``: the Markdown table below it is what COMMAND prints.
FIGURES = re.compile(r"^<!-- figures: (?P<command>.+?) -->$")
#: ``<!-- measured: SCRIPT ... -->``: figures from a run too long to repeat in the tests.
MEASURED = re.compile(r"^<!-- measured: (?P<command>.+?) -->$")


@dataclass
class Sample:
    """One marked block: where it is, its command and options, and its present text."""

    path: Path
    line: int               # 1-based line of the marker
    command: str
    options: tuple[str, ...]
    text: str               # the block's lines between the fences, each ending in "\n"
    prompt: bool            # the block starts with "$ COMMAND"


def documents(root: Path = ROOT) -> list[Path]:
    """README.md and every docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def _markers(lines: list[str], pattern: re.Pattern):
    """``(index, match)`` of each line of ``lines`` that ``pattern`` matches whole."""
    for index, line in enumerate(lines):
        match = pattern.match(line.rstrip("\n"))
        if match:
            yield index, match


def samples(path: Path) -> list[Sample]:
    """The marked blocks of ``path``.

    Raises
    ------
    ValueError
        A marker not followed by a fenced block.
    """
    lines = path.read_text().splitlines(keepends=True)
    found = []
    for index, match in _markers(lines, MARKER):
        if index + 1 >= len(lines) or not lines[index + 1].startswith("```"):
            raise ValueError(f"{path}:{index + 1}: a sample marker must be followed by a fenced block")
        end = next((j for j in range(index + 2, len(lines)) if lines[j].startswith("```")), None)
        if end is None:
            raise ValueError(f"{path}:{index + 2}: the fenced block is not closed")
        body = "".join(lines[index + 2:end])
        options = tuple(option.strip() for option in (match["options"] or "").split(",") if option.strip())
        found.append(Sample(path, index + 1, match["command"], options, body,
                            body.startswith(f"$ {match['command']}\n")))
    return found


def _table_end(lines: list[str], start: int) -> int:
    """The index of the first line at or after ``start`` that is not a table row."""
    end = start
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return end


def figure_tables(path: Path) -> list[Sample]:
    """The tables of figures of ``path`` (``text``: the table's lines).

    Raises
    ------
    ValueError
        A figures marker not followed by a table.
    """
    lines = path.read_text().splitlines(keepends=True)
    found = []
    for index, match in _markers(lines, FIGURES):
        end = _table_end(lines, index + 1)
        if end == index + 1:
            raise ValueError(f"{path}:{index + 1}: a figures marker must be followed by a table")
        found.append(Sample(path, index + 1, match["command"], (), "".join(lines[index + 1:end]), False))
    return found


def run_figures(table: Sample, root: Path = ROOT, *, cheap: bool = False) -> str:
    """What ``table`` should hold now; with ``cheap``, its command's ``--cheap`` run on the table as it is."""
    environment = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    argv = _argv(table.command) + (["--cheap"] if cheap else [])
    result = subprocess.run(argv, cwd=root, env=environment, text=True, timeout=3600, input=table.text,
                            capture_output=True)
    if result.returncode != 0 or not result.stdout.startswith("|"):
        message = (result.stderr.strip() or result.stdout.strip()).splitlines()
        raise ValueError(f"{table.path}:{table.line}: `{' '.join(argv[1:])}` failed (exit {result.returncode}): "
                         f"{message[-1] if message else ''}")
    return result.stdout


def _argv(command: str) -> list[str]:
    argv = shlex.split(command)
    if argv[0] == "axhls":
        return [sys.executable, "-m", "axhls", *argv[1:]]
    if argv[0] == "python":
        return [sys.executable, *argv[1:]]
    raise ValueError(f"sample command {command!r}: expected `axhls ...` or `python ...`")


def run(sample: Sample, root: Path = ROOT) -> str:
    """What ``sample``'s block should hold now."""
    environment = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(root)}
    result = subprocess.run(_argv(sample.command), cwd=root, env=environment, text=True, timeout=600,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    output = result.stdout
    if result.returncode not in (0, 1) or "Traceback" in output:
        # 1 is a finding (`check` found an overflow); 2 is a usage error, which no sample should show.
        raise ValueError(f"{sample.path}:{sample.line}: `{sample.command}` failed (exit {result.returncode}): "
                         f"{output.strip().splitlines()[-1] if output.strip() else ''}")
    if "json-indent" in sample.options:
        data = json.loads(output)
        for option in sample.options:
            if option.startswith("mask="):
                key = option.removeprefix("mask=")
                if key not in data:
                    raise ValueError(f"{sample.path}:{sample.line}: mask={key}: no such key in the output")
                data[key] = "..."
        output = json.dumps(data, indent=2) + "\n"
    if output and not output.endswith("\n"):
        output += "\n"
    return (f"$ {sample.command}\n" if sample.prompt else "") + output


def stale(paths: list[Path], root: Path = ROOT) -> list[tuple[Sample, str]]:
    """Every sample of ``paths`` whose block differs from its command's output, with that output."""
    return [(sample, fresh) for path in paths for sample in samples(path)
            if (fresh := run(sample, root)) != sample.text]


def rewrite(path: Path, fresh: dict[int, str]) -> None:
    """Replace the blocks (or tables) after the markers on the lines in ``fresh`` (1-based) with their new text."""
    lines = path.read_text().splitlines(keepends=True)
    for marker in sorted(fresh, reverse=True):
        if FIGURES.match(lines[marker - 1].rstrip("\n")):
            start, end = marker, _table_end(lines, marker)      # from the table's first line
        else:
            start = marker + 1                # index of the first line inside the fence
            end = next(j for j in range(start, len(lines)) if lines[j].startswith("```"))
        lines[start:end] = [fresh[marker]]
    path.write_text("".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a sample is stale")
    parser.add_argument("--figures", action="store_true",
                        help="the tables of figures too (synthesis, sampled 16/32-bit metrics; $EVOAPPROXLIB)")
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README.md, docs/*.md)")
    args = parser.parse_args(argv)
    paths = args.files or documents()
    try:
        outdated = stale(paths)
        if args.figures:
            outdated += [(table, fresh) for path in paths for table in figure_tables(path)
                         if (fresh := run_figures(table)) != table.text]
    except (ValueError, subprocess.TimeoutExpired) as error:
        print(f"docs_samples: {error}", file=sys.stderr)
        return 2
    for sample, _ in outdated:
        print(f"{os.path.relpath(sample.path, ROOT)}:{sample.line}: stale: {sample.command}", file=sys.stderr)
    if args.check:
        return 1 if outdated else 0
    by_file: dict[Path, dict[int, str]] = {}
    for sample, fresh in outdated:
        by_file.setdefault(sample.path, {})[sample.line] = fresh
    for path, fresh in by_file.items():
        rewrite(path, fresh)
    print(f"{len(outdated)} sample(s) rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
