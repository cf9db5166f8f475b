"""The label-free self-retrieval study of seed 001."""

from ragstat.study.config import RETRIEVERS, StudyConfig
from ragstat.study.output import summarize, write_study
from ragstat.study.run import Study, run_study

__all__ = ["RETRIEVERS", "Study", "StudyConfig", "run_study", "summarize", "write_study"]
