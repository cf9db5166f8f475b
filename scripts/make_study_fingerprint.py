"""Write tests/reference/study_fingerprint.json: fingerprints of self-retrieval study tables.

Run from the repository root (needs ../shared/data):

    python scripts/make_study_fingerprint.py

For each shared corpus (planalto-leis, aneel-ren1000) and each case below, the study's
``records``, ``candidates`` and ``documents`` tables are reduced to a fingerprint: the
column names, their dtypes, the row count and a SHA-256 of every value written as JSON
(floats by ``repr``, so a changed last bit changes the hash). The fixture was written
with the code *before* the memory-bounded study (issue 20, part 2);
``tests/test_study_memory_equivalence.py`` recomputes the fingerprints with the current
code and requires them equal, so the memory work cannot change any result.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "reference" / "study_fingerprint.json"
DATA = ROOT.parent / "shared" / "data"
CORPORA = ("planalto-leis.jsonl", "aneel-ren1000.jsonl")

#: name → (StudyConfig keywords, batched?)
CASES: dict[str, tuple[dict, bool]] = {
    "full": ({"retrievers": ("bm25", "tfidf")}, False),
    "sampled": (
        {"retrievers": ("bm25", "tfidf", "rrf"), "sample_queries": 0.2, "sample_seed": 3},
        False,
    ),
    "sampled_batched": (
        {"retrievers": ("bm25", "tfidf", "rrf"), "sample_queries": 0.2, "sample_seed": 3},
        True,
    ),
}


def _value(v: object) -> object:
    """A JSON-exact stand-in for one cell (NaN/None/NA → null, floats by repr)."""
    if v is None:
        return None
    if isinstance(v, float):
        return None if math.isnan(v) else repr(v)
    if hasattr(v, "item"):
        return _value(v.item())  # type: ignore[union-attr]
    if v != v:  # pandas NA
        return None
    return v


def table_fingerprint(frame) -> dict:
    """Columns, dtypes, rows and a SHA-256 over every value, column by column."""
    import pandas as pd

    digest = hashlib.sha256()
    for col in frame.columns:
        values = frame[col].astype(object).where(pd.notna(frame[col]), None).tolist()
        text = json.dumps([_value(v) for v in values], ensure_ascii=False, default=str)
        digest.update(f"{col}\x00{text}\x01".encode())
    return {
        "columns": [str(c) for c in frame.columns],
        "dtypes": [str(t) for t in frame.dtypes],
        "rows": len(frame),
        "sha256": digest.hexdigest(),
    }


def study_fingerprint(path: Path, case: str, tmp: Path) -> dict:
    """The fingerprint of one corpus × case (``tmp``: a scratch folder for a saved index)."""
    from ragstat.corpus import load_corpus
    from ragstat.selfretrieval import StudyConfig, run_study

    options, batched = CASES[case]
    corpus = load_corpus(path)
    config = StudyConfig(**options)
    extra = {"index_dir": tmp / f"index-{path.stem}-{case}", "batch_size": 500} if batched else {}
    study = run_study(corpus, config, **extra)
    return {
        "records": table_fingerprint(study.records),
        "candidates": table_fingerprint(study.candidates),
        "documents": table_fingerprint(study.documents),
        "n_chunks": study.n_chunks,
        "n_indexed": study.n_indexed,
    }


def main() -> None:
    import tempfile

    if not DATA.is_dir():
        sys.exit(f"{DATA} is absent")
    out: dict = {"cases": {k: {"config": v[0], "batched": v[1]} for k, v in CASES.items()}}
    with tempfile.TemporaryDirectory() as tmp:
        for name in CORPORA:
            for case in CASES:
                out.setdefault(name, {})[case] = study_fingerprint(DATA / name, case, Path(tmp))
                print(name, case, out[name][case]["records"]["rows"], flush=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
