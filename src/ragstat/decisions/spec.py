"""What a gate asks (:class:`GateSpec`) and how one interval decides it (:func:`outcome`).

A gate compares the *bound* of a two-sided interval with a threshold, never the point
estimate: a gate passes only when the whole interval clears the threshold, fails when the
whole interval misses it, and is inconclusive when the interval straddles it. Missing
evidence (no interval) is a failure, never a pass.

Kinds (the interval is of the metric for the first two, of candidate − baseline for the
three paired kinds):

- ``at_least``: pass if lower ≥ threshold; fail if upper < threshold.
- ``at_most``: pass if upper ≤ threshold; fail if lower > threshold (error rates, p95
  latency, cost per query).
- ``not_worse_than_baseline`` (non-inferiority): pass if lower ≥ −margin; fail if
  upper < −margin.
- ``better_than_baseline`` (superiority): pass if lower > 0 (``min_delta`` = 0) or
  lower ≥ ``min_delta`` (> 0); fail if upper ≤ ``min_delta``.
- ``equivalent`` (two one-sided tests, Schuirmann 1987, "A comparison of the two one-sided
  tests procedure and the power approach for assessing the equivalence of average
  bioavailability", J. Pharmacokinet. Biopharm. 15:657–680): pass if −margin < lower and
  upper < margin; fail if lower ≥ margin or upper ≤ −margin. With the same two-sided
  interval at level L each one-sided test runs at (1 − L)/2, so this TOST is
  conservative compared with the textbook 1 − 2α interval: a 95 % gate tests each side
  at 2.5 %.

The family correction (Holm, Bonferroni, Benjamini–Hochberg) lives in
:mod:`ragstat.decisions.multiplicity`, the result types in :mod:`ragstat.decisions.results`;
:mod:`ragstat.decisions.gates` is the public face of all three.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from ragstat.errors import InputError

if TYPE_CHECKING:
    from ragstat.inference.results import Interval

__all__ = [
    "ESTIMANDS",
    "KINDS",
    "OUTCOMES",
    "PAIRED_KINDS",
    "Decision",
    "GateSpec",
    "decide",
    "level_text",
    "number_text",
    "outcome",
]

KINDS = ("at_least", "at_most", "not_worse_than_baseline", "better_than_baseline", "equivalent")
OUTCOMES = ("pass", "fail", "inconclusive")
ESTIMANDS = ("micro", "macro")
#: Kinds decided on the paired difference candidate − baseline.
PAIRED_KINDS = frozenset({"not_worse_than_baseline", "better_than_baseline", "equivalent"})
_THRESHOLD_KINDS = frozenset({"at_least", "at_most"})
_MARGIN_KINDS = frozenset({"not_worse_than_baseline", "equivalent"})
_SCALARS = (str, int, float, bool)


def _number(value: Any, key: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"gate {name!r}: {key} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise InputError(f"gate {name!r}: {key} must be finite, got {value!r}")
    return float(value)


def _text(value: Any, key: str, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"gate {name!r}: {key} must be a non-empty string, got {value!r}")
    return value


def _check_slice(where: Any, name: str) -> None:
    if not isinstance(where, Mapping) or not where:
        raise InputError(
            f"gate {name!r}: slice must be a non-empty table {{column = value or [values]}}"
        )
    for column, value in where.items():
        if not isinstance(column, str) or not column:
            raise InputError(f"gate {name!r}: slice column names must be strings, got {column!r}")
        values = value if isinstance(value, (list, tuple)) else [value]
        if not values or not all(isinstance(v, _SCALARS) for v in values):
            raise InputError(
                f"gate {name!r}: slice {column!r} must be a value or a non-empty list of "
                f"values, got {value!r}"
            )


@dataclass(frozen=True)
class GateSpec:
    """One gate as declared: a metric, an estimand, a kind and its threshold or margin.

    ``slice`` filters the per-query rows on metadata before the interval is computed
    (``{column: value}`` or ``{column: [values]}``, rows matching every column); ``input``
    names which input of the gates file the metric comes from. A non-``blocking`` gate is
    reported but never fails the run.
    """

    name: str
    kind: str
    metric: str
    estimand: str = "micro"
    threshold: float | None = None
    margin: float | None = None
    min_delta: float = 0.0
    slice: Mapping[str, Any] | None = None
    blocking: bool = True
    input: str | None = None
    #: The input the baseline kinds compare with (default: the one named ``baseline``).
    baseline: str | None = None
    #: The largest share of rows without a score (e.g. unscorable judge answers) the gate
    #: accepts; above it the gate fails for missing evidence. None: no limit (still counted).
    max_unscored: float | None = None

    def paired(self) -> bool:
        """Whether the gate is decided on candidate − baseline (needs a baseline)."""
        return self.kind in PAIRED_KINDS

    def validate(self) -> None:
        """Raise :class:`InputError` naming the gate when the declaration is inconsistent."""
        name = self.name
        _text(name, "name", name)
        _text(self.metric, "metric", name)
        if self.kind not in KINDS:
            raise InputError(
                f"gate {name!r}: unknown kind {self.kind!r} (one of {', '.join(KINDS)})"
            )
        if self.estimand not in ESTIMANDS:
            raise InputError(
                f"gate {name!r}: estimand must be micro or macro, got {self.estimand!r}"
            )
        self._validate_bounds()
        if self.slice is not None:
            _check_slice(self.slice, name)
        if not isinstance(self.blocking, bool):
            raise InputError(f"gate {name!r}: blocking must be true or false")
        if self.input is not None:
            _text(self.input, "input", name)
        if (
            self.max_unscored is not None
            and not 0 <= _number(self.max_unscored, "max_unscored", name) <= 1
        ):
            raise InputError(f"gate {name!r}: max_unscored is a share between 0 and 1")
        if self.baseline is not None:
            if not self.paired():
                raise InputError(f"gate {name!r}: baseline applies to the baseline kinds only")
            _text(self.baseline, "baseline", name)

    def _validate_bounds(self) -> None:
        name, kind = self.name, self.kind
        if kind in _THRESHOLD_KINDS:
            if self.threshold is None:
                raise InputError(f"gate {name!r}: kind {kind} needs a threshold")
            _number(self.threshold, "threshold", name)
        elif self.threshold is not None:
            raise InputError(f"gate {name!r}: kind {kind} takes no threshold (remove it)")
        if kind in _MARGIN_KINDS:
            if self.margin is None:
                raise InputError(f"gate {name!r}: kind {kind} needs a margin (> 0)")
            if _number(self.margin, "margin", name) <= 0:
                raise InputError(f"gate {name!r}: margin must be > 0, got {self.margin!r}")
        elif self.margin is not None:
            raise InputError(f"gate {name!r}: kind {kind} takes no margin (remove it)")
        delta = _number(self.min_delta, "min_delta", name)
        if kind == "better_than_baseline" and delta < 0:
            raise InputError(
                f"gate {name!r}: min_delta must be ≥ 0 (for a tolerated loss use "
                "not_worse_than_baseline with a margin)"
            )
        if kind != "better_than_baseline" and delta != 0:
            raise InputError(f"gate {name!r}: min_delta applies only to better_than_baseline")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], where: str) -> GateSpec:
        """A validated spec from one TOML table; ``where`` prefixes every error message."""
        if not isinstance(data, Mapping):
            raise InputError(f"{where}: a gate must be a table, got {type(data).__name__}")
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"{where}: a gate needs a name (a non-empty string)")
        known = [f.name for f in fields(cls)]
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise InputError(
                f"{where}: gate {name!r}: unknown key{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(repr(k) for k in unknown)} (allowed: {', '.join(known)})"
            )
        missing = [k for k in ("kind", "metric") if k not in data]
        if missing:
            raise InputError(f"{where}: gate {name!r}: missing {' and '.join(missing)}")
        if "min_delta" in data and data["kind"] != "better_than_baseline":
            raise InputError(
                f"{where}: gate {name!r}: min_delta applies only to better_than_baseline"
            )
        values = dict(data)
        try:
            for key in ("threshold", "margin", "min_delta"):
                if key in values:
                    values[key] = _number(values[key], key, name)
            if isinstance(values.get("slice"), Mapping):
                values["slice"] = dict(values["slice"])
            spec = cls(**values)
            spec.validate()
        except InputError as err:
            raise InputError(f"{where}: {err}") from None
        return spec

    def slice_values(self) -> dict[str, tuple[Any, ...]]:
        """The slice as ``{column: (accepted values…)}`` (empty when there is none)."""
        if not self.slice:
            return {}
        return {
            c: tuple(v) if isinstance(v, (list, tuple)) else (v,) for c, v in self.slice.items()
        }

    def slice_text(self) -> str:
        """``law = L8078, law_type in {lei, decreto}`` (empty when there is no slice)."""
        parts = []
        for column, values in self.slice_values().items():
            if len(values) == 1:
                parts.append(f"{column} = {values[0]}")
            else:
                parts.append(f"{column} in {{{', '.join(str(v) for v in values)}}}")
        return ", ".join(parts)

    def bound(self) -> float:
        """The value the interval is compared with (threshold, −margin, min_delta; ±margin)."""
        if self.kind in _THRESHOLD_KINDS:
            return float(self.threshold or 0.0)
        if self.kind in _MARGIN_KINDS:
            return -float(self.margin or 0.0)
        return float(self.min_delta)

    def bound_text(self) -> str:
        """The condition's right-hand side: ``≥ 0.70``, ``≥ −0.02 vs baseline``, ``within ±0.02``."""
        if self.kind == "at_least":
            return f"≥ {number_text(self.threshold)}"
        if self.kind == "at_most":
            return f"≤ {number_text(self.threshold)}"
        if self.kind == "not_worse_than_baseline":
            return f"≥ −{number_text(self.margin)} vs baseline"
        if self.kind == "equivalent":
            return f"within ±{number_text(self.margin)} of baseline"
        op = ">" if self.min_delta == 0 else "≥"
        return f"{op} {number_text(self.min_delta)} vs baseline"

    def condition(self) -> str:
        """The gate as a short formula: ``hit1 ≥ 0.70``, ``ndcg10 (macro) − baseline ≥ −0.02``."""
        metric = self.metric if self.estimand == "micro" else f"{self.metric} ({self.estimand})"
        if self.kind in _THRESHOLD_KINDS:
            return f"{metric} {self.bound_text()}"
        if self.kind == "equivalent":
            return f"|{metric} − baseline| < {number_text(self.margin)}"
        op = ">" if self.kind == "better_than_baseline" and self.min_delta == 0 else "≥"
        return f"{metric} − baseline {op} {number_text(self.bound())}"


