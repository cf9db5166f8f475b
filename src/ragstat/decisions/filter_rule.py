"""The hard-vs-soft filter rule: may a relevance preference become a hard filter?

For a relevance preference F (a locale, a product, a recency window, a version), measured
on the same eligible validation queries once with F as a hard filter and once with F as a
soft rerank boost, with Δ_min, ε and recall_loss_max pre-registered::

    precision_gain = precision@k(hard) − precision@k(soft)   (paired, per query)
    exclusion_rate = share of queries whose gold was filtered out by the hard filter
    recall_diff    = recall@k(hard) − recall@k(soft)          (paired, per query)

    hard  iff  lower_bound(precision_gain_CI) ≥ Δ_min
          AND  exclusion_rate ≤ ε
          AND  recall_diff ≥ −recall_loss_max
    soft  otherwise (a condition that cannot be evaluated — no interval — does not hold).

Access rules (authorisation, tenant, jurisdiction, publication state) are never
candidates: they are always hard filters, validated on their own (:func:`refuse_access`).

ε is compared with the exclusion rate's point estimate by default, as the rule is
usually written; ``epsilon_against="upper"`` compares it with the interval's upper
bound instead. Either way the result also reports the decision the other comparison
would give (``alternative_decision``). The recall condition compares the point estimate
(its interval is reported beside it). This module is pure: it takes the three
estimates with their intervals and the thresholds; ``ragstat.api.verbs.filter_rule``
computes them from runs and qrels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ragstat.errors import InputError
from ragstat.tidy import Tidy, plain

__all__ = [
    "ACCESS_KINDS",
    "EPSILON_AGAINST",
    "RULE",
    "Condition",
    "Estimate",
    "FilterRuleResult",
    "Thresholds",
    "decide_filter_rule",
    "refuse_access",
]

#: Kinds of predicate that are access rules: always hard filters, never candidates.
ACCESS_KINDS = ("authorisation", "tenant", "jurisdiction", "publication_state")
_ACCESS_WORDS = {
    "authorisation": "authorisation", "authorization": "authorisation", "auth": "authorisation",
    "authz": "authorisation", "acl": "authorisation", "access": "authorisation",
    "permission": "authorisation", "permissions": "authorisation",
    "entitlement": "authorisation", "entitlements": "authorisation",
    "tenant": "tenant", "tenancy": "tenant", "tenant_id": "tenant", "tenant_isolation": "tenant",
    "jurisdiction": "jurisdiction", "legal_jurisdiction": "jurisdiction",
    "publication_state": "publication_state", "publication": "publication_state",
    "publication_status": "publication_state", "published": "publication_state",
}  # fmt: skip
#: What ε may be compared with: the exclusion rate's point estimate or its upper bound.
EPSILON_AGAINST = ("estimate", "upper")
RULE = (
    "Use a hard predicate only if lower_bound(precision_gain_CI) ≥ Δ_min AND exclusion_rate "
    "≤ ε AND hard_recall − soft_recall ≥ −recall_loss_max, on the same eligible validation "
    "queries with Δ_min, ε and recall_loss_max pre-registered; otherwise a soft boost. Access "
    "rules (authorisation, tenant, jurisdiction, publication state) are always hard filters."
)
#: Slack for comparing computed means with thresholds (a mean of 0.02 summed from 50
#: queries may read 0.020000000000000004).
TOLERANCE = 1e-12


def _normal(word: str) -> str:
    return re.sub(r"[\s\-]+", "_", word.strip().lower())


def refuse_access(name: str | None, kind: str | None) -> None:
    """InputError when the preference is an access rule: its ``kind`` (or, with no kind,
    the attribute its ``name`` filters on, e.g. ``tenant = acme``) is authorisation, tenant,
    jurisdiction or publication state."""
    found = _ACCESS_WORDS.get(_normal(kind)) if kind else None
    said = f"kind {kind!r}"
    if found is None and not kind and name:
        attribute = re.split(r"\s*(?:=|==|!=|<=|>=|<|>|:|\bin\b)\s*", name.strip(), maxsplit=1)[0]
        found, said = _ACCESS_WORDS.get(_normal(attribute)), f"{name!r}"
    if found is not None:
        raise InputError(
            f"{said} is an access rule ({found.replace('_', ' ')}): access rules are always hard "
            "filters, validated on their own — they are not candidates for the hard-vs-soft "
            "filter rule"
        )


def _threshold(value: object, what: str) -> float:
    if value is None:
        raise InputError(
            f"{what} is required: pre-register Δ_min, ε and recall_loss_max before looking at "
            "the validation runs (the hard-vs-soft filter rule has no defaults)"
        )
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{what} must be a number in [0, 1], got {value!r}")
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise InputError(f"{what} must be a number in [0, 1], got {value!r}")
    return number


@dataclass(frozen=True)
class Thresholds:
    """The pre-registered thresholds, each a number in [0, 1] (checked)."""

    delta_min: float
    epsilon: float
    recall_loss_max: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "delta_min", _threshold(self.delta_min, "delta_min (Δ_min)"))
        object.__setattr__(self, "epsilon", _threshold(self.epsilon, "epsilon (ε)"))
        loss = _threshold(self.recall_loss_max, "recall_loss_max")
        object.__setattr__(self, "recall_loss_max", loss)

    def to_dict(self) -> dict[str, float]:
        return {
            "delta_min": self.delta_min,
            "epsilon": self.epsilon,
            "recall_loss_max": self.recall_loss_max,
        }


@dataclass(frozen=True)
class Estimate:
    """A quantity's point estimate and interval; bounds are None when no interval could be
    computed (``reason`` says why)."""

    estimate: float
    lower: float | None = None
    upper: float | None = None
    method: str | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if not math.isfinite(float(self.estimate)):
            raise InputError(f"an estimate must be a finite number, got {self.estimate!r}")


@dataclass(frozen=True)
class Condition:
    """One condition of the rule: the ``value`` compared (``compared``: the lower bound,
    the point estimate or the upper bound), its threshold and whether it held."""

    name: str
    rule: str
    compared: str
    value: float | None
    threshold: float
    held: bool
    estimate: float
    lower: float | None
    upper: float | None
    method: str | None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "condition": self.name,
            "rule": self.rule,
            "compared": self.compared,
            "value": plain(self.value),
            "threshold": self.threshold,
            "held": self.held,
            "estimate": plain(self.estimate),
            "lower": plain(self.lower),
            "upper": plain(self.upper),
            "method": self.method,
            "reason": self.reason,
        }


def _num(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3g}".replace("-", "−")


def _at_least(value: float | None, threshold: float) -> bool:
    return value is not None and bool(value >= threshold - TOLERANCE)


def _precision(gain: Estimate, t: Thresholds) -> Condition:
    held = _at_least(gain.lower, t.delta_min)
    reason: str | None
    if gain.lower is None:
        reason = f"the precision gain has no interval ({gain.reason or 'not computed'})"
    else:
        reason = None if held else (
            f"the precision gain's lower bound {_num(gain.lower)} is below Δ_min "
            f"{_num(t.delta_min)}"
        )  # fmt: skip
    return Condition("precision_gain", "lower_bound(precision_gain_CI) ≥ Δ_min", "lower bound",
                     gain.lower, t.delta_min, held, gain.estimate, gain.lower, gain.upper,
                     gain.method, reason)  # fmt: skip


def _exclusion(rate: Estimate, t: Thresholds, against: str) -> Condition:
    value = rate.estimate if against == "estimate" else rate.upper
    held = value is not None and bool(value <= t.epsilon + TOLERANCE)
    what = "the exclusion rate" if against == "estimate" else "the exclusion rate's upper bound"
    reason: str | None
    if value is None:
        reason = f"the exclusion rate has no interval ({rate.reason or 'not computed'})"
    else:
        reason = None if held else f"{what} {_num(value)} is above ε {_num(t.epsilon)}"
    compared = "point estimate" if against == "estimate" else "upper bound"
    rule = "exclusion_rate ≤ ε" if against == "estimate" else "upper_bound(exclusion_rate_CI) ≤ ε"
    return Condition("exclusion_rate", rule, compared, value, t.epsilon, held, rate.estimate,
                     rate.lower, rate.upper, rate.method, reason)  # fmt: skip


def _recall(diff: Estimate, t: Thresholds) -> Condition:
    bound = -t.recall_loss_max
    held = _at_least(diff.estimate, bound)
    reason = None if held else (
        f"the recall difference {_num(diff.estimate)} is below −recall_loss_max = {_num(bound)}"
    )  # fmt: skip
    return Condition("recall_difference", "hard_recall − soft_recall ≥ −recall_loss_max",
                     "point estimate", diff.estimate, bound, held, diff.estimate, diff.lower,
                     diff.upper, diff.method, reason)  # fmt: skip


def _conditions(
    gain: Estimate, rate: Estimate, recall: Estimate, t: Thresholds, against: str
) -> tuple[Condition, Condition, Condition]:
    return _precision(gain, t), _exclusion(rate, t, against), _recall(recall, t)


def _decision(conditions: tuple[Condition, ...]) -> str:
    return "hard" if all(c.held for c in conditions) else "soft"


def _other(against: str) -> str:
    return "upper" if against == "estimate" else "estimate"


@dataclass(frozen=True, repr=False)
class FilterRuleResult(Tidy):
    """The decision (``hard`` / ``soft``) for one relevance preference, each condition
    with its value, interval and whether it held, and the decision the other comparison
    of ε would give. ``to_dict()`` is what ``ragstat filter-rule --json`` prints;
    ``to_frame()`` has one row per condition."""

    preference: str | None
    kind: str | None
    decision: str
    conditions: tuple[Condition, ...]
    thresholds: Thresholds
    epsilon_against: str
    alternative_decision: str
    estimand: str = "micro"
    level: float | None = None
    k: int | None = None
    #: JSON-ready facts of how the estimates were obtained (queries, clustering, intervals).
    context: Mapping[str, Any] = field(default_factory=dict, compare=False)
    notes: tuple[str, ...] = ()

    headline_columns = ("condition", "compared", "value", "threshold", "held", "estimate",
                        "lower", "upper", "method")  # fmt: skip

    def condition(self, name: str) -> Condition:
        """The condition ``precision_gain``, ``exclusion_rate`` or ``recall_difference``."""
        for c in self.conditions:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def label(self) -> str:
        return f"{self.preference!r}" if self.preference else "the preference"

    @property
    def sentence(self) -> str:
        """One plain sentence: the decision and the condition(s) that decided it."""
        if self.decision == "hard":
            gain, rate, recall = (self.condition(n) for n in
                                  ("precision_gain", "exclusion_rate", "recall_difference"))  # fmt: skip
            what = "exclusion rate" if rate.compared == "point estimate" else (
                "exclusion rate's upper bound")  # fmt: skip
            return (
                f"Use {self.label} as a hard filter: the precision gain's lower bound "
                f"{_num(gain.value)} ≥ Δ_min {_num(gain.threshold)}, the {what} "
                f"{_num(rate.value)} ≤ ε {_num(rate.threshold)} and the recall difference "
                f"{_num(recall.value)} ≥ −recall_loss_max = {_num(recall.threshold)}"
            )
        failed = "; ".join(c.reason or c.name for c in self.conditions if not c.held)
        return f"Keep {self.label} as a soft boost: {failed}"

    @property
    def alternative_sentence(self) -> str:
        """What comparing ε the other way would decide."""
        rate = self.condition("exclusion_rate")
        if self.epsilon_against == "estimate":
            how = f"with the exclusion rate's upper bound ({_num(rate.upper)})"
        else:
            how = f"with the exclusion rate's point estimate ({_num(rate.estimate)})"
        change = ("the decision would change" if self.alternative_decision != self.decision
                  else "the decision would not change")  # fmt: skip
        return f"Comparing ε {how} would give {self.alternative_decision}: {change}."

    def to_dict(self) -> dict[str, Any]:
        """The object ``ragstat filter-rule --json`` prints."""
        return {
            "decision": self.decision,
            "sentence": self.sentence,
            "preference": {"name": self.preference, "kind": self.kind},
            "rule": RULE,
            "thresholds": self.thresholds.to_dict(),
            "epsilon_against": self.epsilon_against,
            "alternative": {
                "epsilon_against": _other(self.epsilon_against),
                "decision": self.alternative_decision,
                "changes": self.alternative_decision != self.decision,
                "sentence": self.alternative_sentence,
            },
            "conditions": [c.to_dict() for c in self.conditions],
            "estimand": self.estimand,
            "level": self.level,
            "k": self.k,
            **dict(self.context),
            "notes": list(self.notes),
        }

    def rows(self) -> list[dict[str, Any]]:
        head = {"preference": self.preference, "decision": self.decision}
        return [head | c.to_dict() for c in self.conditions]

    def title(self) -> str:
        level = "" if self.level is None else f", {self.level:.0%} intervals"
        by = self.context.get("clustering")
        if isinstance(by, Mapping):
            level += f", clustered by {by.get('by')} ({by.get('clusters')} clusters)"
        at_k = "" if self.k is None else f" at k = {self.k}"
        return "\n".join([
            self.sentence + ".",
            f"hard-vs-soft filter rule{at_k} ({self.estimand} estimand{level})",
        ])  # fmt: skip

    def __repr__(self) -> str:
        return f"{super().__repr__()}\n{self.alternative_sentence}"


def decide_filter_rule(
    precision_gain: Estimate,
    exclusion_rate: Estimate,
    recall_difference: Estimate,
    thresholds: Thresholds,
    *,
    name: str | None = None,
    kind: str | None = None,
    epsilon_against: str = "estimate",
    estimand: str = "micro",
    level: float | None = None,
    k: int | None = None,
    context: Mapping[str, Any] | None = None,
    notes: tuple[str, ...] = (),
) -> FilterRuleResult:
    """Apply the hard-vs-soft filter rule (module docstring) to the three estimates:
    ``precision_gain`` (hard − soft precision@k, its paired interval), ``exclusion_rate``
    and ``recall_difference`` (hard − soft recall@k). An access rule (``kind`` or the
    attribute ``name`` filters on) is refused with an InputError."""
    refuse_access(name, kind)
    if not isinstance(thresholds, Thresholds):
        raise InputError(f"thresholds must be a Thresholds, got {type(thresholds).__name__}")
    if epsilon_against not in EPSILON_AGAINST:
        raise InputError(
            f"epsilon_against must be one of {', '.join(EPSILON_AGAINST)}, got {epsilon_against!r}"
        )
    gain, rate, recall = precision_gain, exclusion_rate, recall_difference
    conditions = _conditions(gain, rate, recall, thresholds, epsilon_against)
    other = _conditions(gain, rate, recall, thresholds, _other(epsilon_against))
    return FilterRuleResult(
        preference=name,
        kind=kind,
        decision=_decision(conditions),
        conditions=conditions,
        thresholds=thresholds,
        epsilon_against=epsilon_against,
        alternative_decision=_decision(other),
        estimand=estimand,
        level=level,
        k=k,
        context=dict(context or {}),
        notes=tuple(notes),
    )
