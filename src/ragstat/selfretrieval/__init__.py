"""The label-free self-retrieval study: every chunk's first words query the corpus, and a
hit is a top result from the query's own document.

``run_study(corpus, config)`` runs in process; with ``executor=`` / ``index_dir=`` it
runs in batches on saved indexes (:mod:`ragstat.selfretrieval.batches`) with identical
tables. ``StudyConfig(sample_queries=N | FRACTION)`` samples the queries in two
stages (:mod:`ragstat.selfretrieval.sampling`). ``write_study`` writes the study folder; the
summary's intervals are computed by :func:`ragstat.api.verbs.study.study` (the Python twin
of ``ragstat study``).
"""

from ragstat.selfretrieval.config import RETRIEVERS, StudyConfig
from ragstat.selfretrieval.output import by_stratum, strata_column, study_counts, write_study
from ragstat.selfretrieval.run import BATCH_SIZE, Study, run_study
from ragstat.selfretrieval.sampling import parse_sample_queries

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
