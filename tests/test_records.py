"""Records: numpy and DuckDB aggregation agree; bad input is named, never dropped."""

import json

import numpy as np
import pandas as pd
import pytest

from conftest import unequal_design
from ragstat import InputError, aggregate_arrays, aggregate_file, aggregate_frame
from ragstat.records import DocStats, load_query_scores


@pytest.fixture(scope="module")
def frame():
    doc, y, pos = unequal_design(np.random.default_rng(1), 30)
    rng = np.random.default_rng(2)
    perm = rng.permutation(y.size)  # rows in random order: position must drive the lag
    return pd.DataFrame(
        {
            "query_id": [f"q{i}" for i in range(y.size)],
            "doc_id": doc,
            "hit": y.astype(int),
            "rr": y * rng.random(y.size),
            "position": pos,
            "stratum": np.where(np.char.endswith(doc.astype(str), "1"), "big", "small"),
        }
    ).iloc[perm]


def _write(frame, path):
    if path.suffix == ".parquet":
        frame.to_parquet(path)
    elif path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_json(path, orient="records", lines=True, double_precision=15)
    return path


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
@pytest.mark.parametrize("score", ["hit", "rr"])
def test_file_aggregation_equals_numpy(frame, tmp_path, suffix, score):
    path = _write(frame, tmp_path / f"t{suffix}")
    got = aggregate_file(path, score=score, stratum="stratum", position="position")
    want = aggregate_frame(frame, score=score, stratum="stratum", position="position")
    assert list(got.doc_id) == list(want.doc_id)
    for name in ("n", "s", "q"):
        np.testing.assert_allclose(getattr(got, name), getattr(want, name), rtol=1e-12)
    for name in ("c", "a", "p"):
        np.testing.assert_allclose(getattr(got.lag, name), getattr(want.lag, name), rtol=1e-12)
    assert list(got.stratum) == list(want.stratum)
    assert got.binary is want.binary is (score == "hit")


def test_lag_sums_by_definition():
    st = aggregate_arrays(["a", "a", "a", "b", "b"], [1, 0, 1, 1, 1], position=[2, 0, 1, 0, 1])
    # a ordered by position: 0, 1, 1 -> pairs (0,1), (1,1); b: (1,1)
    np.testing.assert_array_equal(st.lag.c, [1, 1])
    np.testing.assert_array_equal(st.lag.a, [3, 2])
    np.testing.assert_array_equal(st.lag.p, [2, 1])


def test_query_scores_align_with_sorted_documents(frame, tmp_path):
    path = _write(frame, tmp_path / "t.parquet")
    st = aggregate_file(path, score="rr")
    qs = load_query_scores(path, st, score="rr")
    np.testing.assert_allclose(np.bincount(qs.doc_index, weights=qs.y), st.s, rtol=1e-12)


def test_system_column_requires_a_choice(frame, tmp_path):
    two = pd.concat([frame.assign(system="A"), frame.assign(system="B", hit=0)])
    two["query_id"] = two["query_id"] + two["system"]
    path = _write(two, tmp_path / "two.parquet")
    with pytest.raises(InputError, match="several systems"):
        aggregate_file(path, score="hit")
    b = aggregate_file(path, score="hit", system="B")
    assert b.s.sum() == 0 and len(frame) == b.N


@pytest.mark.parametrize(
    "mutate, match",
    [
        (lambda f: f.assign(hit=f["hit"].astype(float).where(f.index != f.index[3])), "missing"),
        (
            lambda f: f.assign(rr=np.where(f.index == f.index[0], np.inf, f["rr"])),
            "NaN or infinite",
        ),
        (lambda f: f.assign(rr=np.where(f.index == f.index[0], np.nan, f["rr"])), "missing|NaN"),
        (
            lambda f: f.assign(hit=f["hit"].astype(str).where(f.index != f.index[2], "yes")),
            r"1 of \d+ cells of score column 'hit' are not numbers \(row 3: 'yes'\)",
        ),
        (lambda f: f.assign(query_id="same"), "duplicate 'query_id'"),
        (lambda f: f.assign(doc_id=f["doc_id"].where(f.index != f.index[5])), "have no 'doc_id'"),
        (lambda f: f.drop(columns="hit"), r"column\(s\) \['hit'\] not found"),
    ],
)
def test_bad_files_are_named(frame, tmp_path, mutate, match):
    path = _write(mutate(frame.copy()), tmp_path / "bad.csv")
    score = "rr" if "rr" in match or "NaN" in match else "hit"
    with pytest.raises(InputError, match=match):
        aggregate_file(path, score=score)


def test_strata_must_be_constant_within_a_document(frame, tmp_path):
    bad = frame.copy()
    bad.iloc[0, bad.columns.get_loc("stratum")] = "other"
    path = _write(bad, tmp_path / "s.parquet")
    with pytest.raises(InputError, match="more than one"):
        aggregate_file(path, score="hit", stratum="stratum")
    with pytest.raises(InputError, match="more than one stratum"):
        aggregate_frame(bad, score="hit", stratum="stratum")


def test_unreadable_files(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError, match="empty"):
        aggregate_file(empty, score="hit")
    with pytest.raises(InputError, match="no such file"):
        aggregate_file(tmp_path / "nope.parquet", score="hit")
    with pytest.raises(InputError, match="unknown format"):
        aggregate_file(
            _write(pd.DataFrame({"a": [1]}), tmp_path / "x.csv").rename(tmp_path / "x.xlsx"),
            score="a",
        )
    latin = tmp_path / "latin.csv"
    latin.write_bytes("doc_id,hit\nação,1\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"latin\.csv.*not UTF-8"):
        aggregate_file(latin, score="hit")
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"not a parquet file")
    with pytest.raises(InputError, match="cannot be read"):
        aggregate_file(broken, score="hit")
    header_only = tmp_path / "header.csv"
    header_only.write_text("doc_id,hit\n")
    with pytest.raises(InputError, match="no rows"):
        aggregate_file(header_only, score="hit")


def test_array_input_validation():
    with pytest.raises(InputError, match="non-finite"):
        aggregate_arrays(["a", "b"], [1.0, np.nan])
    with pytest.raises(InputError, match="empty"):
        aggregate_arrays([], [])
    with pytest.raises(InputError, match=r"1 of 2 cells of score column 'score' are not numbers"):
        aggregate_arrays(["a", "b"], ["x", "1"])
    with pytest.raises(InputError, match="duplicate"):
        DocStats(doc_id=["a", "a"], n=[1, 2], s=[0, 1], q=[0, 1])
    with pytest.raises(InputError, match="n_d > 0"):
        DocStats(doc_id=["a", "b"], n=[0, 2], s=[0, 1], q=[0, 1])
    with pytest.raises(InputError, match="non-integer"):
        DocStats(doc_id=["a", "b"], n=[1.5, 2], s=[0, 1], q=[0, 1])


def test_jsonl_with_metadata_objects(tmp_path):
    path = tmp_path / "m.jsonl"
    rows = [{"doc_id": f"d{i % 3}", "hit": i % 2, "meta": {"k": i}} for i in range(9)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    st = aggregate_file(path, score="hit")
    assert st.K == 3 and st.N == 9
