"""Reference p-values of the wild cluster bootstrap (WCR) from the ``wildboottest`` package.

Runs ``wildboottest`` 0.3.2 (py-econometrics) on the small-K datasets of
``make_small_k_data.py`` under full enumeration of the 2^K Rademacher sign vectors
(deterministic), for the micro mean (intercept-only OLS of the per-query scores,
clustered by document) and the macro mean (one row per document, its rate), at
hypothesised values θ₀ = θ̂ + m · se_CR1. The package tests β = 0 only, so the outcome
is y − θ₀. Stored per case: the t-statistic and p-value of the public
``wildboottest()`` function, and the bootstrap t* of every sign vector from its
``WildboottestCL`` class (in its enumeration order) for two θ₀ per dataset, and how many
of the two constant sign vectors (exact ties, |t*| = |t̂|) its floating-point comparison
counted. wildboottest is not a test
dependency; to regenerate, in a separate environment:

    python3 -m venv /tmp/venv-wild
    /tmp/venv-wild/bin/pip install wildboottest==0.3.2 numpy pandas statsmodels
    /tmp/venv-wild/bin/python tests/reference/make_wild_reference.py
"""

from __future__ import annotations

import csv
import json
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np
import statsmodels.api as sm
from wildboottest.wildboottest import WildboottestCL, wildboottest

HERE = Path(__file__).resolve().parent
OUT = HERE / "wild_reference.json"
MULTIPLES = (-3.1, -2.2, -1.3, -0.45, 0.6, 1.7, 2.6)
B = 1_000_000  # > 2^K: the package then enumerates every sign vector
T_BOOT_AT = (-1.3, 1.7)  # the multiples whose t* are stored (kept small)


def _read(name: str) -> tuple[np.ndarray, np.ndarray]:
    with open(HERE / "data_small_k" / f"{name}.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return np.array([r["doc"] for r in rows]), np.array([float(r["y"]) for r in rows])


def _rows(doc: np.ndarray, y: np.ndarray, estimand: str) -> tuple[np.ndarray, np.ndarray]:
    if estimand == "micro":
        return doc, y
    ids = np.unique(doc)
    return ids, np.array([y[doc == d].mean() for d in ids])


def _se_cr1(cluster: np.ndarray, y: np.ndarray) -> float:
    ids = np.unique(cluster)
    u = np.array([np.sum(y[cluster == d] - y.mean()) for d in ids])
    K = len(ids)
    return float(np.sqrt(K / (K - 1) * np.sum(u * u)) / len(y))


def _case(cluster: np.ndarray, y: np.ndarray, theta0: float) -> dict:
    yy = y - theta0
    X = np.ones((len(y), 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = sm.OLS(yy, sm.add_constant(X, has_constant="skip"))
        res = wildboottest(model, B=B, cluster=cluster, param="const", show=False, seed=1)
    boot = WildboottestCL(X=X, Y=yy, cluster=cluster, R=np.array([1.0]), B=B, seed=1)
    boot.get_scores(bootstrap_type="11", impose_null=True)
    boot.get_weights(weights_type="rademacher")
    boot.get_numer()
    boot.get_denom()
    boot.get_tboot()
    boot.get_vcov()
    boot.get_tstat()
    boot.get_pvalue(pval_type="two-tailed")
    assert boot.full_enumeration
    out = {
        "theta0": theta0,
        "statistic": float(np.ravel(res["statistic"].iloc[0])[0]),
        "p_value": float(res["p-value"].iloc[0]),
        "class_statistic": float(np.ravel(boot.t_stat)[0]),
        "class_p_value": float(boot.pvalue),
    }
    t_boot = np.ravel(boot.t_boot)
    # The constant sign vectors (first and last) give |t*| = |t̂| exactly; how many the
    # package's own floating-point comparison counted as exceeding:
    ties = int(np.sum(np.abs(np.ravel(boot.t_stat)[0]) < np.abs(t_boot[[0, -1]])))
    return out | {"ties_counted": ties, "t_boot": [float(t) for t in t_boot]}


def main() -> None:
    names = sorted(p.stem for p in (HERE / "data_small_k").glob("*.csv"))
    out: dict = {"package": f"wildboottest {version('wildboottest')}", "cases": []}
    for name in names:
        doc, y = _read(name)
        for estimand in ("micro", "macro"):
            cluster, yy = _rows(doc, y, estimand)
            theta, se = float(yy.mean()), _se_cr1(cluster, yy)
            for m in MULTIPLES:
                case = _case(cluster, yy, theta + m * se)
                if m not in T_BOOT_AT:
                    del case["t_boot"]
                out["cases"].append({"dataset": name, "estimand": estimand, "multiple": m} | case)
    cases = ",\n".join(json.dumps(c) for c in out["cases"])
    head = json.dumps(out["package"])
    OUT.write_text(f'{{"package": {head}, "cases": [\n{cases}\n]}}\n', encoding="utf-8")


if __name__ == "__main__":
    main()
