"""``ragstat.gate``: release gates decided on interval bounds, the document as the unit.

A gates file (TOML) names its inputs, the level, the family correction and the gates::

    level = 0.95
    correction = "holm"          # holm | bonferroni | bh | none
    inconclusive = "blocks"      # blocks | passes: does an inconclusive gate block?
    seed = 0
    bootstrap_reps = 9999         # as ragstat interval: the same seed gives the same bounds

    [inputs.candidate]
    path = "study/records.parquet"
    system = "bm25"                       # [inputs.baseline]: the same with tfidf

    [[gates]]
    name = "hit@1 at least 0.6"
    kind = "at_least"            # at_least | at_most | not_worse_than_baseline |
    metric = "hit1"              #   better_than_baseline | equivalent
    threshold = 0.6
    slice = { law = "Lei 8.078/1990" }    # optional metadata filter

A gate reads the input ``input`` (default ``candidate``, or the only input); the
baseline kinds compare it with ``baseline`` (default ``baseline``) on the queries both
hold. Every gate's interval is the headline of ``ragstat interval`` / ``ragstat compare``
(:func:`ragstat.inference.headline.headline`: the recommended method, none with fewer than
four documents or outside the range) at the level the family correction gives it; missing
evidence (no rows in a slice, too few documents, a metric with no scored query) is a
failure with its reason, never a pass. ``p_value`` is the unadjusted p-value of the gate's
own one-sided test from the same interval (:mod:`ragstat.decisions.pvalue`).

Guard rails on a production sample: ``window = { column = "time", every = "D" }`` decides
every gate once per period of that column (D, W, M, h …), each window on its own rows only
and as its own family for the correction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from ragstat.api import gate_settings
from ragstat.api.columns import resolve_column
from ragstat.api.gate_inputs import GateInput, load_input
from ragstat.api.score_bounds import difference_bounds
from ragstat.decisions.gates import (
    Decision,
    GateReport,
    GateResult,
    GateSpec,
    decide_family,
    outcome,
)
from ragstat.decisions.pvalue import gate_p_value
from ragstat.errors import InputError
from ragstat.inference.headline import headline
from ragstat.inference.paired import compare
from ragstat.inference.results import EstimandResult, IntervalReport
from ragstat.records import aggregate_arrays
from ragstat.records.cells import CellCounts, numeric_cells

__all__ = ["GateFile", "gate", "input_files", "read_gates_file", "windows"]


@dataclass(frozen=True)
class GateFile:
    """A parsed gates file: its settings, inputs (read) and gates."""

    path: Path | None
    level: float
    correction: str
    inconclusive_blocks: bool
    seed: int
    bootstrap_reps: int
    inputs: dict[str, GateInput]
    gates: tuple[GateSpec, ...]
    title: str = "release gates"
    #: Monitoring windows: (time column, period such as "D", "W", "M", "h"), or None.
    window: tuple[str, str] | None = None
    #: A score cell that is not a number: "error" (exit 2) or "missing" (an input may override).
    non_numeric: str = "error"
    #: The share of a gate's rows without a score it accepts when the gate sets none.
    max_unscored: float = 0.0


def read_gates_file(source: str | Path | Mapping[str, Any], base: Path | None = None) -> GateFile:
    """Parse a gates file (a TOML path, or the same content as a mapping) and read its inputs;
    relative paths are taken from the file's folder (or ``base``, default the working one)."""
    if isinstance(source, Mapping):
        path, data = None, dict(source)
    else:
        path = Path(source)
        data = gate_settings.load(path)
    st = gate_settings.settings(data)
    folder = base if base is not None else (path.parent if path is not None else Path.cwd())
    raw_inputs = data.get("inputs")
    if not isinstance(raw_inputs, Mapping) or not raw_inputs:
        raise InputError("gates file: no [inputs.NAME] table: name at least one input")
    inputs = {name: load_input(name, spec, folder) for name, spec in raw_inputs.items()}
    specs = gate_settings.gate_specs(data, inputs)
    title = str(data.get("title", "release gates"))
    window = _window(data.get("window"), inputs)
    spec_file = GateFile(
        path, st.level, st.correction, st.inconclusive_blocks, st.seed, st.bootstrap_reps, inputs,
        specs, title, window, st.non_numeric, st.max_unscored,
    )  # fmt: skip
    for spec in specs:  # a gate naming a column or an input that is not there: exit 2
        where = f"gate {spec.name!r}"
        if (spec.input or "candidate") not in inputs:
            raise InputError(f"{where}: input {spec.input!r} is not in [inputs]")
        _rows(spec, inputs[spec.input or "candidate"], where, spec_file.non_numeric)
        if spec.paired():
            _rows(spec, inputs[_baseline(spec, spec_file)], where, spec_file.non_numeric)
    return spec_file


