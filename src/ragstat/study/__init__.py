"""The label-free self-retrieval study of seed 001.

``run_study(corpus, config)`` runs in process; with ``executor=`` / ``index_dir=`` it
runs in batches on saved indexes (:mod:`ragstat.study.batches`) with identical
tables. ``StudyConfig(sample_queries=N | FRACTION)`` samples the queries in two
stages (:mod:`ragstat.study.sampling`).
"""

from ragstat.study.config import RETRIEVERS, StudyConfig
from ragstat.study.output import summarize, write_study
from ragstat.study.run import BATCH_SIZE, Study, run_study
from ragstat.study.sampling import parse_sample_queries

__all__ = [
    "BATCH_SIZE",
    "RETRIEVERS",
    "Study",
    "StudyConfig",
    "parse_sample_queries",
    "run_study",
    "summarize",
    "write_study",
]
