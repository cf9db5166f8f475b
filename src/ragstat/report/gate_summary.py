"""A decided family of gates for CI: a Markdown job summary and JUnit XML.

Presentation only: every number comes from the :class:`GateReport`; nothing is computed
here. Intervals are shown at each gate's adjusted level (the level its family correction
gave it), which is the level that decided it.

JUnit mapping (one ``<testcase>`` per gate, read by CI test reporters): a gate that blocks
the run has a ``<failure>`` (type ``fail``, or ``inconclusive`` when inconclusive results
block); an inconclusive gate that does not block, and an advisory gate that does not pass,
is ``<skipped>`` with the reason; a passing gate has neither. So the XML has a failure
exactly when ``ragstat gate`` exits 1. Each case carries ``<properties>`` (kind, metric,
estimate, interval, level, threshold, outcome, blocking), as pytest's ``record_property``
writes them.

Both are safe for user text (gate names, metrics, slices, the gates file's path): the
Markdown shows control, separator and bidi characters as visible escapes
(:func:`ragstat.tidy.visible`, as the terminal does), and the JUnit XML writes every
character XML 1.0 forbids (C0 controls but tab, LF and CR; lone surrogates; U+FFFE, U+FFFF)
as ``\\xNN`` / ``\\uNNNN``, so a CI reporter can always parse it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ragstat.decisions.gates import level_text
from ragstat.tidy import visible

if TYPE_CHECKING:
    from ragstat.decisions.gates import GateReport, GateResult

__all__ = ["gates_junit", "gates_markdown", "xml_text"]

_COLUMNS = (
    "gate",
    "kind",
    "metric",
    "estimate",
    "interval (adjusted level)",
    "threshold",
    "outcome",
    "blocking",
)


def _md(text: str) -> str:
    """``text`` for a Markdown table cell or line: newlines as spaces, other control and bidi
    characters as visible escapes, backslashes and pipes escaped."""
    shown = visible(text.replace("\r\n", " ").replace("\n", " "))
    return shown.replace("\\", "\\\\").replace("|", "\\|")


def _estimate(g: GateResult) -> str:
    return "n/a" if g.estimate is None else f"{g.estimate:.4g}"


def _metric(g: GateResult) -> str:
    text = g.spec.metric if g.spec.estimand == "micro" else f"{g.spec.metric} ({g.spec.estimand})"
    if g.spec.slice:
        text += f" [{g.spec.slice_text()}]"
    tags = [t for t in (g.system, g.window) if t]
    return f"{text} ({', '.join(tags)})" if tags else text


def _outcome(g: GateResult, report: GateReport) -> str:
    if g.outcome == "pass":
        return "pass"
    word = "**fail**" if g.outcome == "fail" else "inconclusive"
    return word if g.blocks(report.inconclusive_blocks) else f"{word} (does not block)"


def _cells(g: GateResult, report: GateReport) -> list[str]:
    return [
        g.name,
        g.spec.kind,
        _metric(g),
        _estimate(g),
        g.interval_text(),
        g.spec.bound_text(),
        _outcome(g, report),
        "yes" if g.spec.blocking else "no",
    ]


def gates_markdown(report: GateReport) -> str:
    """A CI job summary: a heading, the verdict sentence, one table row per gate, the
    reasons for gates without evidence and the correction used."""
    status = "passed" if report.passed else "failed"
    lines = [
        f"### ragstat gate: {status} (exit code {report.exit_code()})",
        "",
        _md(report.verdict()),
    ]
    lines += ["", "| " + " | ".join(_COLUMNS) + " |", "|" + "---|" * len(_COLUMNS)]
    lines += ["| " + " | ".join(_md(c) for c in _cells(g, report)) + " |" for g in report.gates]
    missing = [g for g in report.gates if g.lower is None or g.upper is None]
    if missing:
        lines += ["", "Gates without evidence (a failure, never a pass):", ""]
        lines += [f"- {_md(g.name)}: {_md(g.why())}" for g in missing]
    lines += [
        "",
        f"Family level {level_text(report.level)}, {report.correction} correction over "
        f"{len(report.gates)} gate{'s' if len(report.gates) != 1 else ''}; inconclusive "
        f"gates {'block' if report.inconclusive_blocks else 'do not block'}. "
        f"Gates file: `{visible(report.source)}`.",
    ]
    lines += [f"> {_md(w)}" for w in report.warnings]
    return "\n".join(lines) + "\n"


def _properties(parent: ET.Element, items: dict[str, str]) -> None:
    props = ET.SubElement(parent, "properties")
    for name, value in items.items():
        ET.SubElement(props, "property", name=name, value=value)


def _case(suite: ET.Element, g: GateResult, report: GateReport) -> None:
    name = g.name if g.window is None else f"{g.name} [{g.window}]"
    if g.system:
        name += f" ({g.system})"
    case = ET.SubElement(suite, "testcase", name=name, classname="ragstat.gate", time="0")
    lower, upper = g.lower, g.upper
    _properties(
        case,
        {
            "kind": g.spec.kind,
            "metric": _metric(g),
            "estimate": _estimate(g),
            "interval": "none" if lower is None or upper is None else f"[{lower!r}, {upper!r}]",
            "level": repr(g.decision.level),
            "threshold": g.spec.bound_text(),
            "outcome": g.outcome,
            "blocking": "true" if g.spec.blocking else "false",
        },
    )
    message = g.summary()
    detail = (
        f"{message}\ninterval {g.interval_text()}; threshold {g.spec.bound_text()}; {g.evidence}"
    )
    if g.blocks(report.inconclusive_blocks):
        failure = ET.SubElement(case, "failure", message=message, type=g.outcome)
        failure.text = detail
    elif g.outcome != "pass":
        why = "advisory gate" if not g.spec.blocking else "inconclusive does not block"
        ET.SubElement(case, "skipped", message=f"{message} ({why})")
    ET.SubElement(case, "system-out").text = detail


def gates_junit(report: GateReport) -> str:
    """JUnit XML (``<testsuites>`` with one ``<testsuite>``), one ``<testcase>`` per gate."""
    n = len(report.gates)
    failures = sum(g.blocks(report.inconclusive_blocks) for g in report.gates)
    skipped = sum(
        g.outcome != "pass" and not g.blocks(report.inconclusive_blocks) for g in report.gates
    )
    counts = {"tests": str(n), "failures": str(failures), "errors": "0", "skipped": str(skipped)}
    root = ET.Element("testsuites", {"name": "ragstat gate", "time": "0", **counts})
    suite_name = f"ragstat gate: {report.source}"
    suite = ET.SubElement(root, "testsuite", {"name": suite_name, "time": "0", **counts})
    _properties(
        suite,
        {
            "source": report.source,
            "level": repr(report.level),
            "correction": report.correction,
            "inconclusive_blocks": "true" if report.inconclusive_blocks else "false",
            "exit_code": str(report.exit_code()),
        },
    )
    for g in report.gates:
        _case(suite, g, report)
    ET.SubElement(suite, "system-out").text = report.verdict()
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return xml_text('<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n")


#: Characters XML 1.0 does not allow anywhere in a document (C0 controls but tab, LF, CR;
#: lone surrogates; U+FFFE, U+FFFF).
_NOT_XML = re.compile(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def xml_text(text: str) -> str:
    """``text`` (an XML document) with every character XML 1.0 forbids written as ``\\xNN``
    or ``\\uNNNN`` (a gate named with a control character must not make the JUnit file
    unreadable)."""
    return _NOT_XML.sub(_xml_escape, text)
