"""Judge biases: verbosity recovers a planted length effect, position bias equals a hand
count, self-consistency on a hand-made example, the CR2 regression against a brute-force
sandwich, and the command line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.linalg
import typer

import ragstat.cli as cli
from ragstat.api.verbs.judge_bias import judge_bias
from ragstat.cli import judge_bias as judge_bias_cli
from ragstat.errors import InputError
from ragstat.inference.variance import df_bell_mccaffrey, se_cr2
from ragstat.metrics.judging.biases import cr2_regression, self_consistency, swap_pairs

REPS = 199


# ------------------------------------------------------------------ verbosity


def simulated_judgments(slope: float, K: int = 80, seed: int = 12) -> list[dict]:
    """Pairwise judgments in K documents, each with its own baseline preference for A;
    P(A wins) = baseline_d + slope · (len_A − len_B) / 100."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(K):
        base = 0.5 + rng.normal(0, 0.1)
        for _ in range(rng.integers(4, 13)):
            diff = rng.normal(0, 120)
            p = float(np.clip(base + slope * diff / 100, 0.02, 0.98))
            a = 300 + rng.integers(0, 50)
            rows.append({"doc_id": f"d{d}", "winner": "A" if rng.random() < p else "B",
                         "length_a": float(a + diff / 2), "length_b": float(a - diff / 2)})  # fmt: skip
    return rows


@pytest.mark.parametrize("slope", [0.12, 0.0])
def test_verbosity_recovers_a_planted_length_effect(slope):
    r = judge_bias(simulated_judgments(slope), kind="verbosity", seed=1, bootstrap_reps=REPS)
    b = r.estimate("length_slope")
    assert b.method == "cr2_bm" and b.lower is not None and b.upper is not None
    assert b.lower <= slope <= b.upper
    if slope:
        assert b.lower > 0  # a clear effect is detected
    lc = r.estimate("length_controlled_preference")
    assert lc.lower is not None and lc.upper is not None and lc.lower <= 0.5 <= lc.upper
    assert b.K == r.documents == 80 and r.details["df_rule"].startswith("Bell–McCaffrey")


def test_verbosity_interval_is_the_t_interval_of_the_cr2_fit():
    from scipy.stats import t

    rows = simulated_judgments(0.1, K=20)
    r = judge_bias(rows, kind="verbosity", seed=1, bootstrap_reps=REPS, level=0.9)
    y = np.array([{"A": 1.0, "B": 0.0}[x["winner"]] for x in rows])
    x = np.array([x["length_a"] - x["length_b"] for x in rows]) / 100
    fit = cr2_regression(np.column_stack([np.ones_like(x), x]), y, [x["doc_id"] for x in rows])
    b = r.estimate("length_slope")
    half = t.ppf(0.95, fit.df[1]) * fit.se[1]
    assert b.estimate == pytest.approx(fit.coef[1], abs=1e-12)
    assert (b.lower, b.upper) == pytest.approx((fit.coef[1] - half, fit.coef[1] + half))


def test_verbosity_from_answer_texts_counts_whitespace_tokens():
    rows = [{"doc_id": f"d{i % 3}", "winner": w, "answer_a": "a " * la, "answer_b": "b " * lb}
            for i, (w, la, lb) in enumerate([("A", 9, 3), ("B", 2, 8), ("A", 7, 7), ("tie", 5, 1),
                                             ("A", 6, 2), ("B", 1, 4)])]  # fmt: skip
    r = judge_bias(rows, kind="verbosity", seed=1, bootstrap_reps=REPS)
    assert [row["length_diff"] for row in r.to_dict()["rows"]] == [6, -6, 0, 4, 4, -3]
    assert r.details["length_unit"] == "whitespace tokens"
    # longer answer won in 4 of the 4 decisive judgments with unequal lengths
    assert r.estimate("longer_wins").estimate == 1.0 and r.estimate("longer_wins").n == 4


# ------------------------------------------------------------------ CR2 by brute force


