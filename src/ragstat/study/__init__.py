"""The label-free self-retrieval study: every chunk's first words query the corpus, and a
hit is a top result from the query's own document.

``run_study(corpus, config)`` runs in process; with ``executor=`` / ``index_dir=`` it
runs in batches on saved indexes (:mod:`ragstat.study.batches`) with identical
tables. ``StudyConfig(sample_queries=N | FRACTION)`` samples the queries in two
stages (:mod:`ragstat.study.sampling`). ``write_study`` writes the study folder; the
summary's intervals are computed by :func:`ragstat.api.study.study` (the Python twin
of ``ragstat study``).
"""

from ragstat.study.config import RETRIEVERS, StudyConfig
from ragstat.study.output import by_stratum, strata_column, study_counts, write_study
from ragstat.study.run import BATCH_SIZE, Study, run_study
from ragstat.study.sampling import parse_sample_queries

__all__ = [
    "BATCH_SIZE",
    "RETRIEVERS",
    "Study",
    "StudyConfig",
    "by_stratum",
    "parse_sample_queries",
    "run_study",
    "strata_column",
    "study_counts",
    "write_study",
]
