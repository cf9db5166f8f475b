"""Aggregation of a Parquet dataset (folder, hive partitions, glob) = aggregate_file on the rows."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ragstat.errors import InputError
from ragstat.records import (
    DocStats,
    aggregate_dataset,
    aggregate_file,
    aggregate_path,
    dataset_files,
)

OPTS = {"score": "y", "stratum": "stratum", "position": "pos"}


def make_table(seed: int = 1, K: int = 240, offset: float = 1e7) -> pa.Table:
    """Heavy-tailed document sizes, scores offset by 1e7, strata, positions, ids, 2 systems."""
    rng = np.random.default_rng(seed)
    sizes = rng.geometric(0.06, K)
    doc = np.repeat([f"d{i:04d}" for i in range(K)], sizes)
    N = doc.size
    return pa.table(
        {
            "query_id": [f"q{i}" for i in range(N)],
            "doc_id": doc,
            "y": offset + rng.normal(size=N),
            "hit": (rng.random(N) < 0.3).astype(np.int8),
            "stratum": np.repeat([f"s{i % 3}" for i in range(K)], sizes),
            "pos": np.concatenate([rng.permutation(s) for s in sizes]).astype(np.int64),
        }
    )


def by_doc_and_position(table: pa.Table) -> pa.Table:
    order = np.lexsort((table["pos"].to_numpy(), table["doc_id"].to_numpy(zero_copy_only=False)))
    return table.take(order)


def write_split(table: pa.Table, folder, cuts) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    bounds = [0, *cuts, table.num_rows]
    for i, (a, b) in enumerate(itertools.pairwise(bounds)):
        pq.write_table(table.slice(a, b - a), folder / f"part-{i}.parquet")


def assert_same(a: DocStats, b: DocStats, rtol: float = 1e-12) -> None:
    assert np.array_equal(a.doc_id, b.doc_id)  # the same documents in the same order
    assert np.array_equal(a.n, b.n)
    for name in ("s", "q"):
        np.testing.assert_allclose(getattr(b, name), getattr(a, name), rtol=rtol, atol=0)
    scale = max(float(np.max(a.within_ss)), 1.0)
    np.testing.assert_allclose(b.within_ss, a.within_ss, rtol=rtol, atol=rtol * scale)
    assert (a.binary, a.score_range, a.score) == (b.binary, b.score_range, b.score)
    if a.stratum is None:
        assert b.stratum is None
    else:
        assert np.array_equal(a.stratum, b.stratum)
    assert (a.lag is None) == (b.lag is None)
    if a.lag is not None:
        for name in ("c", "a", "p"):
            np.testing.assert_allclose(getattr(b.lag, name), getattr(a.lag, name), rtol=rtol)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("scale")
    table = make_table()
    pq.write_table(table, root / "all.parquet")
    ordered = by_doc_and_position(table)
    N = table.num_rows
    write_split(ordered, root / "spanning", [N // 5, N // 2, N // 2 + 7])  # documents span files
    return root, table


def test_documents_spanning_files_equal_the_single_file(data):
    root, _ = data
    ref = aggregate_file(root / "all.parquet", **OPTS)
    got = aggregate_dataset(root / "spanning", **OPTS)
    assert_same(ref, got)
    assert len(dataset_files(root / "spanning")) == 4


def test_binary_scores_and_glob(data):
    root, _ = data
    ref = aggregate_file(root / "all.parquet", score="hit", stratum="stratum")
    got = aggregate_dataset(
        str(root / "spanning" / "part-*.parquet"), score="hit", stratum="stratum"
    )
    assert got.binary
    assert_same(ref, got)


def test_one_file_per_document_group_is_exact(tmp_path, data):
    root, table = data
    docs = table["doc_id"].to_numpy(zero_copy_only=False).astype(str)
    for i, group in enumerate(("d00", "d01", "d02")):  # every document, in shuffled files
        pq.write_table(
            table.filter(pa.array(np.char.startswith(docs, group))), tmp_path / f"f{i}.parquet"
        )
    ref = aggregate_file(root / "all.parquet", **OPTS)
    got = aggregate_dataset(tmp_path, **OPTS)
    assert_same(ref, got)
    np.testing.assert_array_equal(got.s, ref.s)  # one file per document: the same sums


def test_hive_partitions_select_a_system(tmp_path, data):
    _, table = data
    other = table.set_column(2, "y", pa.array(table["y"].to_numpy() + 1.0))
    both = pa.concat_tables(
        [
            table.append_column("system", pa.array(["bm25"] * table.num_rows)),
            other.append_column("system", pa.array(["dense"] * table.num_rows)),
        ]
    )
    pq.write_table(both, tmp_path / "both.parquet")
    for name, part in (("bm25", table), ("dense", other)):
        write_split(by_doc_and_position(part), tmp_path / "ds" / f"system={name}", [700])
    for system in ("bm25", "dense"):
        ref = aggregate_file(tmp_path / "both.parquet", system=system, **OPTS)
        assert_same(ref, aggregate_dataset(tmp_path / "ds", system=system, **OPTS))
    with pytest.raises(InputError, match="several systems"):
        aggregate_dataset(tmp_path / "ds", **OPTS)


def test_interleaved_positions_drop_lag_with_a_warning(tmp_path, data):
    _, table = data
    perm = np.random.default_rng(0).permutation(table.num_rows)
    for i in range(3):
        pq.write_table(table.take(perm[i::3]), tmp_path / f"p{i}.parquet")
    with pytest.warns(UserWarning, match="lag-1 sums unavailable.*interleave"):
        got = aggregate_dataset(tmp_path, **OPTS)
    assert got.lag is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no position, no lag: no warning
        assert aggregate_dataset(tmp_path, score="y").lag is None


def test_duplicate_query_ids_across_files(tmp_path, data):
    _, table = data
    pq.write_table(table, tmp_path / "a.parquet")
    pq.write_table(table.slice(10, 2), tmp_path / "b.parquet")
    with pytest.raises(InputError, match=r"duplicate 'query_id' values: 'q10' \(2×\), 'q11'"):
        aggregate_dataset(tmp_path, score="y")
    got = aggregate_dataset(tmp_path, score="y", query_id=None)  # check switched off
    assert table.num_rows + 2 == got.N


@pytest.mark.slow  # scale
def test_duplicate_check_split_into_hash_buckets(tmp_path, data, monkeypatch):
    """Very large datasets split the id check into hash buckets: same findings."""
    import ragstat.records.dataset_ids as ids

    monkeypatch.setattr(ids, "ID_ROWS_PER_TASK", 7)
    _, table = data
    pq.write_table(table, tmp_path / "a.parquet")
    pq.write_table(table.slice(10, 2), tmp_path / "b.parquet")
    with pytest.raises(InputError, match=r"duplicate 'query_id' values: 'q10' \(2×\), 'q11'"):
        aggregate_dataset(tmp_path, score="y")
    (tmp_path / "b.parquet").unlink()
    assert table.num_rows == aggregate_dataset(tmp_path, score="y").N


def test_missing_query_ids(tmp_path, data):
    _, table = data
    ids = table["query_id"].to_pylist()
    ids[3] = None
    pq.write_table(table.set_column(0, "query_id", pa.array(ids)), tmp_path / "a.parquet")
    pq.write_table(table.slice(0, 0), tmp_path / "b.parquet")  # an empty file is fine
    with pytest.raises(InputError, match="'query_id' is missing in 1 row"):
        aggregate_dataset(tmp_path, score="y")


def test_strata_must_agree_across_files(tmp_path, data):
    _, table = data
    ordered = by_doc_and_position(table)
    first = ordered.slice(0, 3)  # d0000's first rows …
    clash = first.set_column(4, "stratum", pa.array(["other"] * 3))
    pq.write_table(clash, tmp_path / "a.parquet")
    pq.write_table(ordered.slice(3), tmp_path / "b.parquet")
    with pytest.raises(InputError, match="document 'd0000' has more than one 'stratum' value"):
        aggregate_dataset(tmp_path, score="y", stratum="stratum")


def test_position_tie_across_files(tmp_path, data):
    _, table = data
    ordered = by_doc_and_position(table)
    pq.write_table(ordered.slice(0, 2), tmp_path / "a.parquet")
    dup = ordered.slice(1, 1).set_column(0, "query_id", pa.array(["extra"]))
    pq.write_table(pa.concat_tables([dup, ordered.slice(2)]), tmp_path / "b.parquet")
    with pytest.raises(InputError, match="two queries at position"):
        aggregate_dataset(tmp_path, **OPTS)


def test_bad_inputs_name_the_path(tmp_path, data):
    _, table = data
    with pytest.raises(InputError, match=r"no \.parquet files"):
        aggregate_dataset(tmp_path, score="y")
    with pytest.raises(InputError, match="no file matches"):
        aggregate_dataset(str(tmp_path / "*.parquet"), score="y")
    with pytest.raises(InputError, match="no such file, folder or pattern"):
        aggregate_dataset(tmp_path / "nope", score="y")
    pq.write_table(table.drop(["y"]), tmp_path / "a.parquet")
    with pytest.raises(InputError, match=r"a.parquet: column\(s\) \['y'\] not found"):
        aggregate_dataset(tmp_path, score="y")
    pq.write_table(table.slice(0, 0), tmp_path / "a.parquet")
    with pytest.raises(InputError, match="no rows"):
        aggregate_dataset(tmp_path, score="y")


def test_hidden_files_skipped_and_path_dispatch(tmp_path, data):
    root, table = data
    pq.write_table(table, tmp_path / "x.parquet")
    (tmp_path / "_SUCCESS").write_text("")
    (tmp_path / ".tmp").mkdir()
    pq.write_table(table, tmp_path / ".tmp" / "partial.parquet")
    assert [f for f, _ in dataset_files(tmp_path)] == [str(tmp_path / "x.parquet")]
    ref = aggregate_file(root / "all.parquet", **OPTS)
    assert_same(ref, aggregate_path(root / "all.parquet", **OPTS))
    assert_same(ref, aggregate_path(tmp_path, **OPTS))


def test_local_process_pool_gives_the_same_result(data):
    from ragstat.engine import get_executor

    root, _ = data
    ref = aggregate_dataset(root / "spanning", **OPTS)
    with get_executor(2) as ex:
        assert_same(ref, aggregate_dataset(root / "spanning", executor=ex, **OPTS), rtol=0)


def test_small_files_are_batched_into_tasks(monkeypatch, data):
    import ragstat.records.scale as scale
    from ragstat.records.files import batch_files

    root, _ = data
    files = dataset_files(root / "spanning")
    assert batch_files(files, 1 << 30) == [tuple(files)]  # tiny files: one task
    assert batch_files(files, 1) == [(f,) for f in files]  # large files: one task each
    seen = []

    class Recording:
        workers = 1

        def map(self, fn, tasks, on_done=None):
            if fn is scale._aggregate_files:
                seen.append(len(tasks))
            return [fn(t) for t in tasks]

    ref = aggregate_dataset(root / "spanning", executor=Recording(), **OPTS)
    monkeypatch.setattr(scale, "TASK_BYTES", 1)
    assert_same(ref, aggregate_dataset(root / "spanning", executor=Recording(), **OPTS), rtol=0)
    assert seen == [1, len(files)]
