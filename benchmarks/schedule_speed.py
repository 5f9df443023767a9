"""How long the scheduler takes on loop bodies of 5 to 200 operations.

Run ``python benchmarks/schedule_speed.py [--seed N] [--repeat K]``.  Prints
one line per body size: the MII, the II reached, the depth and the time of
``minimum_ii`` + ``schedule`` + ``verify`` (the compiler's whole scheduling
cost for one loop), best of K runs.  The target is under 2 s per kernel.

The bodies imitate if-converted kernels: arrays with one read and one write
port, adders and comparators that chain, 3-cycle multipliers, selects that
merge the branches of ``if``s (whose memory accesses are exclusive),
accumulators carried from one iteration to the next, and occasional
read-after-write memory dependences at distance 1 or 2.
"""

from __future__ import annotations

import argparse
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from hls.schedule import (Dependence, Operation, OperatorType, Problem, minimum_ii,  # noqa: E402
                          schedule, verify)


def kernel_like_problem(size: int, rng: random.Random) -> Problem:
    problem = Problem(clock_period_ns=10.0, name=f"body{size}")
    arrays = max(1, size // 25)
    for array in range(arrays):
        problem.add_operator_type(OperatorType(f"read:a{array}", 1, 1.5, 1.0, limit=1))
        problem.add_operator_type(OperatorType(f"write:a{array}", 1, 1.5, 0.0, limit=1))
    problem.add_operator_type(OperatorType("add", 0, 2.0))
    problem.add_operator_type(OperatorType("cmp", 0, 1.5))
    problem.add_operator_type(OperatorType("select", 0, 0.8))
    problem.add_operator_type(OperatorType("mul", 3, 1.0, 0.5))
    values: list[str] = []
    branch_of: dict[str, tuple[int, int]] = {}  # op -> (if number, side)
    condition = None
    if_number = 0
    side = 0

    def add(kind: str, operands: list[str]) -> str:
        name = f"{kind.split(':')[0]}{len(problem.operations)}"
        problem.add_operation(Operation(name, kind, (len(problem.operations) // 3 + 1,)))
        for operand in operands:
            problem.add_dependence(Dependence(operand, name))
        if condition is not None:
            branch_of[name] = (if_number, side)
        values.append(name)
        return name

    accumulators = []
    while len(problem.operations) < size:
        choice = rng.random()
        pick = lambda: rng.sample(values, min(len(values), 2))  # noqa: E731
        if choice < 0.2 or not values:
            add(f"read:a{rng.randrange(arrays)}", pick()[:1])
        elif choice < 0.45:
            add("add", pick())
        elif choice < 0.55:
            add("mul", pick())
        elif choice < 0.62:
            condition = add("cmp", pick())
            if_number += 1
            side = 0
        elif choice < 0.7 and condition is not None:
            side = 1 - side
            if side == 0:
                merged = add("select", [condition] + pick())
                condition = None
                accumulators.append(merged)
        elif choice < 0.8:
            written = add(f"write:a{rng.randrange(arrays)}", pick())
            if rng.random() < 0.3:
                reads = [name for name in values if name.startswith("read")]
                if reads:
                    problem.add_dependence(Dependence(written, rng.choice(reads), rng.choice((1, 2)), "memory"))
        else:
            accumulators.append(add("add", pick()))
    for name in accumulators[:max(1, size // 20)]:
        problem.add_dependence(Dependence(name, name, 1))
    ops = list(branch_of)
    for a in ops:
        for b in ops:
            if a < b and branch_of[a][0] == branch_of[b][0] and branch_of[a][1] != branch_of[b][1]:
                problem.add_exclusion(a, b)
    return problem


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    print(f"{'ops':>5} {'deps':>5} {'MII':>4} {'II':>4} {'depth':>5} {'bound':>10} {'time [s]':>9}")
    for size in (5, 10, 25, 50, 100, 150, 200):
        problem = kernel_like_problem(size, random.Random(arguments.seed * 1000 + size))
        best = float("inf")
        for _ in range(arguments.repeat):
            began = time.perf_counter()
            bound = minimum_ii(problem)
            result = schedule(problem)
            verify(problem, result)
            best = min(best, time.perf_counter() - began)
        print(f"{len(problem.operations):>5} {len(problem.dependences):>5} {bound.mii:>4} {result.ii:>4} "
              f"{result.depth(problem):>5} {bound.kind:>10} {best:>9.3f}")


if __name__ == "__main__":
    main()
