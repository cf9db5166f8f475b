"""Near-duplicate detection quality (the RAG reference part 3, "MinHash / LSH").

``minhash_candidates`` / ``minhash_pairs`` reproduce the seed's datasketch recipe
deterministically (explicit ``seed``); ``dedup_quality`` scores any detector's predicted
duplicate pairs against hand-labelled pairs, with wrong merges (corrupt answers) and missed
merges (waste index space) reported apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import BackendUnavailable, InputError
from ragstat.metrics import rates

__all__ = [
    "DedupQuality",
    "dedup_quality",
    "minhash_candidates",
    "minhash_pairs",
    "shingles",
]

Pair = tuple[str, str]


def _datasketch():
    try:
        import datasketch
    except ImportError as exc:
        raise BackendUnavailable(
            "MinHash/LSH needs datasketch: pip install 'ragstat[ingestion]' (or datasketch)"
        ) from exc
    return datasketch


def shingles(text: str, k: int = 5) -> frozenset[str]:
    """Lower-cased character ``k``-grams ``{text[i:i+k]}``, as in the seed.

    A non-empty text shorter than ``k`` is one shingle (the seed would give an empty set,
    whose MinHash matches every other empty set). An empty text raises InputError.
    """
    if not isinstance(text, str) or not text:
        raise InputError("shingles: a document must be a non-empty string")
    if k < 1:
        raise InputError(f"shingles: k must be >= 1, got {k}")
    text = text.lower()
    if len(text) < k:
        return frozenset([text])
    return frozenset(text[i : i + k] for i in range(len(text) - k + 1))


def _signatures(docs: Mapping[str, str], num_perm: int, shingle: int, seed: int) -> dict:
    ds = _datasketch()
    if not isinstance(docs, Mapping) or not docs:
        raise InputError("minhash: docs must be a non-empty mapping doc id → text")
    out = {}
    for did, text in docs.items():
        m = ds.MinHash(num_perm=num_perm, seed=seed)
        for s in sorted(shingles(text, shingle)):
            m.update(s.encode("utf-8"))
        out[str(did)] = m
    return out


def minhash_candidates(
    docs: Mapping[str, str],
    threshold: float = 0.8,
    num_perm: int = 128,
    shingle: int = 5,
    seed: int = 1,
) -> dict[str, tuple[str, ...]]:
    """Each document → the sorted ids LSH returns when queried with it (itself included).

    MinHash estimates Jaccard ``J(A, B) = |A ∩ B| / |A ∪ B|`` of shingle sets by the share
    of ``num_perm`` hash minima that agree (Broder 1997); ``MinHashLSH`` bands the signature
    so pairs above ``threshold`` collide with high probability (Indyk & Motwani 1998).
    Hash functions are fixed by ``seed``, so the result is deterministic.
    """
    if not 0.0 < threshold < 1.0:
        raise InputError(f"minhash: threshold must lie in (0, 1), got {threshold}")
    sigs = _signatures(docs, num_perm, shingle, seed)
    lsh = _datasketch().MinHashLSH(threshold=threshold, num_perm=num_perm)
    for did, m in sigs.items():
        lsh.insert(did, m)
    return {did: tuple(sorted(lsh.query(m))) for did, m in sigs.items()}


def minhash_pairs(
    docs: Mapping[str, str],
    threshold: float = 0.8,
    num_perm: int = 128,
    shingle: int = 5,
    seed: int = 1,
) -> frozenset[Pair]:
    """Predicted near-duplicate pairs ``(a, b)`` with ``a < b`` from :func:`minhash_candidates`."""
    cands = minhash_candidates(docs, threshold, num_perm, shingle, seed)
    return frozenset((min(a, b), max(a, b)) for a, hits in cands.items() for b in hits if a != b)


def _pair(p: object, where: str) -> Pair:
    if isinstance(p, str) or not isinstance(p, Iterable):
        raise InputError(f"{where}: a pair must be two document ids, got {p!r}")
    items = tuple(str(x) for x in p)
    if len(items) != 2 or items[0] == items[1]:
        raise InputError(f"{where}: a pair must be two distinct document ids, got {p!r}")
    return (min(items), max(items))


@dataclass(frozen=True)
class DedupQuality:
    """Per labelled pair: ``predicted`` (detector merged it) and ``duplicate`` (label).

    TP = predicted ∧ duplicate, FP = predicted ∧ ¬duplicate, FN = ¬predicted ∧ duplicate,
    TN = ¬predicted ∧ ¬duplicate, counted over labelled pairs only.

    * ``precision = TP / (TP + FP)``, ``recall = TP / (TP + FN)``;
    * ``wrong_merge_rate = FP / (FP + TN)``: share of truly distinct labelled pairs merged
      (these corrupt answers);
    * ``missed_merge_rate = FN / (TP + FN)``: share of true duplicates left apart (these waste
      index space).

    Each raises InputError on an empty denominator. ``unlabelled_predicted``: predicted pairs
    with no label (not scored; label them or they stay invisible).
    """

    pair_ids: tuple[Pair, ...]
    predicted: np.ndarray
    duplicate: np.ndarray
    unlabelled_predicted: tuple[Pair, ...]

    def _ratio(self, num: np.ndarray, den: np.ndarray, name: str) -> float:
        return rates.rate(int(num.sum()), int(den.sum()), f"dedup {name}")

    @property
    def precision(self) -> float:
        tp = self.predicted & self.duplicate
        return self._ratio(tp, self.predicted, "precision (no predicted pair)")

    @property
    def recall(self) -> float:
        tp = self.predicted & self.duplicate
        return self._ratio(tp, self.duplicate, "recall (no labelled duplicate)")

    @property
    def wrong_merge_rate(self) -> float:
        fp = self.predicted & ~self.duplicate
        return self._ratio(fp, ~self.duplicate, "wrong-merge rate (no labelled distinct pair)")

    @property
    def missed_merge_rate(self) -> float:
        fn = ~self.predicted & self.duplicate
        return self._ratio(fn, self.duplicate, "missed-merge rate (no labelled duplicate)")

    def records(self) -> dict[str, float]:
        """``"a|b"`` → 1.0 where the detector agrees with the label, else 0.0."""
        agree = self.predicted == self.duplicate
        return {f"{a}|{b}": float(v) for (a, b), v in zip(self.pair_ids, agree, strict=True)}


def dedup_quality(
    predicted: Iterable[Iterable[str]], labels: Mapping[tuple[str, str], bool]
) -> DedupQuality:
    """Score predicted duplicate pairs against hand labels ``{(a, b): is_duplicate}``.

    Pairs are unordered. For an exhaustive labelling of a corpus, label every pair
    (``itertools.combinations(doc_ids, 2)``); otherwise the rates describe the labelled
    sample. No label at all → InputError; a pair labelled twice with different values →
    InputError.
    """
    if not isinstance(labels, Mapping) or not labels:
        raise InputError("dedup_quality: labels must be a non-empty mapping (a, b) → bool")
    lab: dict[Pair, bool] = {}
    for p, v in labels.items():
        key = _pair(p, "dedup_quality labels")
        if key in lab and lab[key] != bool(v):
            raise InputError(f"dedup_quality: pair {key} labelled both ways")
        lab[key] = bool(v)
    pred = {_pair(p, "dedup_quality predicted") for p in predicted}
    ids = tuple(sorted(lab))
    return DedupQuality(
        pair_ids=ids,
        predicted=frozen_array([p in pred for p in ids], bool),
        duplicate=frozen_array([lab[p] for p in ids], bool),
        unlabelled_predicted=tuple(sorted(pred - lab.keys())),
    )