def number_text(x: float | None) -> str:
    """A threshold or bound for people: two decimals below 10 (0.70), else 4 significant digits."""
    if x is None or not math.isfinite(x):
        return "n/a"
    text = f"{x:.2f}" if abs(x) < 10 and round(x, 2) == x else f"{x:.4g}"
    return text.replace("-", "−")


def level_text(level: float) -> str:
    """A confidence level as a percentage without trailing zeros: 95 %, 98.75 %, 99.58 %."""
    text = f"{100 * level:.2f}".rstrip("0").rstrip(".")
    return f"{text} %"


def _given(spec: GateSpec, key: str) -> float:
    value = getattr(spec, key)
    if value is None:
        raise InputError(f"gate {spec.name!r}: kind {spec.kind} needs a {key}")
    return float(value)


def outcome(spec: GateSpec, lower: float | None, upper: float | None) -> str:
    """``pass``, ``fail`` or ``inconclusive`` for the two-sided interval [lower, upper].

    The rules per kind are in this module's docstring. No interval (either bound None or
    not a number) is ``fail``: missing evidence is never a pass.
    """
    if lower is None or upper is None or math.isnan(lower) or math.isnan(upper):
        return "fail"
    kind = spec.kind
    if kind == "at_least":
        t = _given(spec, "threshold")
        return "pass" if lower >= t else "fail" if upper < t else "inconclusive"
    if kind == "at_most":
        t = _given(spec, "threshold")
        return "pass" if upper <= t else "fail" if lower > t else "inconclusive"
    if kind == "not_worse_than_baseline":
        t = -_given(spec, "margin")
        return "pass" if lower >= t else "fail" if upper < t else "inconclusive"
    if kind == "better_than_baseline":
        d = float(spec.min_delta)
        passes = lower > d if d == 0 else lower >= d
        return "pass" if passes else "fail" if upper <= d else "inconclusive"
    if kind == "equivalent":
        m = _given(spec, "margin")
        if -m < lower and upper < m:
            return "pass"
        return "fail" if lower >= m or upper <= -m else "inconclusive"
    raise InputError(f"gate {spec.name!r}: unknown kind {kind!r} (one of {', '.join(KINDS)})")


@dataclass(frozen=True)
class Decision:
    """One gate decided at one two-sided ``level`` (the family-adjusted level).

    ``interval`` is None when there was no evidence; ``reason`` then says why (an empty
    slice, an empty denominator, too many unscorable answers…).
    """

    outcome: str
    level: float
    interval: Interval | None
    reason: str | None = None

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "level": self.level,
            "reason": self.reason,
            "interval": None if self.interval is None else self.interval.to_dict(),
        }


def decide(
    spec: GateSpec, interval: Interval | None, level: float, reason: str | None = None
) -> Decision:
    """The :class:`Decision` of ``spec`` by ``interval`` (computed at ``level``).

    An interval that is None or unavailable is a failure whose reason is ``reason``, else
    the interval's own reason, else "no interval".
    """
    if interval is None or not interval.available or interval.lower is None:
        why = reason or (interval.reason if interval is not None else None) or "no interval"
        return Decision("fail", level, interval, why)
    return Decision(outcome(spec, interval.lower, interval.upper), level, interval, reason)
