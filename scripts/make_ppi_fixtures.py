"""Write tests/reference/ppi_reference.json: ppi_py's PPI(++) mean intervals on fixed data.

Run from the repository root with ppi-python installed (a dev dependency):

    python scripts/make_ppi_fixtures.py

Each case holds the labelled pairs (y, ŷ), the unlabelled predictions, and what
``ppi_py.ppi_mean_ci`` / ``ppi_mean_pointestimate`` return for λ chosen by ppi_py
(``lam=None``, PPI++ power tuning) and for fixed λ; the tests compare ragstat's
``ppi_mean(..., design="disjoint_documents", dist="normal")`` on one item per document
with these numbers (1e-8). The tests need only the JSON, not ppi_py.
"""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import ppi_py
from ppi_py.ppi import _calc_lam_glm

OUT = Path(__file__).resolve().parents[1] / "tests" / "reference" / "ppi_reference.json"


def _auto_lam(y: np.ndarray, yhat: np.ndarray, yhat_u: np.ndarray) -> float:
    """The λ ppi_mean_ci picks with lam=None (its own code path, reproduced call for call)."""
    theta = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=1)
    lam = _calc_lam_glm(y - theta, yhat - theta, yhat_u - theta, np.eye(1), coord=None, clip=True)
    return float(lam)


def _case(name: str, y: np.ndarray, yhat: np.ndarray, yhat_u: np.ndarray) -> dict:
    runs = []
    for lam in (None, 0.0, 1.0, 0.3, 1.7):
        for alpha in (0.05, 0.1):
            lo, hi = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=lam)
            est = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)
            runs.append({
                "lam": lam, "alpha": alpha,
                "lam_used": _auto_lam(y, yhat, yhat_u) if lam is None else lam,
                "estimate": float(np.ravel(est)[0]),
                "lower": float(np.ravel(lo)[0]), "upper": float(np.ravel(hi)[0]),
            })  # fmt: skip
    return {"name": name, "y": y.tolist(), "yhat": yhat.tolist(),
            "yhat_unlabeled": yhat_u.tolist(), "runs": runs}  # fmt: skip


def main() -> None:
    rng = np.random.default_rng(20231101)
    cases = []
    # continuous labels, a biased and noisy judge
    n, N = 60, 400
    y = rng.normal(0.5, 1.0, n)
    cases.append(_case("continuous", y, 0.8 * y + 0.3 + rng.normal(0, 0.6, n),
                       rng.normal(0.7, 1.0, N)))  # fmt: skip
    # pass/fail labels, a judge probability in [0, 1]
    n, N = 45, 900
    p = rng.uniform(0, 1, n + N)
    yb = (rng.uniform(0, 1, n) < p[:n]).astype(float)
    cases.append(_case("binary", yb, np.clip(p[:n] + 0.1, 0, 1), np.clip(p[n:] + 0.1, 0, 1)))
    # a judge that barely predicts (λ near 0, clipped)
    n, N = 30, 200
    y = rng.normal(0, 1, n)
    cases.append(_case("weak_judge", y, -0.2 * y + rng.normal(0, 1, n), rng.normal(0, 1, N)))
    payload = {"source": f"ppi-python {version('ppi-python')}",
               "script": "scripts/make_ppi_fixtures.py", "cases": cases}  # fmt: skip
    OUT.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
