"""Ingestion metrics (seed 004 part 3): worked examples, hand checks and bad input."""

from __future__ import annotations

import itertools

import pytest

from ragstat.errors import InputError
from ragstat.metrics.ingestion import (
    INVISIBLE_CODE_POINTS,
    cer,
    chunk_attribution,
    dedup_quality,
    heading_preservation,
    invisible_code_points,
    length_ratio,
    minhash_candidates,
    minhash_pairs,
    shingles,
    unicode_drift,
    wer,
)

pytest.importorskip("jiwer")
pytest.importorskip("datasketch")

MARS_REF = "Mars has two moons, Phobos and Deimos."
MARS_HYP = "Mars has two m00ns, Phobos and Deirnos."
SEED_DOCS = {
    "d1": "Mars has two moons, Phobos and Deimos.",
    "d2": "Mars has two moons, Phobos and Deimos!",
    "d3": "Curiosity rover landed on Mars in 2012.",
}


def test_seed_cer_wer_mars_pair():
    c, w = cer([MARS_REF], [MARS_HYP]), wer([MARS_REF], [MARS_HYP])
    assert f"{c.corpus_rate:.3f}" == "0.105"
    assert f"{w.corpus_rate:.3f}" == "0.286"
    # hand check: 00 for oo (2 S), rn for m (1 S + 1 I) over 38 chars; 2 of 7 words
    assert int(c.errors[0]) == 4 and int(c.reference_length[0]) == 38
    assert int(w.errors[0]) == 2 and int(w.reference_length[0]) == 7
    import jiwer

    assert c.corpus_rate == pytest.approx(jiwer.cer([MARS_REF], [MARS_HYP]))


def test_cer_corpus_is_length_weighted_and_matches_jiwer():
    import jiwer

    refs = {"a": MARS_REF, "b": "ab"}
    hyps = {"a": MARS_HYP, "b": "abc"}
    c = cer(refs, hyps)
    assert c.item_ids == ("a", "b")
    assert c.records() == pytest.approx({"a": 4 / 38, "b": 0.5})
    assert c.corpus_rate == pytest.approx(5 / 40)
    assert c.corpus_rate == pytest.approx(jiwer.cer(list(refs.values()), list(hyps.values())))
    assert c.mean_rate == pytest.approx((4 / 38 + 0.5) / 2)
    assert not c.substitutions.flags.writeable


def test_cer_bad_input():
    with pytest.raises(InputError, match="empty reference"):
        cer(["  "], ["x"])
    with pytest.raises(InputError, match="empty denominator"):
        wer([], [])
    with pytest.raises(InputError, match="no hypothesis"):
        cer({"a": "x"}, {"b": "x"})
    with pytest.raises(InputError):
        cer(["a", "b"], ["a"])


def test_seed_minhash_lsh_returns_d1_d2_deterministically():
    first = minhash_candidates(SEED_DOCS, threshold=0.8, num_perm=128, shingle=5, seed=1)
    assert first["d1"] == ("d1", "d2")
    assert first["d3"] == ("d3",)
    for _ in range(3):
        assert minhash_candidates(SEED_DOCS) == first
    assert minhash_pairs(SEED_DOCS) == frozenset({("d1", "d2")})


def test_shingles():
    assert shingles("ABCDEF", 5) == frozenset({"abcde", "bcdef"})
    assert shingles("abc", 5) == frozenset({"abc"})
    with pytest.raises(InputError):
        shingles("", 5)


def test_dedup_quality_hand_checked():
    # labelled exhaustively over 4 docs: true duplicates {a,b}, {c,d}
    labels = {p: p in {("a", "b"), ("c", "d")} for p in itertools.combinations("abcd", 2)}
    predicted = [("b", "a"), ("a", "c"), ("x", "y")]
    q = dedup_quality(predicted, labels)
    # TP=1 (a,b) FP=1 (a,c) FN=1 (c,d) TN=3
    assert q.precision == 0.5
    assert q.recall == 0.5
    assert q.wrong_merge_rate == pytest.approx(1 / 4)
    assert q.missed_merge_rate == 0.5
    assert q.unlabelled_predicted == (("x", "y"),)
    assert q.records()["a|b"] == 1.0 and q.records()["c|d"] == 0.0


def test_dedup_quality_bad_input():
    with pytest.raises(InputError):
        dedup_quality([], {})
    with pytest.raises(InputError, match="both ways"):
        dedup_quality([], {("a", "b"): True, ("b", "a"): False})
    with pytest.raises(InputError, match="distinct"):
        dedup_quality([("a", "a")], {("a", "b"): True})
    q = dedup_quality([], {("a", "b"): False})
    with pytest.raises(InputError, match="no predicted pair"):
        _ = q.precision
    with pytest.raises(InputError, match="no labelled duplicate"):
        _ = q.recall


