"""The simulator's numbers are pinned: speed work on `ragstat.simulation` must not move them.

tests/reference/simulate_speed_equivalence.json was written by
scripts/make_simulate_fixture.py from the code before the simulator was sped up
(issue 20). Coverage counts, availability and the unavailable share must match
exactly; widths, bias, RMSE and the bounds to 1e-12 relative. The analytic methods
match bit for bit; the document bootstraps' inner products are now one matrix product
per group of samples, whose sums BLAS orders differently, so their bounds may move by
a few units in the last place (≤ 4e-16 relative where measured), as they may with
another BLAS.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "reference" / "simulate_speed_equivalence.json"
sys.path.insert(0, str(ROOT / "scripts"))

import make_simulate_fixture as gen  # noqa: E402

REFERENCE = json.loads(FIXTURE.read_text())
EXACT = ("k", "estimand", "method", "reps", "coverage", "unavailable")


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    if isinstance(a, str):
        return a == b
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-15)


@pytest.mark.parametrize("name", sorted(gen.CONFIGS))
def test_coverage_rows_unchanged(name: str) -> None:
    kind, kwargs = gen.CONFIGS[name]
    got = gen.coverage_rows(kind, kwargs)
    want = REFERENCE["coverage"][name]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert {k: g[k] for k in EXACT} == {k: w[k] for k in EXACT}
        for key in w:
            assert _close(g[key], w[key]), (name, g["estimand"], g["method"], key)


@pytest.mark.parametrize("name", sorted(gen.BLOCK_CASES))
def test_block_intervals_unchanged(name: str) -> None:
    got = gen.block_intervals(*gen.BLOCK_CASES[name])
    want = REFERENCE["blocks"][name]
    assert sorted(got) == sorted(want)
    for pair, w in want.items():
        g = got[pair]
        assert g["available"] == w["available"], pair
        for col in ("estimate", "lower", "upper"):
            a = np.array([np.nan if v is None else v for v in g[col]])
            b = np.array([np.nan if v is None else v for v in w[col]])
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15, err_msg=f"{pair} {col}")