def brute_cr2(X: np.ndarray, y: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CR2 sandwich and Bell–McCaffrey df from N × N matrices, as written in the papers."""
    N = y.size
    M = np.linalg.inv(X.T @ X)
    H = X @ M @ X.T
    e = (np.eye(N) - H) @ y
    meat = np.zeros((X.shape[1], X.shape[1]))
    A = {}
    for c in np.unique(g):
        idx = np.flatnonzero(g == c)
        A[c] = np.real(scipy.linalg.sqrtm(np.linalg.inv(np.eye(idx.size) - H[np.ix_(idx, idx)])))
        v = X[idx].T @ A[c] @ e[idx]
        meat += np.outer(v, v)
    vcov = M @ meat @ M
    df = []
    for j in range(X.shape[1]):
        cols = []
        for c in np.unique(g):
            idx = np.flatnonzero(g == c)
            cols.append((np.eye(N) - H)[:, idx] @ A[c] @ X[idx] @ M[:, j])
        G = np.column_stack(cols)
        GG = G.T @ G
        df.append(np.trace(GG) ** 2 / np.trace(GG @ GG))
    return vcov, np.array(df)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cr2_slope_equals_a_brute_force_sandwich(seed):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 9, 70)
    x = rng.normal(0, 1, 70) + 0.3 * g
    y = (rng.random(70) < 0.4 + 0.1 * x).astype(float)
    X = np.column_stack([np.ones_like(x), x])
    fit = cr2_regression(X, y, g)
    vcov, df = brute_cr2(X, y, g)
    assert np.max(np.abs(fit.vcov - vcov)) < 1e-10
    assert np.max(np.abs(fit.se - np.sqrt(np.diag(vcov)))) < 1e-10
    assert np.max(np.abs(fit.df - df) / df) < 1e-10


def test_cr2_with_an_intercept_only_is_the_clustered_mean():
    rng = np.random.default_rng(3)
    g = rng.integers(0, 6, 40)
    y = rng.random(40)
    fit = cr2_regression(np.ones((40, 1)), y, g)
    n = np.bincount(g).astype(float)
    u = np.bincount(g, weights=y) - y.mean() * n
    assert fit.se[0] == pytest.approx(se_cr2(u, n), abs=1e-12)
    assert fit.df[0] == pytest.approx(df_bell_mccaffrey(n), rel=1e-12)


# ------------------------------------------------------------------ position bias

#: (doc, verdict with A first, verdict with B first) → winners (A first, B first)
PAIRS = [
    ("d1", "first", "second"),  # A, A: consistent; first won 1 of 2 calls
    ("d1", "first", "first"),  # A, B: inconsistent, first slot both times
    ("d2", "second", "first"),  # B, B: consistent
    ("d2", "tie", "tie"),  # tie, tie: consistent, no decisive call
    ("d3", "second", "second"),  # B, A: inconsistent, second slot both times
    ("d3", "tie", "first"),  # tie, B: inconsistent; 1 decisive call, won by first
]


def position_rows() -> list[dict]:
    return [{"pair_id": f"p{i}", "doc_id": d, "verdict_ab": a, "verdict_ba": b}
            for i, (d, a, b) in enumerate(PAIRS, 1)]  # fmt: skip


def test_position_bias_equals_a_hand_count():
    r = judge_bias(position_rows(), kind="position", seed=1, bootstrap_reps=REPS)
    assert r.estimate("consistency").estimate == pytest.approx(3 / 6)
    # decisive calls: 2 + 2 + 2 + 0 + 2 + 1 = 9; won by the first-listed: 1 + 2 + 1 + 0 + 0 + 1
    fs = r.estimate("first_slot_preference")
    assert fs.estimate == pytest.approx(5 / 9) and fs.n == 9
    assert r.estimate("first_both").estimate == pytest.approx(1 / 6)
    assert r.estimate("second_both").estimate == pytest.approx(1 / 6)
    assert r.details == {"pairs": 6, "decisive_calls": 9, "tied_calls": 3, "inconsistent_pairs": 3}
    table = r.to_dict()["rows"]
    assert [row["consistent"] for row in table] == [True, False, True, True, False, False]
    assert [(row["winner_ab"], row["winner_ba"]) for row in table] == [
        ("A", "A"), ("A", "B"), ("B", "B"), ("tie", "tie"), ("B", "A"), ("tie", "B")
    ]  # fmt: skip
    assert [row["doc_id"] for row in table] == [d for d, _, _ in PAIRS]
    for e in r.estimates:  # 3 documents: no headline interval, the sentence says why
        assert e.K == 3 and e.lower is None and e.upper is None
        assert "the data cannot support an interval" in e.reason
        assert any(iv["available"] for iv in e.intervals)  # every method's interval is kept
    assert all("the data cannot support an interval" in s for s in r.sentences())


def test_position_verdict_aliases_match_the_existing_kernel():
    from ragstat.metrics.generation.pairwise import position_bias

    sp = swap_pairs(["p1", "p2"], ["d1", "d2"], ["A", "1"], ["b", "tie"])
    old = position_bias({"p1": "A", "p2": "A"}, {"p1": "b", "p2": "tie"})
    assert sp.consistent.tolist() == old.consistent.tolist() == [True, False]


# ------------------------------------------------------------------ self-consistency


def test_self_consistency_on_a_hand_made_example():
    rows = [
        {"item_id": "q1", "doc_id": "d1", "answers": ["Paris", "paris", " PARIS ", "Lyon"]},
        {"item_id": "q2", "doc_id": "d1", "answers": ["4", "5", "4", "5"]},
        {"item_id": "q3", "doc_id": "d2", "answers": ["yes", "yes", "yes"]},
        {"item_id": "q4", "doc_id": "d2", "answers": ["a", "b", "c", "d", "a"]},
    ]
    r = judge_bias(rows, kind="self-consistency", threshold=0.6, seed=1, bootstrap_reps=REPS)
    table = r.to_dict()["rows"]
    assert [row["modal_answer"] for row in table] == ["paris", "4", "yes", "a"]
    assert [row["agreement"] for row in table] == [0.75, 0.5, 1.0, 0.4]
    assert r.estimate("agreement").estimate == pytest.approx((0.75 + 0.5 + 1.0 + 0.4) / 4)
    assert r.details["flagged_items"] == ["q2", "q4"]
    assert r.estimate("flagged").estimate == 0.5 and r.estimate("unanimous").estimate == 0.25
    assert r.details["distribution"] == [
        {"agreement": 0.4, "items": 1}, {"agreement": 0.5, "items": 1},
        {"agreement": 0.75, "items": 1}, {"agreement": 1.0, "items": 1},
    ]  # fmt: skip


def test_self_consistency_one_row_per_sample_from_csv(tmp_path):
    path = tmp_path / "samples.csv"
    path.write_text("item_id,doc_id,answer\nq1,d1,x\nq1,d1,x\nq1,d1,y\nq2,d2,z\nq2,d2,w\n")
    sc = judge_bias(path, kind="self_consistency", seed=1, bootstrap_reps=REPS)
    assert [row["agreement"] for row in sc.to_dict()["rows"]] == [pytest.approx(2 / 3), 0.5]
    direct = self_consistency(["q1", "q2"], ["d1", "d2"], [["x", "x", "y"], ["z", "w"]])
    assert direct.modal == ("x", "z")  # a tie goes to the answer sampled first


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "rows, kind, message",
    [
        ([{"doc_id": "d1", "verdict_ab": "A", "verdict_ba": "B"}] * 3, "position",
         "at least two documents"),
        ([{"doc_id": "d1", "verdict_ab": "A"}, {"doc_id": "d2", "verdict_ab": "B"}], "position",
         "no 'verdict_ba'"),
        ([{"doc_id": "d1", "verdict_ab": "maybe", "verdict_ba": "A"},
          {"doc_id": "d2", "verdict_ab": "A", "verdict_ba": "A"}], "position", "winning position"),
        ([{"doc_id": f"d{i}", "winner": "A", "length_a": 3, "length_b": 3} for i in range(3)],
         "verbosity", "length difference is the same"),
        ([{"doc_id": f"d{i}", "item_id": i, "answers": ["x"]} for i in range(3)],
         "self_consistency", "fewer than two"),
        ([{"doc_id": "d1"}, {"doc_id": "d2"}], "politeness", "kind must be"),
    ],
)  # fmt: skip
def test_bad_input_is_refused(rows, kind, message):
    with pytest.raises(InputError, match=message):
        judge_bias(rows, kind=kind, seed=1, bootstrap_reps=REPS)


# ------------------------------------------------------------------ command line


def main(args: list[str], monkeypatch) -> int:
    """``ragstat judge-bias ARGS``; through a local app while the verb is not registered."""
    if not any(c.name == "judge-bias" for c in cli.app.registered_commands):
        app = typer.Typer(pretty_exceptions_enable=False)
        app.callback()(lambda: None)
        app.command("judge-bias")(judge_bias_cli.judge_bias)
        monkeypatch.setattr(cli, "app", app)
    return cli.main(["judge-bias", *args])


def write_jsonl(path, rows) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def test_cli_json_equals_the_twin_and_writes_its_folder(tmp_path, capsys, monkeypatch):
    table = write_jsonl(tmp_path / "pairs.jsonl", position_rows())
    args = [table, "--kind", "position", "--seed", "3", "--bootstrap-reps", str(REPS)]
    assert main([*args, "--json", "--out", str(tmp_path / "out")], monkeypatch) == 0
    printed = json.loads(capsys.readouterr().out)
    twin = judge_bias(table, kind="position", seed=3, bootstrap_reps=REPS)
    assert printed == twin.to_dict()
    saved = json.loads((tmp_path / "out" / "result.json").read_text(encoding="utf-8"))
    assert saved == printed
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["command"] == "judge-bias" and manifest["config"]["seed"] == 3
    assert manifest["results"]["consistency"]["estimate"] == pytest.approx(0.5)
    assert main(args, monkeypatch) == 0
    out = capsys.readouterr().out
    assert out.startswith("For this judge's position bias, consistency is 50.0 points")
    assert "judge position bias: " in out


def test_cli_bad_input_exits_2_with_one_line(tmp_path, capsys, monkeypatch):
    rows = [{"doc_id": "d1", "verdict_ab": "A", "verdict_ba": "B"}] * 2
    table = write_jsonl(tmp_path / "one_doc.jsonl", rows)
    assert main([table, "--kind", "position"], monkeypatch) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "at least two documents" in err[0]
    two = write_jsonl(tmp_path / "pairs.jsonl", position_rows())
    assert main([two, "--kind", "verbosity"], monkeypatch) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "length_a + length_b or answer_a + answer_b" in err[0]
