"""Filter false-exclusion rate, entitlement kept apart from relevance predicates (the RAG reference part 5).

Model, per query q (document ids are strings):

* G_q, the gold documents (a set, or qrels ``{doc: grade}`` where grade > 0 is gold);
* E_q, the **entitlement** set: the documents the querying user may see
  (authorisation, tenant isolation, jurisdiction, publication state). An
  eligibility invariant, always a hard filter, validated on its own; a document
  outside E_q must stay excluded and its exclusion is never a false exclusion;
* P_q, the documents that satisfy the **relevance predicate** the system applied
  (a metadata filter such as ``locale = en-US`` or a date/type range);
* the eligible gold EG_q = G_q ∩ E_q and the survivors S_q = E_q ∩ P_q.

Metrics::

    filter_false_exclusion_rate = #{q : EG_q ≠ ∅, EG_q ∩ S_q = ∅} / #{q : EG_q ≠ ∅}
    per-document exclusion rate = Σ_q |EG_q \\ P_q| / Σ_q |EG_q|
    correct Recall@k            = |EG_q ∩ top_k(run_q)| / |EG_q|   over q with EG_q ≠ ∅

The query-level rate counts catastrophic exclusions (no eligible gold survives);
per-document counts expose partial loss. An empty denominator (no query with
entitled gold) raises instead of reporting a reassuring zero. The correct
Recall@k keeps the eligible gold as its denominator, so it shows the loss; the
false-exclusion rate attributes it to the predicate. :func:`recall_at_k_filtered_gold`
is the INVALID evaluator that rebuilds gold after filtering (G_q ∩ S_q) and drops
the queries whose gold did not survive, kept only to demonstrate the trap. Seed
004's worked example: false-exclusion rate 50 % (2 of 4 eligible queries),
correct Recall@10 50 %, filtered-gold evaluator 100 %.

Predicate precision/recall lives in :mod:`ragstat.metrics.filters.predicates`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = [
    "DocumentExclusions",
    "FalseExclusion",
    "RecallAtK",
    "document_exclusions",
    "false_exclusion",
    "recall_at_k_correct",
    "recall_at_k_filtered_gold",
    "select_ids",
]

Gold = Mapping[str, Collection[str] | Mapping[str, int]]
DocSets = Mapping[str, Collection[str]] | Collection[str]
Run = Mapping[str, Sequence[str]]
_REAL = (int, float, np.integer, np.floating)
NO_ELIGIBLE = "no eligible query: no query has a gold document inside its entitlement set"


def _ids(obj: object, where: str) -> frozenset[str]:
    if isinstance(obj, (str, bytes, Mapping)) or not isinstance(obj, Iterable):
        raise InputError(f"{where} must be a collection of document ids, got {type(obj).__name__}")
    items = list(obj)
    bad = next((d for d in items if not isinstance(d, str)), None)
    if bad is not None:
        raise InputError(f"{where}: document ids must be strings, got {bad!r}")
    return frozenset(items)


def _gold(gold: object) -> dict[str, frozenset[str]]:
    """Query → gold ids; a qrels-style ``{doc: grade}`` value keeps the grades > 0."""
    if not isinstance(gold, Mapping):
        raise InputError("gold must be a mapping query id → gold document ids (or {doc: grade})")
    out: dict[str, frozenset[str]] = {}
    for qid, docs in gold.items():
        if not isinstance(qid, str):
            raise InputError(f"gold: query ids must be strings, got {qid!r}")
        if isinstance(docs, Mapping):
            if any(isinstance(r, bool) or not isinstance(r, _REAL) for r in docs.values()):
                raise InputError(f"gold, query {qid!r}: qrels grades must be numbers")
            docs = [d for d, rel in docs.items() if rel > 0]
        out[qid] = _ids(docs, f"gold, query {qid!r}")
    return out


def _per_query(obj: object, queries: Iterable[str], what: str) -> dict[str, frozenset[str]]:
    """A per-query mapping (every query required) or one collection shared by all queries."""
    if not isinstance(obj, Mapping):
        shared = _ids(obj, what)
        return dict.fromkeys(queries, shared)
    out = {}
    for qid in queries:
        if qid not in obj:
            raise InputError(f"{what} has no entry for query {qid!r}")
        out[qid] = _ids(obj[qid], f"{what}, query {qid!r}")
    return out


def _inputs(gold: object, entitlement: object, passed: object) -> tuple[dict, dict, dict]:
    """Gold, entitlement and (unless None) predicate survivor sets, per gold query."""
    g = _gold(gold)
    ent = _per_query(entitlement, g, "entitlement")
    ok = {} if passed is None else _per_query(passed, g, "passed (relevance predicate survivors)")
    return g, ent, ok


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k <= 0:
        raise InputError(f"k must be a positive integer, got {k!r}")
    return int(k)


def _top_k(run: Mapping, qid: str, k: int) -> list[str]:
    ranked = run.get(qid, [])
    if isinstance(ranked, np.ndarray):
        ranked = ranked.tolist()
    if isinstance(ranked, (str, bytes)) or not isinstance(ranked, Sequence):
        raise InputError(f"run, query {qid!r}: the ranking must be a sequence of document ids")
    if len(_ids(ranked, f"run, query {qid!r}")) != len(ranked):
        raise InputError(f"run, query {qid!r}: a document id appears more than once")
    return list(ranked[:k])


def select_ids(
    docs: Iterable[Mapping[str, object]],
    predicate: Callable[[Mapping[str, object]], bool],
    id_key: str = "id",
) -> frozenset[str]:
    """Ids of the metadata records for which ``predicate(record)`` is true.

    Builds an entitlement set (``lambda d: d["tenant"] == "acme"``) or the
    survivors of a relevance predicate (``lambda d: d["locale"] == "en-US"``).
    """
    return _ids((d[id_key] for d in docs if predicate(d)), "select_ids")


# ------------------------------------------------------------ false exclusion


@dataclass(frozen=True)
class FalseExclusion:
    """Per eligible query (≥ 1 entitled gold document), in gold order.

    ``n_eligible_gold[i]`` = |EG_q|, ``n_excluded_gold[i]`` = |EG_q \\ P_q|,
    ``excluded[i]``: no eligible gold document survives the predicate (the
    seed's catastrophic exclusion). ``no_gold``: queries with no gold at all;
    ``unentitled_gold_only``: gold exists but none is entitled (an entitlement
    matter, tested separately). Neither slice is in the denominator.
    """

    query_ids: tuple[str, ...]
    n_eligible_gold: np.ndarray
    n_excluded_gold: np.ndarray
    excluded: np.ndarray
    no_gold: tuple[str, ...]
    unentitled_gold_only: tuple[str, ...]

    @property
    def eligible_query_count(self) -> int:
        return len(self.query_ids)

    @property
    def rate(self) -> float:
        """filter_false_exclusion_rate = excluded eligible queries / eligible queries."""
        return int(self.excluded.sum()) / len(self.query_ids)

    @property
    def any_excluded(self) -> np.ndarray:
        """Per query: the predicate excluded at least one eligible gold document."""
        return self.n_excluded_gold > 0

    @property
    def document_rate(self) -> float:
        """Σ excluded eligible gold / Σ eligible gold (exposes partial loss)."""
        return int(self.n_excluded_gold.sum()) / int(self.n_eligible_gold.sum())


def false_exclusion(gold: Gold, entitlement: DocSets, passed: DocSets) -> FalseExclusion:
    """Filter false-exclusion per query and its rate over the eligible queries.

    ``gold``: query → gold ids (or qrels ``{doc: grade}``, grade > 0 is gold);
    ``entitlement``: query → ids the user may see, or one set for every query;
    ``passed``: query → ids satisfying the relevance predicate the system applied
    (see :func:`select_ids`), or one set for every query. Every gold query needs
    an entry. No eligible query → InputError (empty denominator).
    """
    g, ent, ok = _inputs(gold, entitlement, passed)
    qids, n_elig, n_excl, no_gold, unentitled = [], [], [], [], []
    for qid, docs in g.items():
        eligible = docs & ent[qid]
        if not docs:
            no_gold.append(qid)
        elif not eligible:
            unentitled.append(qid)
        else:
            qids.append(qid)
            n_elig.append(len(eligible))
            n_excl.append(len(eligible - ok[qid]))
    if not qids:
        raise InputError(NO_ELIGIBLE)
    n_elig_arr, n_excl_arr = frozen_array(n_elig, np.int64), frozen_array(n_excl, np.int64)
    return FalseExclusion(
        query_ids=tuple(qids),
        n_eligible_gold=n_elig_arr,
        n_excluded_gold=n_excl_arr,
        excluded=frozen_array(n_excl_arr == n_elig_arr, bool),
        no_gold=tuple(no_gold),
        unentitled_gold_only=tuple(unentitled),
    )


@dataclass(frozen=True)
class DocumentExclusions:
    """Per gold document (ids ascending) that is eligible gold for at least one query.

    ``n_eligible[j]``: queries for which ``doc_ids[j]`` is entitled gold;
    ``n_excluded[j]``: of those, the queries whose relevance predicate excluded it.
    """

    doc_ids: tuple[str, ...]
    n_eligible: np.ndarray
    n_excluded: np.ndarray

    @property
    def rate(self) -> float:
        """Per-document exclusion rate Σ n_excluded / Σ n_eligible."""
        return int(self.n_excluded.sum()) / int(self.n_eligible.sum())


def document_exclusions(gold: Gold, entitlement: DocSets, passed: DocSets) -> DocumentExclusions:
    """Per-document exclusion counts (same inputs as :func:`false_exclusion`)."""
    g, ent, ok = _inputs(gold, entitlement, passed)
    eligible: dict[str, int] = {}
    excluded: dict[str, int] = {}
    for qid, docs in g.items():
        for doc in docs & ent[qid]:
            eligible[doc] = eligible.get(doc, 0) + 1
            excluded[doc] = excluded.get(doc, 0) + (doc not in ok[qid])
    if not eligible:
        raise InputError(NO_ELIGIBLE)
    ids = sorted(eligible)
    return DocumentExclusions(
        doc_ids=tuple(ids),
        n_eligible=frozen_array([eligible[d] for d in ids], np.int64),
        n_excluded=frozen_array([excluded[d] for d in ids], np.int64),
    )


# ------------------------------------------------------------------- recall@k


@dataclass(frozen=True)
class RecallAtK:
    """Per scored query: ``recall[i] = n_hit[i] / n_gold[i]`` at cutoff ``k``.

    ``valid`` is False for the filtered-gold evaluator (never report it).
    ``missing_run``: scored queries with no ranking (scored as empty);
    ``dropped``: gold queries outside the denominator; ``unentitled_retrieved``:
    scored queries whose top k holds a document outside their entitlement set.
    """

    k: int
    valid: bool
    query_ids: tuple[str, ...]
    recall: np.ndarray
    n_hit: np.ndarray
    n_gold: np.ndarray
    missing_run: tuple[str, ...]
    dropped: tuple[str, ...]
    unentitled_retrieved: tuple[str, ...]

    @property
    def mean(self) -> float:
        return float(self.recall.mean())


def _recall(
    gold_sets: dict, order: Iterable[str], ent: dict, run: object, k: int, valid: bool
) -> RecallAtK:
    """Recall@k over the queries of ``order`` with a non-empty gold set in ``gold_sets``."""
    if not isinstance(run, Mapping):
        raise InputError("run must be a mapping query id → ranked document ids")
    qids = [q for q in order if gold_sets.get(q)]
    hits, n_gold, leaks = [], [], []
    for qid in qids:
        top = _top_k(run, qid, k)
        hits.append(len(gold_sets[qid].intersection(top)))
        n_gold.append(len(gold_sets[qid]))
        if not ent[qid].issuperset(top):
            leaks.append(qid)
    hit_arr, gold_arr = frozen_array(hits, np.int64), frozen_array(n_gold, np.int64)
    return RecallAtK(
        k=k,
        valid=valid,
        query_ids=tuple(qids),
        recall=frozen_array(hit_arr / gold_arr, np.float64),
        n_hit=hit_arr,
        n_gold=gold_arr,
        missing_run=tuple(q for q in qids if q not in run),
        dropped=tuple(q for q in order if not gold_sets.get(q)),
        unentitled_retrieved=tuple(leaks),
    )


def recall_at_k_correct(gold: Gold, entitlement: DocSets, run: Run, k: int = 10) -> RecallAtK:
    """Correct Recall@k: |EG_q ∩ top_k(run_q)| / |EG_q| with EG_q = G_q ∩ E_q.

    Gold is restricted by entitlement only, never by the system's own relevance
    filter, so a falsely excluded gold document counts as a miss. Queries with no
    eligible gold are dropped (a separate slice); none left → InputError. A
    query without a ranking counts as an empty ranking (listed in ``missing_run``).
    """
    k = _check_k(k)
    g, ent, _ = _inputs(gold, entitlement, None)
    eligible = {q: docs & ent[q] for q, docs in g.items()}
    if not any(eligible.values()):
        raise InputError(NO_ELIGIBLE)
    return _recall(eligible, g, ent, run, k, valid=True)


def recall_at_k_filtered_gold(
    gold: Gold, entitlement: DocSets, passed: DocSets, run: Run, k: int = 10
) -> RecallAtK:
    """INVALID evaluator, kept only to demonstrate the trap: never report it.

    Rebuilds gold after filtering, G'_q = G_q ∩ E_q ∩ P_q, drops the queries
    whose G'_q is empty (exactly the falsely excluded ones) and scores
    |G'_q ∩ top_k(run_q)| / |G'_q| on the rest. That changes the question: a
    filter that removes every answer cannot lower it (the RAG reference: 100 % where the
    correct Recall@10 is 50 %). Result has ``valid = False``. Nothing left →
    InputError.
    """
    k = _check_k(k)
    g, ent, ok = _inputs(gold, entitlement, passed)
    filtered = {q: docs & ent[q] & ok[q] for q, docs in g.items()}
    if not any(filtered.values()):
        raise InputError("no query keeps a gold document after filtering (filtered-gold recall)")
    return _recall(filtered, g, ent, run, k, valid=False)
