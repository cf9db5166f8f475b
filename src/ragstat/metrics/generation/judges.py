"""LLM judges behind a small protocol (the RAG reference, parts 6 and 8).

* :class:`Judge` — anything with ``judge(prompt: str) -> str``; recorded answers
  in :mod:`ragstat.metrics.generation.replay`, an OpenAI-compatible HTTP backend in
  :mod:`ragstat.adapters.judge_http` (it satisfies the protocol structurally).
* :func:`parse_judgment` — validate a raw response against a pydantic schema in
  strict mode; invalid JSON or a schema violation becomes an
  :class:`InvalidResponse` with its reason. Nothing is coerced or repaired.
* :class:`JudgeBudget` — caps on calls and (approximate) tokens.
* :func:`run_judge` — judge many prompts, keeping valid and invalid apart.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from ragstat.errors import InputError, RagstatError

__all__ = [
    "BudgetExceeded",
    "InvalidResponse",
    "Judge",
    "JudgeBudget",
    "JudgeRun",
    "parse_judgment",
    "run_judge",
]

M = TypeVar("M", bound=BaseModel)


@runtime_checkable
class Judge(Protocol):
    """A judge maps a prompt to its raw text response."""

    def judge(self, prompt: str) -> str: ...


@dataclass(frozen=True)
class InvalidResponse:
    """A judge response rejected as-is. ``kind``: ``invalid_json`` or ``schema``."""

    kind: str
    reason: str
    raw: str = field(repr=False)


def parse_judgment(raw: str, schema: type[M]) -> M | InvalidResponse:
    """Validate ``raw`` against ``schema`` (pydantic v2, strict: no type coercion).

    Returns the model, or :class:`InvalidResponse` for invalid JSON, a non-object,
    or a schema violation (reason: ``loc: message`` per error). Never repairs.
    """
    if not isinstance(schema, type) or not issubclass(schema, BaseModel):
        raise InputError("parse_judgment: schema must be a pydantic BaseModel subclass")
    if not isinstance(raw, str):
        return InvalidResponse("invalid_json", f"response is {type(raw).__name__}, not text", "")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return InvalidResponse("invalid_json", f"invalid JSON: {exc.msg} at char {exc.pos}", raw)
    if not isinstance(data, dict):
        return InvalidResponse("schema", f"expected a JSON object, got {type(data).__name__}", raw)
    try:
        return schema.model_validate_json(raw, strict=True)
    except ValidationError as exc:
        errs = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '<root>'}: {e['msg']}" for e in exc.errors()
        )
        return InvalidResponse("schema", errs, raw)


class BudgetExceeded(RagstatError):
    """A :class:`JudgeBudget` cap was reached."""


@dataclass
class JudgeBudget:
    """Caps on judge calls and tokens (None = no cap).

    :meth:`before_call` raises before a call that would exceed ``max_calls``;
    :meth:`add_tokens` raises once the running total exceeds ``max_tokens``.
    """

    max_calls: int | None = None
    max_tokens: int | None = None
    calls: int = 0
    tokens: int = 0

    def __post_init__(self) -> None:
        for name in ("max_calls", "max_tokens"):
            cap = getattr(self, name)
            if cap is not None and (not isinstance(cap, int) or cap < 0):
                raise InputError(f"JudgeBudget: {name} must be a non-negative int or None")

    def before_call(self) -> None:
        if self.max_calls is not None and self.calls + 1 > self.max_calls:
            raise BudgetExceeded(f"judge budget: max_calls={self.max_calls} reached")
        self.calls += 1

    def add_tokens(self, n: int) -> None:
        self.tokens += int(n)
        if self.max_tokens is not None and self.tokens > self.max_tokens:
            raise BudgetExceeded(
                f"judge budget: {self.tokens} tokens exceed max_tokens={self.max_tokens}"
            )


def _whitespace_tokens(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True)
class JudgeRun:
    """Outcome of :func:`run_judge`: ``valid`` (item → model) and ``invalid``
    (item → :class:`InvalidResponse`); ``invalid_rate = |invalid| / n``."""

    valid: dict[str, BaseModel]
    invalid: dict[str, InvalidResponse]

    @property
    def n(self) -> int:
        return len(self.valid) + len(self.invalid)

    @property
    def invalid_rate(self) -> float:
        if self.n == 0:
            raise InputError("judge run: no item judged (empty denominator)")
        return len(self.invalid) / self.n

    @property
    def invalid_counts(self) -> Counter[str]:
        """Invalid responses counted by kind (``invalid_json`` / ``schema``)."""
        return Counter(r.kind for r in self.invalid.values())


def run_judge(
    judge: Judge,
    prompts: Mapping[str, str],
    schema: type[M],
    budget: JudgeBudget | None = None,
    count_tokens: Callable[[str], int] = _whitespace_tokens,
) -> JudgeRun:
    """Judge each prompt, parse with :func:`parse_judgment`, keep invalid ones apart.

    Tokens charged per call: ``count_tokens(prompt) + count_tokens(response)``
    (default: whitespace tokens, an approximation). A budget breach raises.
    """
    if not isinstance(judge, Judge):
        raise InputError("run_judge: judge must have a judge(prompt) -> str method")
    if not isinstance(prompts, Mapping):
        raise InputError("run_judge: prompts must map item id → prompt")
    valid: dict[str, BaseModel] = {}
    invalid: dict[str, InvalidResponse] = {}
    for item, prompt in prompts.items():
        if budget is not None:
            budget.before_call()
        raw = judge.judge(prompt)
        if budget is not None:
            budget.add_tokens(
                count_tokens(prompt) + count_tokens(raw if isinstance(raw, str) else "")
            )
        out = parse_judgment(raw, schema)
        if isinstance(out, InvalidResponse):
            invalid[str(item)] = out
        else:
            valid[str(item)] = out
    return JudgeRun(valid=valid, invalid=invalid)