def _window(raw: Any, inputs: Mapping[str, GateInput]) -> tuple[str, str] | None:
    """``window = { column = "time", every = "D" }``: gates decided per period of a time column
    present in every input (each window's decision uses only its own rows)."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or set(raw) != {"column", "every"}:
        raise InputError(
            'gates file: window must be { column = "…", every = "D" | "W" | "M" | "h" }'
        )
    column, every = str(raw["column"]), str(raw["every"])
    try:
        pd.Period("2026-01-01", freq=every)
    except ValueError:
        raise InputError(
            f"gates file: window every = {every!r} is not a period (D, W, M, h)"
        ) from None
    for name, source in inputs.items():
        resolve_column(list(source.frame.columns), column, "window column", f"[inputs.{name}]")
    return column, every


def _periods(source: GateInput, column: str, every: str) -> pd.Series:
    col = resolve_column(list(source.frame.columns), column, "window column", source.name)
    try:
        stamps = pd.to_datetime(source.frame[col])
    except (ValueError, TypeError) as exc:
        raise InputError(f"[inputs.{source.name}]: {col!r} is not a time column ({exc})") from None
    if stamps.isna().any():
        raise InputError(
            f"[inputs.{source.name}]: {int(stamps.isna().sum())} row(s) without a time"
        )
    return stamps.dt.to_period(every).astype(str)


def windows(spec_file: GateFile) -> list[tuple[str, GateFile]]:
    """(label, the gates file restricted to that window's rows) per window, in time order."""
    if spec_file.window is None:
        return [("", spec_file)]
    column, every = spec_file.window
    periods = {n: _periods(i, column, every) for n, i in spec_file.inputs.items()}
    labels = sorted(set().union(*(set(p) for p in periods.values())))
    out = []
    for label in labels:
        inputs = {
            n: replace(i, frame=i.frame[(periods[n] == label).to_numpy()].reset_index(drop=True))
            for n, i in spec_file.inputs.items()
        }
        out.append((label, replace(spec_file, inputs=inputs)))
    return out


# ---------------------------------------------------------------------------- deciding


def _rows(
    spec: GateSpec, source: GateInput, where: str, non_numeric: str
) -> tuple[pd.DataFrame, str, CellCounts]:
    """The input's rows in the gate's slice with a score: (frame, metric column, the rows
    without one). A cell that is not a number is an error unless the input (or the file,
    ``non_numeric``) treats it as missing."""
    frame = source.frame
    names = list(frame.columns)
    metric = resolve_column(names, spec.metric, "metric", where)
    for column, wanted in (spec.slice or {}).items():
        col = resolve_column(names, str(column), "slice column", where)
        values = wanted if isinstance(wanted, list) else [wanted]
        frame = frame[frame[col].astype(str).isin([str(v) for v in values])]
    label = f"{where}, [inputs.{source.name}] {source.source}"
    hint = 'treat them as missing with non_numeric = "missing" in the gates file'
    mode = source.non_numeric or non_numeric
    scores, cells = numeric_cells(frame[metric], metric, label, mode, hint)
    kept = ~pd.isna(scores)
    scored = frame[kept].assign(**{metric: scores[kept]})
    return scored, metric, cells


@dataclass
class _Evidence:
    """What one gate's decision rests on (kept for its result)."""

    report: IntervalReport | None = None
    method: str | None = None
    unscored: CellCounts = field(default_factory=CellCounts)
    unpaired: int = 0  # queries of the candidate or the baseline without a partner


class _Decider:
    """``decide_at(i, level)`` for :func:`decide_family`: each gate's interval at a level."""

    def __init__(self, spec_file: GateFile) -> None:
        self.file = spec_file
        self.evidence: dict[tuple[int, float], _Evidence] = {}

    def __call__(self, i: int, level: float) -> Decision:
        spec = self.file.gates[i]
        evidence = _Evidence()
        self.evidence[(i, level)] = evidence
        try:  # columns and inputs were checked when the file was read
            iv_block = self._estimand(spec, level, evidence)
        except InputError as exc:  # too little evidence for an interval: a failure
            return Decision("fail", level, None, reason=str(exc))
        too_many = _unscored_share(spec, evidence, self._max_unscored(spec))
        if too_many is not None:
            return Decision("fail", level, None, reason=too_many)
        h = headline(evidence.report, spec.estimand)  # type: ignore[arg-type]
        if not h.available:  # too few documents, unavailable, outside the range
            return Decision("fail", level, None, reason=f"no interval: {h.reason}")
        chosen = iv_block.get(h.method)  # type: ignore[arg-type]
        evidence.method = chosen.method
        return Decision(outcome(spec, chosen.lower, chosen.upper), level, chosen)

    def _max_unscored(self, spec: GateSpec) -> float | None:
        """The file's max_unscored for table inputs; none for ``evaluate`` and ``generation``
        inputs, whose empty cells are queries a metric does not apply to (no relevant
        document, no claim), counted in the evidence but not a failure to score."""
        f = self.file
        names = [spec.input or "candidate", *([_baseline(spec, f)] if spec.paired() else [])]
        return f.max_unscored if any(f.inputs[n].kind == "table" for n in names) else None

    def _estimand(self, spec: GateSpec, level: float, ev: _Evidence) -> EstimandResult:
        from ragstat.api.verbs.interval import interval

        f = self.file
        where = f"gate {spec.name!r}"
        mode = f.non_numeric
        frame, metric, ev.unscored = _rows(spec, f.inputs[spec.input or "candidate"], where, mode)
        level_, est, seed, reps = level, [spec.estimand], f.seed, f.bootstrap_reps
        if not spec.paired():
            _nonempty(frame, where)
            ev.report = interval(
                frame[["query_id", "doc_id", metric]], score=metric, level=level_,
                estimands=est, seed=seed, bootstrap_reps=reps,
            )  # fmt: skip
            return ev.report.estimands[spec.estimand]
        base, _, unscored_b = _rows(spec, f.inputs[_baseline(spec, f)], where, mode)
        ev.unscored = ev.unscored + unscored_b
        _nonempty(frame, where)
        _nonempty(base, where)
        diff = _differences(frame, base, metric, where)
        ev.unpaired = len(frame) + len(base) - 2 * len(diff)
        # The paired interval on y_candidate − y_baseline by `compare` (its methods, recommendation,
        # range from both inputs' values: [−1, 1] for [0, 1] scores; a gate uses no sign flip).
        stats = aggregate_arrays(
            diff["doc_id"].to_numpy(object), diff["difference"].to_numpy(float)
        )
        sides = [f.inputs[n].frame[metric] for n in (spec.input or "candidate", _baseline(spec, f))]
        ev.report = compare(stats, level=level_, estimands=est, seed=seed, bootstrap_reps=reps,
                            permutation_reps=1, bounds=difference_bounds(*sides)).report  # fmt: skip
        return ev.report.estimands[spec.estimand]


def _unscored_share(spec: GateSpec, ev: _Evidence, default: float | None) -> str | None:
    """Why the gate fails for rows without a score above its ``max_unscored`` share (the
    file's when the gate sets none, default 0; None: not checked), or None."""
    allowed = default if spec.max_unscored is None else spec.max_unscored
    if allowed is None or ev.report is None or not ev.unscored.unscored:
        return None
    share = ev.unscored.unscored / (ev.unscored.unscored + ev.report.N)
    if share <= allowed:
        return None
    return (
        f"{ev.unscored.unscored} row(s) without a score ({ev.unscored.text()}; {share:.1%}) "
        f"exceed max_unscored {allowed:.1%}: missing evidence (a higher max_unscored in the "
        "gates file accepts them)"
    )


def _differences(frame: pd.DataFrame, base: pd.DataFrame, metric: str, where: str) -> pd.DataFrame:
    """Per query: candidate − baseline on the queries both inputs hold (a query must come
    from the same document in both)."""
    a = frame[["query_id", "doc_id", metric]].astype({"query_id": str})
    b = base[["query_id", "doc_id", metric]].astype({"query_id": str})
    both = a.merge(b, on="query_id", suffixes=("", "_b"))
    if both.empty:
        raise InputError(f"{where}: the candidate and the baseline share no query: no evidence")
    moved = both["doc_id"].astype(str) != both["doc_id_b"].astype(str)
    if moved.any():
        raise InputError(
            f"{where}: query {both.loc[moved, 'query_id'].iloc[0]!r} comes from different "
            "documents in the candidate and the baseline"
        )
    diff = both[metric].astype(float) - both[f"{metric}_b"].astype(float)
    return pd.DataFrame(
        {"query_id": both["query_id"], "doc_id": both["doc_id"], "difference": diff}
    )


def _nonempty(frame: pd.DataFrame, where: str) -> None:
    if frame.empty:
        raise InputError(f"{where}: no scored rows (empty slice or no score): no evidence")


def _baseline(spec: GateSpec, f: GateFile) -> str:
    name = spec.baseline or "baseline"
    if name not in f.inputs:
        raise InputError(f"gate {spec.name!r}: baseline input {name!r} is not in [inputs]")
    return name


def _result(spec: GateSpec, decision: Decision, ev: _Evidence, window: str) -> GateResult:
    rep = ev.report
    K, N = (None, None) if rep is None else (rep.K, rep.N)
    text = "no evidence" if rep is None else f"K = {K} documents, N = {N:g} queries"
    if ev.unscored.unscored:
        text += f"; {ev.unscored.unscored} row(s) without a score left out ({ev.unscored.text()})"
    if ev.unpaired:
        text += f"; {ev.unpaired} query row(s) in one input only left out of the pairs"
    estimate = None if decision.interval is None else decision.interval.estimate
    return GateResult(
        spec=spec, decision=decision, estimate=estimate, K=K, N=N, method=ev.method or "none",
        evidence=text, p_value=gate_p_value(spec, decision.interval), window=window or None,
        missing=ev.unscored.missing, non_numeric=ev.unscored.non_numeric,
    )  # fmt: skip


def gate(
    gates_file: str | Path | Mapping[str, Any] | GateFile,
    *,
    base: Path | None = None,
) -> GateReport:
    """Decide every gate of ``gates_file`` (a TOML path, its content as a mapping, or a
    :class:`GateFile` already read by :func:`read_gates_file`).

    Each gate ends pass, fail or inconclusive on its interval's bound at the level the
    family correction gives it; ``result.exit_code()`` is what ``ragstat gate`` exits with.
    """
    spec_file = (
        gates_file if isinstance(gates_file, GateFile) else read_gates_file(gates_file, base)
    )
    results: list[GateResult] = []
    for label, part in windows(spec_file):  # one family per window
        decider = _Decider(part)
        decisions = decide_family(part.gates, decider, part.level, part.correction)
        results += [
            _result(spec, d, decider.evidence.get((i, d.level), _Evidence()), label)
            for i, (spec, d) in enumerate(zip(part.gates, decisions, strict=True))
        ]
    source = str(spec_file.path) if spec_file.path is not None else "<gates>"
    return GateReport(
        gates=tuple(results),
        level=spec_file.level,
        correction=spec_file.correction,
        inconclusive_blocks=spec_file.inconclusive_blocks,
        source=source,
        warnings=tuple(f"input {n}: {i.note}" for n, i in spec_file.inputs.items() if i.note),
    )


def input_files(spec_file: GateFile) -> dict[str, Path]:
    """Every file the gates read, keyed ``input.role`` (for the run's manifest)."""
    return {f"{n}.{role}": p for n, i in spec_file.inputs.items() for role, p in i.files.items()}
