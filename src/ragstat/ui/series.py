"""A run's recorded numbers as series: one score of one subject for one estimand.

A verb records its headline per estimand (``cli/runlog.headline``: the headline of
:func:`ragstat.inference.headline.headline` as plain data, with the method, the bounds or the
reason there are none, the flags and the unit), under the systems and scores it analysed
(the study: ``{system: {score: {estimand: …}}}``). Each such entry is one *series*, named
subject · score · estimand, so the history never draws hit@1 of bm25 and MRR of tfidf on
one axis. Entries recorded before headlines were (estimate, method, lower, upper) still read.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ragstat.inference.headline import Headline, describe, format_amount
from ragstat.registry import Manifest

__all__ = ["Estimate", "estimate_of", "headline", "metrics_of", "sentences", "subject_of"]

#: How deep in a run's results an estimate is looked for (system › score › estimand).
_DEPTH = 3
_HEADLINE_FIELDS = tuple(f.name for f in fields(Headline))


@dataclass(frozen=True)
class Estimate:
    """One series' value in one run: the estimate, the interval shown (None where the run
    recorded none), the method that gave it or the reason there is none."""

    name: str
    estimate: float
    lower: float | None = None
    upper: float | None = None
    outcome: str | None = None  # a gate's pass / fail / inconclusive
    method: str | None = None
    reason: str | None = None
    unit_scale: float | None = None  # None: recorded before units were (shown as recorded)

    def _amount(self, value: float) -> str:
        if self.unit_scale is None:
            return f"{value:.4g}"
        return format_amount(value, self.unit_scale)

    @property
    def unit(self) -> str:
        return " points" if self.unit_scale == 100.0 else ""

    @property
    def text(self) -> str:
        """``13.1 points (11.8 to 14.5, cr2_bm)``, or the estimate and why there is no
        interval; ``0.5 [0.4, 0.6]`` for an entry recorded before units were."""
        value = self._amount(self.estimate) + self.unit
        if self.lower is None or self.upper is None:
            return value + (f", no interval: {self.reason}" if self.reason else "")
        lower, upper = self._amount(self.lower), self._amount(self.upper)
        if self.unit_scale is None:
            return f"{value} [{lower}, {upper}]" + (f" {self.method}" if self.method else "")
        return f"{value} ({lower} to {upper}" + (f", {self.method})" if self.method else ")")


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def estimate_of(name: str, value: object) -> Estimate | None:
    """``value`` (a recorded headline, an estimate with its interval, or a number) as an
    estimate called ``name``; None when it holds no finite estimate."""
    if not isinstance(value, Mapping):
        est = _number(value)
        return None if est is None else Estimate(name, est)
    est = _number(value.get("estimate"))
    if est is None:
        return None
    return Estimate(
        name,
        est,
        _number(value.get("lower")),
        _number(value.get("upper")),
        method=_text(value.get("method")),
        reason=_text(value.get("reason")),
        unit_scale=_number(value.get("unit_scale")),
    )


def _entries(value: object, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every ``(path, entry)`` holding an estimate: a mapping with an ``estimate`` at any depth
    up to ``_DEPTH``, a bare number at the top only."""
    if isinstance(value, Mapping):
        if "estimate" in value:
            yield path, value
        elif len(path) < _DEPTH:
            for key, inner in value.items():
                yield from _entries(inner, (*path, str(key)))
    elif len(path) == 1:
        yield path, value


def subject_of(m: Manifest) -> str | None:
    """What the run's numbers are of, when its config says: the system analysed, or the two
    compared (``bm25 − tfidf``)."""
    c = m.config
    systems = c.get("systems")
    if m.command == "compare" and isinstance(systems, str) and "," in systems:
        a, b = (s.strip() for s in systems.split(",", 1))
        return f"{a} \u2212 {b}"
    return _text(c.get("system"))


def _parts(m: Manifest, path: tuple[str, ...]) -> tuple[str | None, str | None, str]:
    """(subject, score, estimand) of the entry at ``path``: a study's entries are
    system › score › estimand; other verbs' are named by their config's system and score."""
    if len(path) >= 3:
        return path[-3], path[-2], path[-1]
    score = _text(m.config.get("score"))
    if len(path) == 2:
        return path[0], score, path[1]
    return subject_of(m), score, path[0]


def _name(parts: tuple[str | None, str | None, str]) -> str:
    return " · ".join(p for p in parts if p)


def metrics_of(m: Manifest) -> list[Estimate]:
    """Every series the run recorded an estimate of (``micro`` and ``macro`` first), named
    subject · score · estimand."""
    found = list(_entries(m.results, ()))
    first = [e for e in found if e[0] in (("micro",), ("macro",))]
    rest = [e for e in found if e not in first]
    out = (estimate_of(_name(_parts(m, path)), value) for path, value in first + rest)
    return [e for e in out if e is not None]


def _recorded_headline(value: Mapping[str, Any]) -> Headline | None:
    """The recorded headline as a `Headline` (None for an entry recorded before headlines)."""
    if not all(k in value for k in _HEADLINE_FIELDS):
        return None
    try:
        data = {k: value[k] for k in _HEADLINE_FIELDS}
        data["flags"] = tuple(str(f) for f in data["flags"] or ())
        data["level"], data["K"] = float(data["level"]), int(data["K"])
        data["unit_scale"] = float(data["unit_scale"])
        return Headline(**data)
    except (TypeError, ValueError):
        return None


def sentences(m: Manifest) -> list[str]:
    """One plain sentence per recorded headline (the words every output uses)."""
    out = []
    for path, value in _entries(m.results, ()):
        h = _recorded_headline(value) if isinstance(value, Mapping) else None
        if h is None:
            continue
        subject, score, _ = _parts(m, path)
        out.append(describe(h, score or "the score", subject))
    return out


def headline(m: Manifest) -> str:
    """The run's headline for the runs list: its first series with the recorded interval
    (method named) or the reason there is none; a gate's outcomes."""
    metrics = metrics_of(m)
    if metrics:
        return f"{metrics[0].name} {metrics[0].text}"
    outcomes = [v for v in m.results.values() if isinstance(v, str)]
    if outcomes:
        counts = {o: outcomes.count(o) for o in dict.fromkeys(outcomes)}
        return ", ".join(f"{n} {o}" for o, n in counts.items())
    return "—"
