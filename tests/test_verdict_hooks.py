"""Follow-ups of issue 27: comparison reprs open with their verdicts once, the two-sample
verdict lives in `inference.verdict`, and Korn–Graubard's message states the n_eff it used."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import stats as sps

from ragstat.cli import render
from ragstat.inference import bounded, verdict
from ragstat.inference import methods as m
from ragstat.inference.estimators import fpc_factor
from ragstat.inference.paired import compare
from ragstat.inference.two_sample import two_sample
from ragstat.records import DocStats


def _constant(value: float, sizes: tuple[int, ...] = (3, 8, 5, 20)) -> DocStats:
    n = np.array(sizes, dtype=float)
    return DocStats(
        doc_id=[f"d{i}" for i in range(n.size)], n=n, s=value * n, q=value * n, binary=True
    )


@pytest.mark.parametrize("value", [0.0, 1.0])
@pytest.mark.parametrize("estimand", ["micro", "macro"])
def test_korn_graubard_message_states_the_n_eff_it_used(value: float, estimand: str):
    st = _constant(value)
    level = 0.95
    x = m.Sample(n=st.n, s=st.s, q=st.q, binary=True, level=level, fpc=fpc_factor(st.K, None),
                 reps=1, w=st.within_ss, bounds=st.known_bounds())  # fmt: skip
    iv = m.korn_graubard(x, estimand)
    found = re.search(r"n = (\S+) observations, n_eff = (\S+) after the t-df factor", iv.reason)
    assert found, iv.reason
    n, n_eff = float(found.group(1)), float(found.group(2))
    assert n == (st.N if estimand == "micro" else st.K)
    used = n * bounded.df_factor(n, st.K - 1, level)
    assert n_eff == pytest.approx(used, rel=5e-4)  # printed to 4 significant digits
    # and that is the n_eff the interval was computed from: [0, 1 − (α/2)^(1/n_eff)] at 0
    bound = 1 - ((1 - level) / 2) ** (1 / used)
    width = iv.upper - iv.lower
    assert width == pytest.approx(bound, rel=1e-12)
    if estimand == "micro":  # N = 36 queries in 4 documents: the factor is far from 1
        assert n_eff < 0.7 * n
        assert f"n_eff = {n:g}" not in iv.reason


def _differences(rng: np.random.Generator, K: int = 30) -> DocStats:
    n = rng.integers(1, 6, K).astype(float)
    a = rng.binomial(n.astype(int), 0.6)
    b = rng.binomial(n.astype(int), 0.4)
    s = (a - b).astype(float)
    return DocStats(doc_id=[f"d{i}" for i in range(K)], n=n, s=s, q=np.abs(s), binary=False)


def test_comparison_repr_opens_with_the_verdicts_once():
    result = compare(_differences(np.random.default_rng(3)), seed=1, bootstrap_reps=199,
                     permutation_reps=199, bounds=(-1.0, 1.0))  # fmt: skip
    sentences = result.sentences()
    assert len(sentences) == 2
    assert sentences[0].startswith("For a random query, ") and " points" in sentences[0]
    assert sentences[1].startswith("For a typical document, ")
    assert sentences == [v["sentence"] for v in result.to_dict()["verdicts"]]
    text = repr(result)
    assert text.splitlines()[:2] == sentences
    assert all(text.count(s) == 1 for s in sentences)
    assert result.title().startswith("A − B: ") and "\n" not in result.title()
    assert f"<strong>{sentences[0]}</strong>" in result._repr_html_().replace("&#x27;", "'")


def test_two_sample_verdict_leads_its_repr_and_lives_in_inference():
    assert render.two_sample_sentence is verdict.two_sample_sentence
    n = np.full(6, 3.0)
    r = two_sample(n, np.array([3, 3, 2, 3, 2, 3.0]), n, np.array([0, 1, 0, 1, 0, 0.0]),
                   arms=("new", "old"), score="hit", bounds=(-1.0, 1.0))  # fmt: skip
    (sentence,) = r.sentences()
    assert sentence.startswith("new beats old on hit by ") and "points" in sentence
    assert f"{(r.estimate * 100):.1f} points" in sentence
    assert repr(r).splitlines()[0] == sentence
    assert r.to_dict()["bounds"] == [-1.0, 1.0] and r.to_dict()["score"] == "hit"
    plain = two_sample(n, np.array([3, 3, 2, 3, 2, 3.0]), n, np.array([3, 2, 3, 3, 2, 3.0]))
    (sentence,) = plain.sentences()
    assert "cannot be told apart on the score" in sentence and "points" not in sentence
    t = float(sps.t.ppf(0.975, plain.df))
    assert plain.lower == pytest.approx(plain.estimate - t * plain.se)
