"""200 random kernels, compiled and simulated in Amaranth, against their Python runs.

Batched 20 programs per test so that a failure names its batch and pytest-xdist
can spread the batches. Reproduce and shrink a failure with
``python benchmarks/fuzz.py --seed 2026 --start INDEX --count 1``.
"""

import pytest

from sim import fuzz

SEED = 2026
BATCH = 20
BATCHES = 10


@pytest.mark.parametrize("batch", range(BATCHES))
def test_random_kernels_match_python(batch, tmp_path):
    failures = []
    for index in range(batch * BATCH, (batch + 1) * BATCH):
        verdict = fuzz.check(fuzz.generate(SEED, index), directory=tmp_path)
        if not verdict.passed:
            failures.append(f"index {index}: {verdict.kind}: {verdict.detail}")
    assert not failures, "\n".join(failures)
