"""The other tool's own numbers beside ragstat's, and one computed sentence on why they differ.

A file read with ``--from`` carries the tool's aggregate (a mean over items) and, for some
tools, its standard error (:class:`~ragstat.inference.provenance.ToolValue`). After a verb
has run, :func:`beside_interval` and :func:`beside_comparison` set
``SourceInfo.comparisons``: per analysed system × score the tool's value and SE, ragstat's
estimate of the same quantity (the ``micro`` estimand: the mean over items) with its
headline interval (:mod:`ragstat.inference.headline`, never another rule), and a sentence
whose every number is computed here — whether the means agree (and by how much when they
do not), how the tool's SE was made (items independent, or clustered with C/(C−1)), the
design effect of clustering, and how much wider ragstat's interval is than the tool's
estimate ± z standard errors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from scipy import stats as sps

from ragstat.inference.headline import Headline, headline
from ragstat.inference.provenance import SourceInfo, ToolValue

__all__ = ["ToolComparison", "beside_comparison", "beside_interval", "iid_se"]

#: Means closer than this (relative to their size) are the same number.
SAME = 1e-9
#: The method whose SE is on the score's scale, for a headline method that works on logits.
_PLAIN = {"logit_cr2_bm": "cr2_bm"}
#: ragstat's SE in words, by the method it comes from.
_SE_NAME = {"cr2_bm": "CR2", "cr2_ik": "CR2", "cr1": "CR1", "logit": "CR1",
            "korn_graubard": "CR1", "doc_bootstrap_t": "CR1", "wald_iid": "independent-items"}  # fmt: skip
#: The degrees of freedom of each t method, in words.
_DF_NAME = {"cr2_bm": "Bell–McCaffrey", "cr2_ik": "Imbens–Kolesár", "cr1": "K − 1",
            "logit": "K − 1", "korn_graubard": "K − 1"}  # fmt: skip


@dataclass(frozen=True)
class ToolComparison:
    """The tool's own number for one system × score (``kind="mean"``) or for the
    difference of two systems (``kind="difference"``, ``system`` "A − B") beside ragstat's.

    ``estimate`` is ragstat's estimate of the same quantity and ``value_difference`` the
    tool's value minus it; ``se``/``se_method``/``df`` ragstat's standard error (on the
    score's scale) and where it comes from; ``method``/``lower``/``upper`` the headline
    interval (None, with ``reason``, when there is none); ``tool_se_check`` the tool's SE
    recomputed by ragstat the tool's way (CR1, or sd/√n over items); ``design_effect``
    (ragstat's SE / the tool's independent-items SE)²; ``width_ratio`` the headline
    interval's width over the tool's estimate ± z·SE.
    """

    kind: str
    system: str
    score: str
    tool: str
    tool_value: float | None
    tool_se: float | None
    tool_se_method: str | None
    tool_se_label: str | None
    estimate: float | None
    value_difference: float | None
    se: float | None
    se_method: str | None
    df: float | None
    method: str | None
    lower: float | None
    upper: float | None
    level: float
    reason: str | None
    tool_se_check: float | None
    design_effect: float | None
    width_ratio: float | None
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        return {k: _finite(v) if isinstance(v, float) else v for k, v in asdict(self).items()}


# ------------------------------------------------------------------------------ numbers


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def iid_se(values: Any) -> float | None:
    """sd/√n with the n − 1 divisor: the standard error of a mean of independent items
    (lm-eval's ``*_stderr``, inspect's ``stderr()``); None below two finite values."""
    kept = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    n = len(kept)
    if n < 2:
        return None
    mean = sum(kept) / n
    return math.sqrt(sum((v - mean) ** 2 for v in kept) / (n - 1) / n)


def _column(frame: Any, system: str | None, score: str) -> list[float] | None:
    """The items' values of ``score`` for ``system`` in a source's frame (None: unknown)."""
    if frame is None or score not in getattr(frame, "columns", ()):
        return None
    rows = frame
    if system is not None and "system" in frame.columns:
        rows = frame[frame["system"].astype(str) == system]
    return [float(v) for v in rows[score].to_numpy(float) if math.isfinite(v)]


def _mean(values: list[float] | None) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass(frozen=True)
class _Ours:
    """ragstat's side of one comparison, read from the report's ``micro`` estimand."""

    head: Headline
    se: float | None
    se_method: str | None
    df: float | None
    cr1: float | None


def _ours(report: Any) -> _Ours | None:
    data = report.to_dict() if hasattr(report, "to_dict") else report
    data = data.get("report", data) if isinstance(data, Mapping) else data
    if "micro" not in data["estimands"]:
        return None
    head = headline(data, "micro")
    found = {iv["method"]: iv for iv in data["estimands"]["micro"].get("intervals", [])}
    name = _PLAIN.get(head.method or "", head.method)
    iv = found.get(name or "") or {}
    cr1 = (found.get("cr1") or {}).get("se")
    return _Ours(head, _finite(iv.get("se")), name if iv else None, _finite(iv.get("df")),
                 _finite(cr1))  # fmt: skip


# ---------------------------------------------------------------------------- sentences


def _num(x: float) -> str:
    return f"{x:.4g}".replace("-", "\u2212")


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= SAME * max(1.0, abs(a), abs(b))


def _rounded(value: float, estimate: float) -> int | None:
    """The decimals the tool rounded ragstat's estimate to, if that is all that differs."""
    for k in range(1, 7):
        if _same(round(estimate, k), value):
            return k
    return None


def _value_words(tool: str, value: float | None, estimate: float | None, what: str) -> str:
    if value is None:
        return f"{tool} reports no overall {what}"
    if estimate is None:
        return f"{tool}'s {what} is {_num(value)}; ragstat has no mean over items to set beside it"
    if _same(value, estimate):
        return f"{tool}'s {what}, {_num(value)}, is ragstat's estimate"
    k = _rounded(value, estimate)
    if k is not None:
        return (
            f"{tool}'s {what}, {_num(value)}, is ragstat's {estimate:.6g} rounded to {k} decimals"
        )
    return (
        f"{tool}'s {what}, {_num(value)}, differs from ragstat's {_num(estimate)} by "
        f"{_num(value - estimate)} (the tool filtered or reduced the items otherwise)"
    )


def _interval_words(c: ToolComparison, K: int, independent: bool = False) -> str:
    if c.lower is None or c.upper is None:
        return f"{_ours_words(c)}, and no interval is shown: {c.reason}"
    units = "items" if independent else "documents"  # each item its own unit: say items
    return (
        f"{_ours_words(c)}; its {c.level * 100:g} % interval is {_num(c.lower)} to "
        f"{_num(c.upper)} ({K} {units})"
    )


def _wider(c: ToolComparison, z: float) -> str:
    if c.width_ratio is None or c.tool_value is None or c.tool_se is None:
        return ""
    change = (c.width_ratio - 1) * 100
    side = "wider" if change >= 0 else "narrower"
    return (
        f", so its interval is {abs(change):.0f} % {side} than "
        f"{_num(c.tool_value)} ± {z:.2f} × {_num(c.tool_se)}"
    )


def _ours_words(c: ToolComparison) -> str:
    if c.se is None:
        return "ragstat has no standard error"
    name = _SE_NAME.get(c.se_method or "", c.se_method)
    df = "" if c.df is None else f" with {c.df:.2g} {_DF_NAME.get(c.se_method or '', 't')} df"
    return f"ragstat's standard error is {name}, {_num(c.se)},{df}".rstrip(",")


def _check_words(c: ToolComparison) -> str:
    if c.tool_se_check is None or c.tool_se is None:
        return ""
    if _same(c.tool_se_check, c.tool_se):
        return f" (ragstat gets the same {_num(c.tool_se_check)} that way)"
    return f" (ragstat gets {_num(c.tool_se_check)} that way)"


def _se_words(c: ToolComparison, info: SourceInfo, n: int | None, z: float) -> str:
    tool, label = info.tool, f" ({c.tool_se_label})" if c.tool_se_label else ""
    if c.tool_se is None:
        return (
            f"{tool} reports no uncertainty; {_interval_words(c, info.documents, info.independent)}"
        )
    se = f"{tool}'s standard error {_num(c.tool_se)}{label}"
    ours = f"{_ours_words(c)}{_wider(c, z)}"
    if c.tool_se_method == "cr1":
        return f"{se} is CR1, clustered with the C/(C−1) factor{_check_words(c)}; {ours}"
    items = f"the {n} items" if n else "the items"
    if info.independent:
        return f"{se} and ragstat both take {items} as independent{_check_words(c)}; {ours}"
    deff = "" if c.design_effect is None else f" (design effect {c.design_effect:.2g})"
    return (
        f"{se} assumes {items} are independent{_check_words(c)}; clustered by "
        f"{info.documents} documents, {_ours_words(c)}{deff}{_wider(c, z)}"
    )


# --------------------------------------------------------------------------- comparisons


def _z(level: float) -> float:
    return float(sps.norm.ppf(0.5 + level / 2))


def _repeats(info: SourceInfo, system: str, score: str) -> str:
    found = [r for r in info.repeats if r.system == system and r.score == score]
    mean = found[0].components.n_repeats if found else None
    return f", each item the mean of its {mean:g} repeats" if mean and mean > 1 else ""


def _blank(kind: str, system: str, score: str, info: SourceInfo, level: float) -> dict[str, Any]:
    fields = dict.fromkeys(ToolComparison.__dataclass_fields__)
    return fields | {"kind": kind, "system": system, "score": score, "tool": info.tool,
                     "level": level, "sentence": ""}  # fmt: skip


def _with_ours(fields: dict[str, Any], ours: _Ours | None) -> dict[str, Any]:
    if ours is None:
        return fields
    h = ours.head
    out = fields | {"estimate": h.estimate, "se": ours.se, "se_method": ours.se_method,
                    "df": ours.df, "method": h.method, "lower": h.lower, "upper": h.upper,
                    "reason": h.reason}  # fmt: skip
    tool_se = fields.get("tool_se")
    if tool_se and h.available:
        out["width_ratio"] = (h.upper - h.lower) / (2 * _z(h.level) * tool_se)  # type: ignore[operator]
    return out


def _mean_comparison(
    info: SourceInfo, tool: ToolValue | None, system: str, score: str,
    ours: _Ours | None, values: list[float] | None, level: float,
) -> ToolComparison:  # fmt: skip
    """The tool's value of one system × score beside ragstat's (``ours`` None: the mean of
    ``values`` only, as for each side of a comparison)."""
    f = _blank("mean", system, score, info, level) | {"estimate": _mean(values)}
    if tool is not None:
        f |= {"tool_value": tool.value, "tool_se": tool.se, "tool_se_method": tool.se_method,
              "tool_se_label": tool.se_label}  # fmt: skip
    f = _with_ours(f, ours)
    if tool is not None and tool.se_method == "cr1" and not info.independent and ours:
        f["tool_se_check"] = ours.cr1
    elif tool is not None and tool.se_method == "iid":
        f["tool_se_check"] = iid_se(values or [])
        if f["se"] and tool.se:
            f["design_effect"] = (f["se"] / tool.se) ** 2
    if f["tool_value"] is not None and f["estimate"] is not None:
        f["value_difference"] = f["tool_value"] - f["estimate"]
    c = ToolComparison(**f)
    lead = _value_words(info.tool, c.tool_value, c.estimate, f"{score} of {system}")
    lead += _repeats(info, system, score)
    if ours is None:
        label = f" ({c.tool_se_label})" if c.tool_se_label else ""
        tail = "no uncertainty" if c.tool_se is None else f"standard error {_num(c.tool_se)}{label}"
        return replace(c, sentence=f"{lead}; {info.tool} reports {tail}.")
    n = len(values) if values else None
    return replace(c, sentence=f"{lead}; {_se_words(c, info, n, _z(level))}.")


def _difference(
    info: SourceInfo, sides: tuple[ToolValue | None, ToolValue | None],
    names: tuple[str, str], score: str, ours: _Ours | None, level: float,
) -> ToolComparison:  # fmt: skip
    """The tool's A − B from its own two means beside ragstat's paired estimate."""
    (ta, tb), (a, b) = sides, names
    f = _blank("difference", f"{a} − {b}", score, info, level)
    va, vb = (None if t is None else t.value for t in (ta, tb))
    if va is not None and vb is not None:
        f["tool_value"] = va - vb
    if ta is not None and tb is not None and ta.se is not None and tb.se is not None:
        f |= {"tool_se": math.hypot(ta.se, tb.se), "tool_se_method": "independent-runs"}
    c = ToolComparison(**_with_ours(f, ours))
    if c.tool_value is not None and c.estimate is not None:
        c = replace(c, value_difference=c.tool_value - c.estimate)
    tool = info.tool
    if c.tool_value is None:
        lead = f"{tool} reports no overall {score} for one of the two"
    else:
        lead = f"{tool}'s own means give {a} − {b} = {_num(c.tool_value)} ({_num(va)} − {_num(vb)})"  # type: ignore[arg-type]
        lead += _paired_words(c.tool_value, c.estimate)
    if c.tool_se is None:
        return replace(c, sentence=f"{lead}; {tool} reports no uncertainty for the difference; "
                       f"paired by item, {_interval_words(c, info.documents, info.independent)}.")  # fmt: skip
    grouped = "" if info.independent else f" and clustered by {info.documents} documents"
    return replace(c, sentence=(
        f"{lead}; {tool}'s standard errors ({_num(ta.se)}, {_num(tb.se)}), as if the runs were "  # type: ignore[union-attr,arg-type]
        f"independent, give {_num(c.tool_se)} for the difference; paired by item{grouped}, "
        f"{_ours_words(c)}{_wider(c, _z(level))}."
    ))  # fmt: skip


def _paired_words(value: float, estimate: float | None) -> str:
    if estimate is None:
        return ""
    if _same(value, estimate):
        return ", as ragstat's paired estimate"
    return (
        f"; ragstat's paired estimate is {_num(estimate)}, {_num(value - estimate)} apart "
        "(items scored by only one system are left out of the pairs)"
    )


def _one_system(info: SourceInfo, frame: Any, score: str) -> str | None:
    names = {v.system for v in info.tool_values if v.score == score}
    if frame is not None and "system" in getattr(frame, "columns", ()):
        names = {str(s) for s in frame["system"].unique()}
    return names.pop() if len(names) == 1 else None


def beside_interval(
    info: SourceInfo, report: Any, *, system: str | None = None, frame: Any = None
) -> SourceInfo:
    """``info`` with the comparison of ``report`` (an `IntervalReport` or its dict) for
    ``system`` (None: the file's only system) with the tool's own numbers; ``frame`` (the
    source's per-item table) lets ragstat recompute an independent-items SE the tool's
    way. Unchanged when the system cannot be told (several, none named)."""
    data = report.to_dict() if hasattr(report, "to_dict") else report
    score = str(data["score"])
    system = system if system is not None else _one_system(info, frame, score)
    if system is None:
        return info
    tool = info.tool_value(system, score)
    c = _mean_comparison(info, tool, system, score, _ours(data), _column(frame, system, score),
                         float(data["level"]))  # fmt: skip
    return replace(info, comparisons=(c,))


def beside_comparison(
    info: SourceInfo, result: Any, *, systems: tuple[str, str] | None = None,
    info_b: SourceInfo | None = None, frame: Any = None, frame_b: Any = None,
) -> SourceInfo:  # fmt: skip
    """``info`` with each system's own aggregate beside ragstat's mean over its items and
    the tool's difference A − B beside ragstat's paired estimate (``result``: a
    `ComparisonReport` or its dict; ``info_b``/``frame_b`` for B read from a second file)."""
    data = result.to_dict() if hasattr(result, "to_dict") else result
    a, b = systems or tuple(data.get("paired", {}).get("systems") or ("A", "B"))
    score, level = str(data["score"]), float(data["level"])
    info_b, frame_b = info_b or info, frame if frame_b is None else frame_b
    ta, tb = info.tool_value(a, score), info_b.tool_value(b, score)
    sides = (
        _mean_comparison(info, ta, a, score, None, _column(frame, a, score), level),
        _mean_comparison(info_b, tb, b, score, None, _column(frame_b, b, score), level),
        _difference(info, (ta, tb), (a, b), score, _ours(data), level),
    )
    return replace(info, comparisons=sides)
