"""Ingestion metrics (the RAG reference part 3): does the corpus and its index preserve the source?

* :mod:`~ragstat.metrics.ingestion.extraction` — CER / WER and the extracted-length ratio;
* :mod:`~ragstat.metrics.ingestion.normalization` — NFC ≠ NFKC drift, invisible code points;
* :mod:`~ragstat.metrics.ingestion.chunks` — chunk attribution and heading preservation;
* :mod:`~ragstat.metrics.ingestion.dedup` — near-duplicate detection (MinHash / LSH) quality.

Every kernel returns a frozen dataclass of item ids + read-only numpy arrays whose
``records()`` give item id → value; empty denominators raise `InputError`.
"""

from ragstat.metrics.ingestion.chunks import (
    ChunkAttribution,
    HeadingPreservation,
    chunk_attribution,
    heading_preservation,
)
from ragstat.metrics.ingestion.dedup import (
    DedupQuality,
    dedup_quality,
    minhash_candidates,
    minhash_pairs,
    shingles,
)
from ragstat.metrics.ingestion.extraction import EditErrorRates, LengthRatio, cer, length_ratio, wer
from ragstat.metrics.ingestion.normalization import (
    INVISIBLE_CODE_POINTS,
    UnicodeDrift,
    invisible_code_points,
    unicode_drift,
)

__all__ = [
    "INVISIBLE_CODE_POINTS",
    "ChunkAttribution",
    "DedupQuality",
    "EditErrorRates",
    "HeadingPreservation",
    "LengthRatio",
    "UnicodeDrift",
    "cer",
    "chunk_attribution",
    "dedup_quality",
    "heading_preservation",
    "invisible_code_points",
    "length_ratio",
    "minhash_candidates",
    "minhash_pairs",
    "shingles",
    "unicode_drift",
    "wer",
]
