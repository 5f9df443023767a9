"""The files the README's commands read are shipped in the repository or fetched by a command the README gives."""

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from axhls.cli import main

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def shell_commands(text: str = README) -> list[list[str]]:
    """Every command of the ``sh`` blocks of ``text`` (the README's), in order, as argv lists (continuations joined)."""
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            argv = shlex.split(line, comments=True)
            if argv:
                commands.append(argv)
    return commands


def inputs_of(argv: list[str]) -> list[str]:
    """The paths an ``axhls`` command reads: Verilog files and folders, kernels, argument files."""
    paths = []
    for index, token in enumerate(argv):
        previous = argv[index - 1] if index else ""
        if previous in ("--verilog", "--with-verilog", "--args", "survey"):
            paths.append(token)
        elif re.fullmatch(r"[\w./-]+\.py:\w+", token):
            paths.append(token.split(":")[0])
    return paths


def fetched_by(commands: list[list[str]]) -> set[str]:
    """The paths the README's ``git clone``/``mkdir``/``cp`` commands make, normalised without a trailing /."""
    made, clones = set(), set()
    for argv in commands:
        if argv[:2] == ["git", "clone"]:
            url = argv[-1]
            assert url.startswith("https://github.com/"), url         # a public address anyone can reach
            clones.add(Path(url).stem)
        elif argv[0] == "mkdir":
            made.update(path.rstrip("/") for path in argv[1:] if not path.startswith("-"))
        elif argv[0] == "cp":
            *sources, destination = argv[1:]
            for source in sources:
                assert source.split("/")[0] in clones, f"{source}: copied from nothing the README fetches"
                name = Path(source).name
                made.add(name if destination == "." else f"{destination.rstrip('/')}/{name}")
    return made


def test_every_file_a_readme_command_reads_is_shipped_or_fetched():
    commands = shell_commands()
    fetched = fetched_by(commands)
    needed = [path for argv in commands if argv[0] == "axhls" for path in inputs_of(argv)]
    assert len(needed) >= 10                     # the scan does find the commands' inputs
    missing = [path for path in needed if not (ROOT / path).exists() and path.rstrip("/") not in fetched]
    assert missing == []


def test_the_shipped_broken_array_multiplier_is_trunc_mul_with_c_6(capsys):
    # The README's comment on `units eval --verilog examples/bam8.v`.
    results = []
    for argv in (["--verilog", str(ROOT / "examples" / "bam8.v"), "--top", "bam8", "--kind", "mul"],
                 ["trunc_mul", "--width", "8", "--param", "c=6"]):
        assert main(["units", "eval", *argv, "--json"]) == 0
        results.append(json.loads(capsys.readouterr().out))
    assert results[0]["metrics"] == results[1]["metrics"]
    assert results[0]["exhaustive"] and results[0]["samples"] == 65536


# --- the EvoApproxLib files the docs copy exist on the branch their clone command checks out ----------

DOCUMENTS = {"README.md": README, "docs/characterize.md": (ROOT / "docs" / "characterize.md").read_text()}


def clones_and_copies(text: str) -> tuple[dict[str, str], list[str]]:
    """``({cloned folder: branch}, [copied source])`` of the ``sh`` blocks of ``text``."""
    clones, copies = {}, []
    for argv in shell_commands(text):
        if argv[:2] == ["git", "clone"]:
            assert "--branch" in argv, f"{' '.join(argv)}: names no branch, so the files it gives can change"
            clones[Path(argv[-1]).stem] = argv[argv.index("--branch") + 1]
        elif argv[0] == "cp":
            copies += argv[1:-1]
    return clones, copies


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_evoapproxlib_clone_checks_out_the_branch_the_benchmark_reads(name):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from fpga_multipliers import REVISION
    clones, copies = clones_and_copies(DOCUMENTS[name])
    assert clones == {"evoapproxlib": REVISION} and copies


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_copied_evoapproxlib_file_is_on_that_branch(name):
    """With ``EVOAPPROXLIB`` set to a git mirror of ehw-fit/evoapproxlib (as for ``docs_samples.py --figures``)."""
    mirror = os.environ.get("EVOAPPROXLIB")
    if not mirror:
        pytest.skip("set EVOAPPROXLIB to a git mirror of ehw-fit/evoapproxlib")
    clones, copies = clones_and_copies(DOCUMENTS[name])
    missing = []
    for source in copies:
        folder, _, path = source.partition("/")
        found = subprocess.run(["git", "-C", mirror, "cat-file", "-e", f"{clones[folder]}:{path}"],
                               capture_output=True)
        if found.returncode != 0:
            missing.append(f"{clones[folder]}:{path}")
    assert missing == []