def test_unicode_drift_and_invisibles():
    docs = {
        "plain": "café",
        "ligature": "eﬃcient",  # U+FB03 ffi ligature: NFKC differs
        "fullwidth": "ＡＢＣ",
        "zwsp": "a\u200bb\u200bc\u00ad",
        "bom": "\ufeffhello\ufe0f",
    }
    d = unicode_drift(docs)
    assert d.nfkc_differs.tolist() == [False, True, True, False, False]
    assert d.drift_share == pytest.approx(2 / 5)
    assert d.invisible[3] == ("U+00AD", "U+200B")
    assert int(d.invisible_count[3]) == 3
    assert d.invisible[4] == ("U+FE0F", "U+FEFF")
    assert d.invisible_share == pytest.approx(2 / 5)
    for cp in (0x200B, 0x200F, 0x2060, 0x2064, 0xFEFF, 0x00AD, 0xFE00, 0xE0001):
        assert cp in INVISIBLE_CODE_POINTS
    assert invisible_code_points("a\u2066b") == ("U+2066",)
    with pytest.raises(InputError):
        unicode_drift({})


def test_length_ratio_by_class():
    r = length_ratio(
        {"a": "x" * 5, "b": "x" * 12, "c": "x" * 3},
        {"a": "x" * 10, "b": "x" * 10, "c": "x" * 3},
        {"a": "scan", "b": "scan", "c": "born-digital"},
    )
    assert r.records() == pytest.approx({"a": 0.5, "b": 1.2, "c": 1.0})
    s = r.by_class()
    assert s["scan"]["n"] == 2 and s["scan"]["mean"] == pytest.approx(0.85)
    assert s["born-digital"]["median"] == 1.0
    with pytest.raises(InputError, match="empty reference"):
        length_ratio({"a": "x"}, {"a": ""}, {"a": "scan"})
    with pytest.raises(InputError, match="lacks"):
        length_ratio({}, {"a": "x"}, {"a": "scan"})


def test_chunk_attribution():
    sources = {"s1": "Mars has two moons,\n Phobos and Deimos. Curiosity landed in 2012."}
    chunks = [
        {"chunk_id": "c1", "text": "Phobos  and Deimos.", "source_id": "s1"},
        {"chunk_id": "c2", "text": "Venus has none.", "source_id": "s1"},
        {"chunk_id": "c3", "text": "Curiosity landed", "source_id": "s9"},
        {"chunk_id": "c4", "text": "Curiosity landed"},
    ]
    a = chunk_attribution(chunks, sources)
    assert a.verified.tolist() == [True, False, False, False]
    assert a.has_source.tolist() == [True, True, True, False]
    assert a.source_known.tolist() == [True, True, False, False]
    assert a.fidelity == 0.25
    with pytest.raises(InputError):
        chunk_attribution([], sources)
    with pytest.raises(InputError, match="chunk_id"):
        chunk_attribution([{"text": "x"}], sources)


def test_heading_preservation():
    expected = {"c1": ["Guide", "Install"], "c2": ["Guide", "Use", "CLI"], "c3": []}
    chunks = [
        {"chunk_id": "c1", "heading_path": ["Guide", " Install "]},
        {"chunk_id": "c2", "heading_path": ["Guide", "Usage"]},
        {"chunk_id": "c3"},
        {"chunk_id": "c4", "heading_path": ["Other"]},
    ]
    h = heading_preservation(chunks, expected)
    assert h.item_ids == ("c1", "c2", "c3")
    assert h.kept.tolist() == [True, False, True]
    assert h.depth_kept.tolist() == pytest.approx([1.0, 1 / 3, 1.0])
    assert h.share == pytest.approx(2 / 3)
    with pytest.raises(InputError, match="empty denominator"):
        heading_preservation(chunks, {})
    with pytest.raises(InputError, match="list of titles"):
        heading_preservation([{"chunk_id": "c1", "heading_path": "Guide"}], expected)


def test_missing_backends_name_the_extra(monkeypatch):
    import sys

    from ragstat.errors import BackendUnavailable

    monkeypatch.setitem(sys.modules, "jiwer", None)
    monkeypatch.setitem(sys.modules, "datasketch", None)
    with pytest.raises(BackendUnavailable, match=r"ragstat\[ingestion\]"):
        cer([MARS_REF], [MARS_HYP])
    with pytest.raises(BackendUnavailable, match=r"ragstat\[ingestion\]"):
        minhash_pairs(SEED_DOCS)
