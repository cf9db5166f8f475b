"""Generation metrics (the RAG reference, part 6) and the LLM-judge protocol they are scored with.

* :mod:`~ragstat.metrics.generation.claims` — answer faithfulness from claim verdicts;
* :mod:`~ragstat.metrics.generation.citations` — citation precision / recall / coverage;
* :mod:`~ragstat.metrics.generation.refusals` — refusal correctness;
* :mod:`~ragstat.metrics.generation.short_answer` — SQuAD-style exact match and token F1;
* :mod:`~ragstat.metrics.generation.unseen` — the unseen-entity lexical flag;
* :mod:`~ragstat.metrics.generation.pairwise` — pairwise-judge position bias;
* :mod:`~ragstat.metrics.generation.judges` — the `Judge` protocol, strict parsing,
  budgets; :mod:`~ragstat.metrics.generation.replay` — recorded responses.

The HTTP judge backend is :class:`ragstat.adapters.OpenAICompatibleJudge`.
"""

from ragstat.metrics.generation.citations import CitationScores, citation_scores
from ragstat.metrics.generation.claims import Faithfulness, FaithfulnessJudgment, faithfulness
from ragstat.metrics.generation.judges import (
    BudgetExceeded,
    InvalidResponse,
    Judge,
    JudgeBudget,
    JudgeRun,
    parse_judgment,
    run_judge,
)
from ragstat.metrics.generation.pairwise import PositionBias, position_bias
from ragstat.metrics.generation.refusals import RefusalCorrectness, refusal_correctness
from ragstat.metrics.generation.replay import ReplayJudge, prompt_hash, write_replay
from ragstat.metrics.generation.short_answer import (
    ARTICLES,
    ShortAnswerScores,
    exact_match,
    fold_diacritics,
    normalize_answer,
    short_answer_scores,
    token_f1,
)
from ragstat.metrics.generation.unseen import (
    UnseenEntityFlags,
    unseen_entities,
    unseen_entity_flag,
    unseen_entity_flags,
)

__all__ = [
    "ARTICLES",
    "BudgetExceeded",
    "CitationScores",
    "Faithfulness",
    "FaithfulnessJudgment",
    "InvalidResponse",
    "Judge",
    "JudgeBudget",
    "JudgeRun",
    "PositionBias",
    "RefusalCorrectness",
    "ReplayJudge",
    "ShortAnswerScores",
    "UnseenEntityFlags",
    "citation_scores",
    "exact_match",
    "faithfulness",
    "fold_diacritics",
    "normalize_answer",
    "parse_judgment",
    "position_bias",
    "prompt_hash",
    "refusal_correctness",
    "run_judge",
    "short_answer_scores",
    "token_f1",
    "unseen_entities",
    "unseen_entity_flag",
    "unseen_entity_flags",
    "write_replay",
]
