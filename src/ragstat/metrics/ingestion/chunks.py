"""Chunk-level ingestion metrics (the RAG reference part 3): attribution fidelity and heading paths.

Re-exported by :mod:`ragstat.metrics.ingestion`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = ["ChunkAttribution", "HeadingPreservation", "chunk_attribution", "heading_preservation"]


_WS = re.compile(r"\s+")


def _squash(text: str) -> str:
    return _WS.sub(" ", unicodedata.normalize("NFC", text)).strip()


@dataclass(frozen=True)
class ChunkAttribution:
    """Per chunk: ``has_source`` (names a source id), ``source_known`` (the id is in the
    corpus) and ``verified`` (its text, whitespace-collapsed and NFC, occurs in that source).

    ``fidelity = mean(verified)``: the share of chunks keeping a verifiable source reference.
    """

    item_ids: tuple[str, ...]
    has_source: np.ndarray
    source_known: np.ndarray
    verified: np.ndarray

    @property
    def fidelity(self) -> float:
        return float(self.verified.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.verified.astype(float).tolist(), strict=True))


def _chunk_field(chunk: object, key: str, i: int):
    if not isinstance(chunk, Mapping):
        raise InputError(f"chunk #{i}: must be a mapping with 'chunk_id'")
    if key == "chunk_id" and "chunk_id" not in chunk:
        raise InputError(f"chunk #{i}: no 'chunk_id'")
    return chunk.get(key)


def chunk_attribution(chunks: Sequence[Mapping], sources: Mapping[str, str]) -> ChunkAttribution:
    """Chunk attribution fidelity: ``chunks`` are ``{"chunk_id", "text", "source_id"}``;
    ``sources`` maps source id → full text. No chunk → InputError."""
    if not chunks:
        raise InputError("chunk_attribution: no chunk (empty denominator)")
    ids, has, known, ok = [], [], [], []
    squashed: dict[str, str] = {}
    for i, ch in enumerate(chunks):
        ids.append(str(_chunk_field(ch, "chunk_id", i)))
        sid, text = ch.get("source_id"), ch.get("text") or ""
        has.append(sid is not None and str(sid) != "")
        known.append(has[-1] and str(sid) in sources)
        if known[-1] and str(sid) not in squashed:
            squashed[str(sid)] = _squash(sources[str(sid)])
        body = _squash(text)
        ok.append(known[-1] and bool(body) and body in squashed[str(sid)])
    return ChunkAttribution(
        tuple(ids), frozen_array(has, bool), frozen_array(known, bool), frozen_array(ok, bool)
    )


@dataclass(frozen=True)
class HeadingPreservation:
    """Per chunk: ``kept[i]`` = its heading path equals the expected one (titles compared
    whitespace-collapsed), ``depth_kept[i]`` = common-prefix length / expected depth (1 when
    the expected path is empty and so is the chunk's). ``share = mean(kept)``."""

    item_ids: tuple[str, ...]
    kept: np.ndarray
    depth_kept: np.ndarray

    @property
    def share(self) -> float:
        return float(self.kept.mean())

    def records(self) -> dict[str, float]:
        return dict(zip(self.item_ids, self.kept.astype(float).tolist(), strict=True))


def _path(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InputError(f"{where}: a heading path must be a list of titles")
    return tuple(_squash(str(t)) for t in value)


def heading_preservation(
    chunks: Sequence[Mapping], expected: Mapping[str, Sequence[str]]
) -> HeadingPreservation:
    """Hierarchical-metadata preservation: ``chunks`` are ``{"chunk_id", "heading_path"}``;
    ``expected`` maps chunk id → the heading path it should carry. Chunks without an
    expected path are not scored; none scored → InputError."""
    ids, kept, depth = [], [], []
    for i, ch in enumerate(chunks):
        cid = str(_chunk_field(ch, "chunk_id", i))
        if cid not in expected:
            continue
        want = _path(expected[cid], f"expected path of {cid!r}")
        got = _path(ch.get("heading_path"), f"chunk {cid!r}")
        common = 0
        for a, b in zip(want, got, strict=False):
            if a != b:
                break
            common += 1
        ids.append(cid)
        kept.append(want == got)
        depth.append(common / len(want) if want else float(not got))
    if not ids:
        raise InputError("heading_preservation: no chunk with an expected path (empty denominator)")
    return HeadingPreservation(tuple(ids), frozen_array(kept, bool), frozen_array(depth, float))
