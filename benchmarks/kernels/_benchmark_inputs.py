"""Deterministic argument generators shared by the benchmark kernels' EXAMPLES."""

import random


def values(seed: int, count: int, low: int, high: int) -> list[int]:
    """``count`` integers in ``[low, high]`` from a private seeded generator."""
    generator = random.Random(seed)
    return [generator.randint(low, high) for _ in range(count)]


def padded(items: list[int], depth: int, fill: int = 0) -> list[int]:
    """``items`` followed by ``fill`` up to ``depth`` elements."""
    return list(items) + [fill] * (depth - len(items))
