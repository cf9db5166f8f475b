"""Decided gates as results: one :class:`GateResult` per gate, the family in a :class:`GateReport`.

The report holds everything ``ragstat gate`` prints: ``to_dict()`` is its ``--json``
object, ``exit_code()`` its exit status, ``verdict()`` the one sentence a CI log shows.
Presentation for CI (Markdown job summary, JUnit XML) is in
:mod:`ragstat.report.gate_summary`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ragstat.decisions.multiplicity import CORRECTIONS
from ragstat.decisions.spec import Decision, GateSpec, level_text, number_text
from ragstat.errors import InputError
from ragstat.tidy import Tidy, plain

__all__ = ["GateReport", "GateResult"]

#: How the interval relates to the gate's bound, per kind and outcome (for sentences).
_RELATION = {
    "at_least": ("lies at or above {b}", "lies below {b}", "contains {b}"),
    "at_most": ("lies at or below {b}", "lies above {b}", "contains {b}"),
    "not_worse_than_baseline": ("lies at or above {b}", "lies below {b}", "contains {b}"),
    "better_than_baseline": ("lies above {b}", "lies at or below {b}", "contains {b}"),
    "equivalent": ("lies within ±{m}", "lies outside ±{m}", "crosses ±{m}"),
}
_VERB = {"pass": "passes", "fail": "fails", "inconclusive": "is inconclusive"}


@dataclass(frozen=True, repr=False)
class GateResult(Tidy):
    """One gate decided: its spec, its decision and the evidence behind it.

    ``estimate`` is the metric (or candidate − baseline for paired kinds), ``K`` the
    documents and ``N`` the queries the interval rests on (None without evidence), ``method`` the interval method,
    ``evidence`` a short account of what was counted (e.g. "812 queries in 74 documents;
    3 unscorable answers dropped"), ``p_value`` the unadjusted p-value of the gate's test
    when the method gives one. ``system`` labels the candidate and ``window`` the
    monitoring window when a gate runs per window.
    """

    spec: GateSpec
    decision: Decision
    estimate: float | None
    K: int | None
    N: float | None
    method: str
    evidence: str
    p_value: float | None = None
    system: str | None = None
    window: str | None = None
    #: Rows of the gate's slice left out without a score: missing cells, and cells that
    #: were not numbers (counted only when the gates file treats them as missing).
    missing: int = 0
    non_numeric: int = 0

    headline_columns = ("gate", "condition", "estimate", "lower", "upper", "level", "outcome")

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def outcome(self) -> str:
        return self.decision.outcome

    @property
    def lower(self) -> float | None:
        iv = self.decision.interval
        return None if iv is None else plain(iv.lower)

    @property
    def upper(self) -> float | None:
        iv = self.decision.interval
        return None if iv is None else plain(iv.upper)

    def blocks(self, inconclusive_blocks: bool) -> bool:
        """Whether this gate fails the run (a blocking gate that fails, or is inconclusive
        when inconclusive results block)."""
        if not self.spec.blocking:
            return False
        return self.outcome == "fail" or (self.outcome == "inconclusive" and inconclusive_blocks)

    def label(self) -> str:
        """``hit1 ≥ 0.70 [law = L8078] (bm25)``: the condition, its slice, system and window."""
        text = self.spec.condition()
        if self.spec.slice:
            text += f" [{self.spec.slice_text()}]"
        tags = [t for t in (self.system, self.window) if t]
        return f"{text} ({', '.join(tags)})" if tags else text

    def interval_text(self) -> str:
        """``[0.661, 0.742] at 98.75 %`` or "no interval"."""
        if self.lower is None or self.upper is None:
            return "no interval"
        return f"[{self.lower:.4g}, {self.upper:.4g}] at {level_text(self.decision.level)}"

    def why(self) -> str:
        """Why the gate ended as it did, in words: the reason for missing evidence, else how
        the interval at the gate's adjusted level sits against the bound."""
        if self.lower is None or self.upper is None:
            return self.decision.reason or "no interval (missing evidence)"
        index = ("pass", "fail", "inconclusive").index(self.outcome)
        relation = _RELATION[self.spec.kind][index].format(
            b=number_text(self.spec.bound()), m=number_text(self.spec.margin)
        )
        text = f"the {level_text(self.decision.level)} interval [{self.lower:.4g}, {self.upper:.4g}] {relation}"
        return f"{text} ({self.decision.reason})" if self.decision.reason else text

    def summary(self, note: str = "") -> str:
        """``hit1 ≥ 0.70 (bm25) is inconclusive: the 95 % interval [0.66, 0.74] contains 0.70``
        (``note`` goes after the outcome, e.g. " (does not block)")."""
        return f"{self.label()} {_VERB[self.outcome]}{note}: {self.why()}"

    def to_dict(self) -> dict[str, Any]:
        s, d = self.spec, self.decision
        return {
            "name": s.name,
            "kind": s.kind,
            "metric": s.metric,
            "estimand": s.estimand,
            "threshold": s.threshold,
            "margin": s.margin,
            "min_delta": s.min_delta,
            "slice": None if s.slice is None else {k: list(v) for k, v in s.slice_values().items()},
            "input": s.input,
            "blocking": s.blocking,
            "system": self.system,
            "window": self.window,
            "condition": self.label(),
            "outcome": d.outcome,
            "reason": d.reason,
            "level": d.level,
            "estimate": plain(self.estimate),
            "lower": self.lower,
            "upper": self.upper,
            "method": self.method,
            "K": self.K,
            "N": plain(self.N),
            "evidence": self.evidence,
            "unscored": {"missing": self.missing, "non_numeric": self.non_numeric},
            "p_value": plain(self.p_value),
            "why": self.why(),
        }

    def rows(self) -> list[dict[str, Any]]:
        row = self.to_dict()
        row["gate"] = row.pop("name")
        row["slice"] = self.spec.slice_text() or None
        return [row]

    def title(self) -> str:
        return f"gate {self.name}: {self.outcome}"


@dataclass(frozen=True, repr=False)
class GateReport(Tidy):
    """A family of gates decided together, at ``level`` with ``correction``.

    ``source`` names the gates file (or "python" when built in code); ``warnings`` carries
    notes the run produced. ``to_frame()`` has one row per gate.
    """

    gates: tuple[GateResult, ...]
    level: float
    correction: str
    inconclusive_blocks: bool
    source: str
    warnings: tuple[str, ...] = ()

    headline_columns = (
        "gate",
        "condition",
        "estimate",
        "lower",
        "upper",
        "level",
        "outcome",
        "blocking",
    )

    def __post_init__(self) -> None:
        if self.correction not in CORRECTIONS:
            raise InputError(
                f"unknown correction {self.correction!r} (one of {', '.join(CORRECTIONS)})"
            )
        if not 0.0 < self.level < 1.0:
            raise InputError(f"level must be strictly between 0 and 1, got {self.level!r}")

    def blocking_failures(self) -> list[GateResult]:
        """The gates that make the run fail."""
        return [g for g in self.gates if g.blocks(self.inconclusive_blocks)]

    @property
    def passed(self) -> bool:
        return not self.blocking_failures()

    def exit_code(self) -> int:
        """0 when every blocking gate passes (inconclusive counts as failing when
        ``inconclusive_blocks``), else 1. Bad input (exit 2) never reaches a report."""
        return 0 if self.passed else 1

    def verdict(self) -> str:
        """One plain sentence: how many blocking gates pass and why the others do not
        (failures first, then inconclusive gates, then advisory gates that do not pass)."""
        if not self.gates:
            return "No gates were evaluated."
        blocking = [g for g in self.gates if g.spec.blocking]
        n_pass = sum(g.outcome == "pass" for g in blocking)
        if not blocking:
            head = "No blocking gates"
        elif n_pass == len(blocking):
            head = (
                "The blocking gate passes" if n_pass == 1 else f"All {n_pass} blocking gates pass"
            )
        elif len(blocking) == 1:
            head = "The blocking gate does not pass"
        else:
            head = f"{n_pass} of {len(blocking)} blocking gates pass"
        parts = [head]
        parts += [g.summary() for g in blocking if g.outcome == "fail"]
        note = "" if self.inconclusive_blocks else " (does not block)"
        parts += [g.summary(note) for g in blocking if g.outcome == "inconclusive"]
        advisory = [g for g in self.gates if not g.spec.blocking]
        short = [g for g in advisory if g.outcome != "pass"]
        if short:
            names = ", ".join(f"{g.label()} {_VERB[g.outcome]}" for g in short)
            parts.append(f"advisory (not blocking): {names}")
        elif advisory:
            parts.append(f"{len(advisory)} advisory gate{'s' if len(advisory) > 1 else ''} pass")
        return "; ".join(parts) + "."

    def to_dict(self) -> dict[str, Any]:
        """The ``ragstat gate --json`` object."""
        return {
            "source": self.source,
            "level": self.level,
            "correction": self.correction,
            "inconclusive_blocks": self.inconclusive_blocks,
            "passed": self.passed,
            "exit_code": self.exit_code(),
            "verdict": self.verdict(),
            "gates": [g.to_dict() for g in self.gates],
            "warnings": list(self.warnings),
        }

    def rows(self) -> list[dict[str, Any]]:
        return [row for g in self.gates for row in g.rows()]

    def title(self) -> str:
        return (
            f"{len(self.gates)} gates from {self.source}: {level_text(self.level)} family level, "
            f"{self.correction} correction — {'passed' if self.passed else 'failed'}"
        )
