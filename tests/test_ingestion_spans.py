"""PII removal and boilerplate removal in ``ragstat ingestion``: span, character and token
precision/recall against scikit-learn on indicator vectors and hand-worked examples, the
document as the unit of the interval, F1's document bootstrap, and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragstat.api.items import score_intervals
from ragstat.api.verbs.ingestion import ingestion
from ragstat.api.verbs.ingestion_spans import RunSettings, unit_score
from ragstat.cli import main
from ragstat.errors import InputError
from ragstat.metrics.ingestion.spans import (
    ALL,
    boilerplate_removal,
    f1_bootstrap_counts,
    pii_removal,
)

sk = pytest.importorskip("sklearn.metrics")
REPS = 199


def _span(text: str, part: str, kind: str | None = None) -> dict:
    start = text.index(part)
    out = {"start": start, "end": start + len(part)}
    return out | ({"type": kind} if kind else {})


T1 = "Tenant: Ana Silva, ana.silva@mail.pt, CPF 123.456.789-09."
T2 = "Contato: joao@exemplo.br ou 912 345 678."
T3 = "Home | Contact\nRent is due monthly.\nPage 2 of 9"
T4 = "Menu\nO furto é punido.\n© 2024"
#: Two documents (lease, furto), two records each: PII in one, boilerplate in the other.
RECORDS = [
    {"id": "lease#1", "doc": "lease", "text": T1,
     "pii_ref": [_span(T1, "Ana Silva", "name"), _span(T1, "ana.silva@mail.pt", "email"),
                 _span(T1, "123.456.789-09", "cpf")],
     "pii_detected": [_span(T1, "Ana Silva", "name"), _span(T1, "ana.silva@", "email")]},
    {"id": "furto#1", "doc": "furto", "text": T2,
     "pii_ref": [_span(T2, "joao@exemplo.br", "email"), _span(T2, "912 345 678", "phone")],
     "pii_detected": [_span(T2, "joao@exemplo.br", "email"), _span(T2, "912 345 678", "phone"),
                      _span(T2, "Contato", "name")]},
    {"id": "lease#2", "doc": "lease", "text": T3,
     "boilerplate_ref": [_span(T3, "Home | Contact"), _span(T3, "Page 2 of 9")],
     "boilerplate_removed": [_span(T3, "Home | Contact")]},
    {"id": "furto#2", "doc": "furto", "text": T4,
     "boilerplate_ref": [_span(T4, "Menu"), _span(T4, "© 2024")],
     "boilerplate_removed": [_span(T4, "Menu"), _span(T4, "© 2024"), _span(T4, "O furto")]},
]  # fmt: skip


def _pii_of(records):
    have = [r for r in records if "pii_ref" in r]
    return pii_removal(
        {r["id"]: r["text"] for r in have},
        {r["id"]: r["pii_ref"] for r in have},
        {r["id"]: r["pii_detected"] for r in have},
    )


def test_pii_hand_worked():
    pii = _pii_of(RECORDS)
    # overlap: labelled 5, caught name, email (partly masked), email, phone = 4; cpf missed
    ov = pii.overlap.of_type(ALL)
    assert (ov.recall, ov.precision) == (4 / 5, 4 / 5)  # detected 5, "Contato" wrong
    # strict: the partly masked email is no longer caught
    st = pii.strict.of_type(ALL)
    assert (st.recall, st.precision) == (3 / 5, 3 / 5)
    assert pii.strict.of_type("email").recall == 1 / 2
    # characters: labelled 9 + 17 + 14 + 15 + 11 = 66; masked 9 + 10 + 15 + 11 (+ 7 wrong)
    ch = pii.characters.of_type(ALL)
    assert ch.recall == 45 / 66 and ch.precision == 45 / 52
    assert pii.characters.of_type("cpf").recall == 0.0
    assert pii.overlap.kinds == ("cpf", "email", "name", "phone")


def _random_pii(rng: np.random.Generator, n: int) -> list[dict]:
    """Records with non-overlapping labelled spans and free detected spans (overlaps allowed)."""
    kinds = ["email", "name", "cpf"]
    out = []
    for i in range(n):
        length = int(rng.integers(30, 80))
        cuts = np.sort(rng.choice(np.arange(1, length), size=6, replace=False))
        ref = [
            {"start": int(a), "end": int(b), "type": str(rng.choice(kinds))}
            for a, b in zip(cuts[::2], cuts[1::2], strict=True)
            if rng.random() < 0.8
        ]
        det = [dict(s) for s in ref if rng.random() < 0.5]  # exact hits
        for s in ref:
            if rng.random() < 0.4 and s["end"] - s["start"] > 1:  # a partial hit
                det.append(s | {"end": s["end"] - 1})
        for _ in range(int(rng.integers(0, 3))):  # noise, may overlap anything
            a = int(rng.integers(0, length - 3))
            det.append({"start": a, "end": a + int(rng.integers(1, 4)), "type": "name"})
        det = [dict(t) for t in {tuple(sorted(d.items())) for d in det}]
        out.append({"id": f"r{i}", "doc": f"d{i % 5}", "text": "x" * length,
                    "pii_ref": ref, "pii_detected": det})  # fmt: skip
    return out


def _key(s: dict) -> tuple:
    return (s["start"], s["end"], s["type"])


def test_pii_strict_and_characters_equal_sklearn_on_indicator_vectors():
    records = _random_pii(np.random.default_rng(3), 40)
    pii = _pii_of(records)
    for kind in (None, "email", "name", "cpf"):
        y_true, y_pred = [], []  # one row per distinct (record, span, type) on either side
        for r in records:
            ref = {_key(s) for s in r["pii_ref"] if kind in (None, s["type"])}
            det = {_key(s) for s in r["pii_detected"] if kind in (None, s["type"])}
            for s in sorted(ref | det):
                y_true.append(s in ref)
                y_pred.append(s in det)
        st = pii.strict.of_type(ALL if kind is None else kind)
        assert st.precision == pytest.approx(sk.precision_score(y_true, y_pred), abs=1e-12)
        assert st.recall == pytest.approx(sk.recall_score(y_true, y_pred), abs=1e-12)
        assert st.f1 == pytest.approx(sk.f1_score(y_true, y_pred), abs=1e-12)
    lab, det = [], []  # one row per character
    for r in records:
        a, b = np.zeros(len(r["text"]), bool), np.zeros(len(r["text"]), bool)
        for s in r["pii_ref"]:
            a[s["start"] : s["end"]] = True
        for s in r["pii_detected"]:
            b[s["start"] : s["end"]] = True
        lab.append(a)
        det.append(b)
    y_true, y_pred = np.concatenate(lab), np.concatenate(det)
    ch = pii.characters.of_type(ALL)
    assert ch.precision == pytest.approx(sk.precision_score(y_true, y_pred), abs=1e-12)
    assert ch.recall == pytest.approx(sk.recall_score(y_true, y_pred), abs=1e-12)


def test_pii_overlap_equals_sklearn_on_matched_indicator_vectors():
    records = _random_pii(np.random.default_rng(5), 30)
    pii = _pii_of(records)

    def hit(s, others):  # independent brute force: any shared character, same type
        return any(
            o["type"] == s["type"] and set(range(s["start"], s["end"])) & set(range(o["start"], o["end"]))
            for o in others
        )  # fmt: skip

    caught = [hit(s, r["pii_detected"]) for r in records for s in r["pii_ref"]]
    correct = [hit(s, r["pii_ref"]) for r in records for s in r["pii_detected"]]
    ov = pii.overlap.of_type(ALL)
    ones_r, ones_p = np.ones(len(caught), bool), np.ones(len(correct), bool)
    assert ov.recall == pytest.approx(sk.recall_score(ones_r, caught), abs=1e-12)
    assert ov.precision == pytest.approx(sk.precision_score(correct, ones_p), abs=1e-12)


def test_boilerplate_characters_and_tokens_equal_sklearn():
    have = [r for r in RECORDS if "boilerplate_ref" in r]
    b = boilerplate_removal(
        {r["id"]: r["text"] for r in have},
        {r["id"]: r["boilerplate_ref"] for r in have},
        {r["id"]: r["boilerplate_removed"] for r in have},
    )
    chars_t, chars_p, tok_t, tok_p = [], [], [], []
    for r in have:
        a, c = np.zeros(len(r["text"]), bool), np.zeros(len(r["text"]), bool)
        for s in r["boilerplate_ref"]:
            a[s["start"] : s["end"]] = True
        for s in r["boilerplate_removed"]:
            c[s["start"] : s["end"]] = True
        chars_t += list(a)
        chars_p += list(c)
        pos = 0
        for token in r["text"].split():
            start = r["text"].index(token, pos)
            pos = start + len(token)
            tok_t.append(a[start:pos].any())
            tok_p.append(c[start:pos].any())
    assert b.characters.precision == pytest.approx(sk.precision_score(chars_t, chars_p), abs=1e-12)
    assert b.characters.recall == pytest.approx(sk.recall_score(chars_t, chars_p), abs=1e-12)
    assert b.tokens.precision == pytest.approx(sk.precision_score(tok_t, tok_p), abs=1e-12)
    assert b.tokens.recall == pytest.approx(sk.recall_score(tok_t, tok_p), abs=1e-12)
    # by hand: labelled 25 + 10 chars, removed 14 + 17, correct 14 + 10; tokens 7 + 3, 3 + 5
    assert (b.characters.recall, b.characters.precision) == (24 / 35, 24 / 31)
    assert (b.tokens.recall, b.tokens.precision) == (6 / 10, 6 / 8)


def test_the_document_is_the_unit_of_the_interval():
    by_doc = ingestion(RECORDS, cluster_by="doc", seed=1, bootstrap_reps=REPS)
    by_record = ingestion(RECORDS, seed=1, bootstrap_reps=REPS)
    s, r = by_doc.scores["pii_recall_char"], by_record.scores["pii_recall_char"]
    assert s.clusters == 2 and s.n == 66 and s.mean == 45 / 66  # K = documents, n = units
    assert r.clusters == 2 and r.n == 66  # without cluster_by: the records (one PII each)
    assert by_doc.scores["boilerplate_recall_token"].clusters == 2
    assert by_doc.f1["pii_f1"]["clusters"] == 2 and by_doc.f1["pii_f1"]["lower"] is not None
    assert by_doc.scores["pii_recall:cpf"].clusters == 1  # one document: no interval
    assert by_doc.scores["pii_recall:cpf"].report is None


def test_unit_rows_give_the_interval_of_score_intervals_on_expanded_units():
    pii = _pii_of(_random_pii(np.random.default_rng(9), 25)).characters.of_type(ALL)
    clusters = {f"r{i}": f"d{i % 5}" for i in range(25)}
    run = RunSettings([], "doc", clusters, 0.95, 4, REPS)
    mine = unit_score("x", pii, "recall", clusters, run)
    ids, values, rows = [], [], []
    for item, m, t in zip(pii.item_ids, pii.ref_matched, pii.ref_total, strict=True):
        for k in range(int(t)):
            ids.append(f"{item}/{k}")
            values.append(float(k < m))
            rows.append({"id": f"{item}/{k}", "doc": clusters[item]})
    ref, _ = score_intervals({"x": (ids, np.array(values))}, rows, "doc", seed=4, reps=REPS)
    assert mine.to_dict() == ref["x"].to_dict()
    assert mine.mean == pytest.approx(pii.recall, abs=1e-15)


def test_f1_bootstrap_is_the_loop_over_resampled_documents():
    totals = np.array([[3, 4, 3, 5], [1, 3, 1, 1], [5, 5, 5, 9], [0, 1, 0, 2]], float)
    lo, hi = f1_bootstrap_counts(totals, level=0.9, reps=300, seed=11)
    w = np.random.default_rng(11).multinomial(4, np.full(4, 0.25), size=300)
    f1 = []
    for row in w:
        s = row @ totals
        p, r = s[0] / s[1], s[2] / s[3]
        f1.append(0.0 if p + r == 0 else 2 * p * r / (p + r))
    assert (lo, hi) == tuple(np.quantile(f1, [0.05, 0.95]))
    assert f1_bootstrap_counts(totals, level=0.9, reps=300, seed=11) == (lo, hi)


@pytest.mark.parametrize(
    ("span", "words"),
    [
        ({"start": 50, "end": 99, "type": "email"}, "ends past the text"),
        ({"start": -1, "end": 3, "type": "email"}, "0 ≤ start < end"),
        ({"start": 4, "end": 4, "type": "email"}, "0 ≤ start < end"),
        ({"end": 4, "type": "email"}, "lacks start or end"),
        ({"start": 9, "end": 14, "type": "name"}, "overlaps"),  # overlaps "Ana Silva"
        ({"start": 1, "end": 3}, "needs a type"),
    ],
)
def test_bad_spans_name_the_item(span, words):
    bad = [dict(r) for r in RECORDS]
    bad[0] = bad[0] | {"pii_ref": [*bad[0]["pii_ref"], span]}
    with pytest.raises(InputError, match=rf"item 'lease#1'.*{words}"):
        ingestion(bad, seed=0, bootstrap_reps=REPS)
    bb = [dict(r) for r in RECORDS]
    bb[2] = bb[2] | {"boilerplate_ref": [*bb[2]["boilerplate_ref"], {"start": 2, "end": 5}]}
    with pytest.raises(InputError, match=r"item 'lease#2'.*overlaps"):
        ingestion(bb, seed=0, bootstrap_reps=REPS)


def test_lacking_partner_is_counted_and_types_may_nest():
    rows = [dict(r) for r in RECORDS]
    rows[1] = {k: v for k, v in rows[1].items() if k != "pii_detected"}
    nest = {"start": 8, "end": 36, "type": "address"}  # holds a name: other types may nest
    rows[0] = rows[0] | {"pii_ref": [*rows[0]["pii_ref"], nest]}
    out = ingestion(rows, cluster_by="doc", seed=0, bootstrap_reps=REPS)
    assert out.inputs["pii"] == {"scored": 1, "lacking_partner": 1}
    assert out.scores["pii_recall"].n == 4  # lease#1 alone
    assert out.scores["pii_recall:address"].mean == 0.0
    assert any("not both: not scored" in n for n in out.notes)
    dup = [dict(r) for r in RECORDS]
    dup[0] = dup[0] | {"pii_detected": dup[0]["pii_detected"] * 2}
    with pytest.raises(InputError, match=r"item 'lease#1'.*listed twice"):
        ingestion(dup, seed=0, bootstrap_reps=REPS)


def test_cli_prints_the_twin_and_old_records_keep_their_output(tmp_path, capsys):
    path = tmp_path / "cleaning.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    args = ["ingestion", str(path), "--cluster-by", "doc", "--seed", "3"]
    assert main([*args, "--bootstrap-reps", str(REPS), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    twin = ingestion(str(path), cluster_by="doc", seed=3, bootstrap_reps=REPS).to_dict()
    assert printed == twin
    assert list(printed["scores"])[2:4] == ["pii_recall", "pii_precision"]  # recall first
    assert {"inputs", "f1", "boilerplate_by_document"} <= set(printed)
    plain = ingestion([{"id": "a", "text": "x"}, {"id": "b", "text": "y"}], seed=0)
    assert set(plain.to_dict()) == {"scores", "clustering", "seed", "notes"}
