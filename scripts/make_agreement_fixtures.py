"""Reference values for judge–human agreement from independent implementations.

Writes ``tests/reference/agreement_reference.json``: a few small item tables (judge
label, human label or null, document) and, for each, Cohen's κ from scikit-learn's
``cohen_kappa_score`` (weights None, linear, quadratic) and Krippendorff's α from the
``krippendorff`` package (nominal, ordinal, interval where the labels are numbers).
``tests/test_agreement.py`` checks ``ragstat.metrics.judging`` against them to 1e-12;
CI reads the JSON and needs neither package.

Usage (from the repository root)::

    python scripts/make_agreement_fixtures.py
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import sklearn
from sklearn.metrics import cohen_kappa_score

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "reference" / "agreement_reference.json"
SEED = 20231


def _items(rng: np.random.Generator, scale: list[Any], n: int, K: int, p_label: float) -> dict:
    """A judge that mostly agrees (off by one grade at times), humans labelling a share."""
    q = len(scale)
    human = rng.integers(0, q, n)
    judge = np.clip(human + rng.choice([-1, 0, 0, 0, 1], n), 0, q - 1)
    flip = rng.random(n) < 0.1
    judge[flip] = rng.integers(0, q, int(flip.sum()))
    labelled = rng.random(n) < p_label
    labelled[:2] = True
    return {
        "doc_id": [f"d{d:02d}" for d in rng.integers(0, K, n)],
        "judge": [scale[i] for i in judge],
        "human": [scale[i] if ok else None for i, ok in zip(human, labelled, strict=True)],
    }


def _reference(case: dict, order: list[Any], numeric: bool) -> dict:
    pairs = [(j, h) for j, h in zip(case["judge"], case["human"], strict=True) if h is not None]
    # as text: scikit-learn refuses float labels ("continuous"); κ's weights use only the
    # categories' order, given by ``labels``
    j, h = [str(p[0]) for p in pairs], [str(p[1]) for p in pairs]
    kappa = {
        str(w): float(cohen_kappa_score(j, h, labels=[str(v) for v in order], weights=w))
        for w in (None, "linear", "quadratic")
    }
    if numeric:
        data = np.array(
            [case["judge"], [np.nan if v is None else v for v in case["human"]]], dtype=float
        )
        levels = ("nominal", "ordinal", "interval")
        domain = np.asarray(order, dtype=float)
    else:
        data = np.array([case["judge"], ["nan" if v is None else v for v in case["human"]]])
        levels = ("nominal", "ordinal")
        domain = np.asarray(order)
    alpha = {
        lv: float(
            krippendorff.alpha(reliability_data=data, level_of_measurement=lv, value_domain=domain)
        )
        for lv in levels
    }
    return {"kappa": kappa, "alpha": alpha}


def main() -> None:
    rng = np.random.default_rng(SEED)
    specs = {
        "pass_fail": (["fail", "pass"], 120, 12, 0.6, False),
        "grades_1_5": ([1, 2, 3, 4, 5], 300, 25, 0.5, True),
        "uneven_numbers": ([0.0, 0.5, 2.0, 3.5], 200, 15, 0.7, True),
        "ordered_text": (["poor", "fair", "good", "excellent"], 150, 10, 0.8, False),
    }
    cases = {}
    for name, (order, n, K, p, numeric) in specs.items():
        case = _items(rng, order, n, K, p)
        cases[name] = {"labels": order, "numeric": numeric, **case,
                       "expected": _reference(case, order, numeric)}  # fmt: skip
    out = {
        "generator": "scripts/make_agreement_fixtures.py",
        "versions": {"scikit-learn": sklearn.__version__, "krippendorff": _version()},
        "seed": SEED,
        "cases": cases,
    }
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


def _version() -> str:
    from importlib.metadata import version

    return version("krippendorff")


if __name__ == "__main__":
    main()
