"""Clustered prediction-powered inference: equal to ppi_py on independent items, the
per-document influence function by hand, the verb, its command line and a coverage run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer

import ragstat.cli as cli
from ragstat.api.verbs.ppi import ppi
from ragstat.cli import ppi as ppi_cli
from ragstat.errors import DesignError, InputError
from ragstat.inference.ppi import labels_for_half_width, ppi_analysis, ppi_mean

REFERENCE = Path(__file__).parent / "reference" / "ppi_reference.json"
CASES = json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]


def _stack(case: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y, yhat, yu = (np.asarray(case[k]) for k in ("y", "yhat", "yhat_unlabeled"))
    f = np.r_[yhat, yu]
    return f, np.r_[y, np.full(yu.size, np.nan)], np.arange(f.size)


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_one_item_per_document_equals_ppi_py(case):
    f, y, doc = _stack(case)
    for run in case["runs"]:
        lam = "auto" if run["lam"] is None else run["lam"]
        fit = ppi_mean(f, y, doc, lam=lam, design="disjoint_documents", dist="normal",
                       level=1 - run["alpha"])  # fmt: skip
        got = (fit.estimate, fit.lower, fit.upper, fit.lam)
        want = (run["estimate"], run["lower"], run["upper"], run["lam_used"])
        assert got == pytest.approx(want, abs=1e-8, rel=0)
        if lam != "auto":  # CR0 with one item per document: both designs give one variance
            same = ppi_mean(f, y, doc, lam=lam, dist="normal", level=1 - run["alpha"])
            assert (same.lower, same.upper) == pytest.approx(want[1:3], abs=1e-8, rel=0)


def _clustered(seed: int = 0, K: int = 30):
    rng = np.random.default_rng(seed)
    m = rng.integers(1, 7, K)
    doc = np.repeat(np.arange(K), m)
    y = rng.normal(0, 1, K)[doc] + rng.normal(0, 1, doc.size)
    f = 0.7 * y + rng.normal(0, 0.5, K)[doc] + rng.normal(0, 0.3, doc.size)
    lab = rng.random(doc.size) < 0.4
    return f, np.where(lab, y, np.nan), doc


def test_same_documents_influence_function_by_hand():
    f, y, doc = _clustered()
    lab, lam = ~np.isnan(y), 0.6
    N, n = (~lab).sum(), lab.sum()
    r = y[lab] - lam * f[lab]
    u = np.zeros(doc.max() + 1)
    for i in np.flatnonzero(~lab):
        u[doc[i]] += lam * (f[i] - f[~lab].mean()) / N
    for j, rj in zip(np.flatnonzero(lab), r, strict=True):
        u[doc[j]] += (rj - r.mean()) / n
    K = u.size
    fit = ppi_mean(f, y, doc, lam=lam, method="cr1")
    assert fit.method == "cr1"
    assert fit.estimate == pytest.approx(lam * f[~lab].mean() + r.mean(), abs=1e-12)
    assert fit.se == pytest.approx(np.sqrt(K / (K - 1) * np.sum(u * u)), abs=1e-12)
    assert fit.df == K - 1


@pytest.mark.parametrize("lam", ["auto", 0.0, 0.6, 1.0])
def test_jackknife_by_hand_lambda_retuned(lam):
    f, y, doc = _clustered(seed=2)
    K = doc.max() + 1
    loo = np.array([ppi_mean(f[doc != k], y[doc != k], doc[doc != k], lam=lam).estimate
                    for k in range(K)])  # fmt: skip
    fit = ppi_mean(f, y, doc, lam=lam)
    assert fit.method == "jackknife" and fit.df == K - 1
    assert fit.se == pytest.approx(np.sqrt((K - 1) / K * np.sum((loo - loo.mean()) ** 2)),
                                   abs=1e-12)  # fmt: skip
    assert fit.estimate == ppi_mean(f, y, doc, lam=lam, method="cr1").estimate


def test_method_resolution_and_refusals():
    f, y, doc = _clustered(seed=2)
    assert ppi_mean(f, y, doc, dist="normal").method == "cr0"
    assert ppi_mean(f, y, doc, dist="normal", method="jackknife").method == "jackknife"
    y_dis = np.where(doc % 3 == 0, np.nan_to_num(y) + f, np.nan)
    assert ppi_mean(f, y_dis, doc, design="disjoint_documents").method == "cr1"
    with pytest.raises(InputError, match="same_documents"):
        ppi_mean(f, y_dis, doc, design="disjoint_documents", method="jackknife")
    with pytest.raises(InputError, match="method"):
        ppi_mean(f, y, doc, method="cr2")
    y_one = np.where(doc == 0, np.nan, np.nan_to_num(y))  # every unlabelled item in document 0
    with pytest.raises(DesignError, match="unlabelled items come from one document"):
        ppi_mean(f, y_one, doc)


def test_auto_lambda_minimises_the_clustered_variance():
    f, y, doc = _clustered(seed=3)
    best = ppi_mean(f, y, doc, method="cr1")
    assert 0 < best.lam < 1
    for lam in (best.lam - 0.05, best.lam + 0.05, 0.0, 1.0):
        assert ppi_mean(f, y, doc, lam=lam, method="cr1").se > best.se


def test_disjoint_documents_satterthwaite_df_and_human_only():
    f, y, doc = _clustered(seed=4)
    y = np.where(doc % 3 == 0, np.nan_to_num(y) + f, np.nan)  # every third document, fully
    a = ppi_analysis(f, y, doc, design="disjoint_documents", lam=1.0)
    k_l = np.unique(doc[doc % 3 == 0]).size
    assert a.human_only.df == k_l - 1
    assert min(k_l, doc.max() + 1 - k_l) - 1 <= a.ppi.df <= doc.max() - 1
    assert a.effective_labels == pytest.approx(a.ppi.n_labelled * a.human_only.se**2 / a.ppi.se**2)


def test_labels_needed_reach_the_target():
    f, y, doc = _clustered(seed=5, K=60)
    fit = ppi_mean(f, y, doc)
    target = 0.8 * fit.quantile * fit.se
    need = labels_for_half_width(fit, target)
    assert need is not None and need > fit.n_labelled
    v = fit.var_unlabelled + (fit.se**2 - fit.var_unlabelled) * fit.n_labelled / need
    assert fit.quantile * np.sqrt(v) <= target
    assert labels_for_half_width(fit, 0.5 * fit.quantile * np.sqrt(fit.var_unlabelled)) is None


def _frame(seed: int = 0) -> pd.DataFrame:
    f, y, doc = _clustered(seed)
    f01, y01 = 1 / (1 + np.exp(-f)), (y > 0).astype(float)
    y01[np.isnan(y)] = np.nan
    return pd.DataFrame({"query_id": [f"q{i}" for i in range(f.size)],
                         "doc_id": [f"d{d}" for d in doc], "judge": f01, "human": y01})  # fmt: skip


def test_paired_difference_is_ppi_on_differences():
    a = _frame(1)
    b = a.assign(judge=a.judge**2, human=a.human.where(a.index % 3 > 0, 1 - a.human))
    both = pd.concat([a.assign(system="A"), b.assign(system="B")])
    r = ppi(both, judge="judge", human="human", systems=("A", "B"))
    d = ppi_analysis((a.judge - b.judge).to_numpy(), (a.human - b.human).to_numpy(),
                     a.doc_id.to_numpy())  # fmt: skip
    assert r.estimand == "difference A − B"
    for got, want in ((r.analysis.ppi, d.ppi), (r.analysis.human_only, d.human_only)):
        assert (got.estimate, got.lower, got.upper, got.lam) == pytest.approx(
            (want.estimate, want.lower, want.upper, want.lam), abs=1e-12
        )
    assert r.to_dict()["ppi"]["estimate"] == pytest.approx(d.ppi.estimate)


def main(args: list[str], monkeypatch) -> int:
    """``ragstat ARGS``; through a local app while the verb is not registered yet."""
    if not any(c.name == "ppi" for c in cli.app.registered_commands):
        app = typer.Typer(pretty_exceptions_enable=False)
        app.callback()(lambda: None)
        app.command("ppi")(ppi_cli.ppi)
        monkeypatch.setattr(cli, "app", app)
    return cli.main(["ppi", *args])


def test_cli_json_equals_the_twin(tmp_path, capsys, monkeypatch):
    path = tmp_path / "items.csv"
    _frame().to_csv(path, index=False)
    args = [str(path), "--judge", "judge", "--human", "human", "--target-half-width", "0.2"]
    assert main([*args, "--json", "--out", str(tmp_path / "out")], monkeypatch) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == ppi(path, judge="judge", human="human", target_half_width=0.2).to_dict()
    saved = json.loads((tmp_path / "out" / "result.json").read_text(encoding="utf-8"))
    assert saved == printed
    assert main([*args, "--lambda", "1"], monkeypatch) == 0
    assert "human_only" in capsys.readouterr().out


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda t: t.assign(human=t.human * 5), "outside the judge's scale"),
        (lambda t: t.assign(human=np.nan), "no human labels"),
        (lambda t: t.assign(human=np.where(t.doc_id == "d0", 1.0, np.nan)),
         "the labelled items come from one document"),
        (lambda t: t.assign(human=t.human.astype(object).where(t.index != 0, "yes")),
         "cells of score column 'human' are not numbers (row 1: 'yes')"),
    ],
)  # fmt: skip
def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, monkeypatch, edit, message):
    path = tmp_path / "items.jsonl"
    table = edit(_frame())
    table.to_json(path, orient="records", lines=True)
    assert main([str(path), "--judge", "judge", "--human", "human"], monkeypatch) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


# ---------------------------------------------------------------- coverage (slow)


def _census(rng: np.random.Generator, M: int = 3000):
    """Documents differ: a document-level pass rate p_d ~ Beta(2, 2) (y_i ~ Bernoulli(p_d))
    and a document-level judge error b_d ~ N(0, 0.2²) shared by the document's items:
    f_i = clip(0.15 + 0.6 y_i + b_d + N(0, 0.1²), 0, 1). Sizes 1 + Poisson(5)."""
    m = 1 + rng.poisson(5, M)
    doc = np.repeat(np.arange(M), m)
    y = (rng.random(doc.size) < rng.beta(2, 2, M)[doc]).astype(float)
    f = np.clip(0.15 + 0.6 * y + rng.normal(0, 0.2, M)[doc] + rng.normal(0, 0.1, doc.size), 0, 1)
    return doc, y, f, m


def _coverage(K: int, R: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    doc, y, f, m = _census(rng)
    starts, theta = np.concatenate([[0], np.cumsum(m)[:-1]]), y.mean()
    out = {"clustered": 0.0, "iid": 0.0, "ppi_width": 0.0, "human_width": 0.0}
    done = 0
    while done < R:
        idx = np.concatenate([np.arange(starts[d], starts[d] + m[d])
                              for d in rng.choice(m.size, K, replace=False)])  # fmt: skip
        lab = rng.random(idx.size) < 0.3  # label a random 30 % of the sampled items
        if np.unique(doc[idx][lab]).size < 2 or lab.all():
            continue
        yy, ff = np.where(lab, y[idx], np.nan), f[idx]
        a = ppi_analysis(ff, yy, doc[idx])
        iid = ppi_mean(ff, yy, np.arange(idx.size), design="disjoint_documents", dist="normal")
        out["clustered"] += a.ppi.lower <= theta <= a.ppi.upper
        out["iid"] += iid.lower <= theta <= iid.upper
        out["ppi_width"] += a.ppi.upper - a.ppi.lower
        out["human_width"] += a.human_only.upper - a.human_only.lower
        done += 1
    return {k: v / R for k, v in out.items()}


@pytest.mark.slow
def test_clustered_ppi_covers_and_iid_ppi_does_not():
    R, se = 2000, np.sqrt(0.95 * 0.05 / 2000)
    for K in (20, 50):
        c = _coverage(K, R, seed=K)
        print(f"K={K}: clustered PPI {c['clustered']:.3f}, iid PPI {c['iid']:.3f}; "
              f"mean width PPI {c['ppi_width']:.3f} vs human-only {c['human_width']:.3f}")  # fmt: skip
        assert c["iid"] < c["clustered"] - 0.05
        assert c["ppi_width"] < c["human_width"]
        assert abs(c["clustered"] - 0.95) <= 3 * se  # the jackknife (CR1: 92–93 % at K = 20)
