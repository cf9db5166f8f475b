"""ragstat: document-clustered uncertainty for retrieval and RAG evaluation."""

from ragstat.errors import BackendUnavailable, DesignError, InputError, RagstatError
from ragstat.inference import Interval, IntervalReport, analyze
from ragstat.records import DocStats, aggregate_arrays, aggregate_file, aggregate_frame

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailable",
    "DesignError",
    "DocStats",
    "InputError",
    "Interval",
    "IntervalReport",
    "RagstatError",
    "__version__",
    "aggregate_arrays",
    "aggregate_file",
    "aggregate_frame",
    "analyze",
]
