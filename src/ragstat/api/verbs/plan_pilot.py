"""Reading a pilot table for ``ragstat.plan`` and ``ragstat.api.verbs.plan.power``.

A pilot's score cells follow :mod:`ragstat.records.cells`: a cell that is not a number
stops the plan with one line unless ``non_numeric="missing"``, and then its row is left
out and the count is said in the S source (``pilot_source``).
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import replace

from ragstat.api.columns import read_schema, resolve_column, resolve_score
from ragstat.api.data import Data, as_path, label_of
from ragstat.api.verbs.compare import parse_systems
from ragstat.errors import InputError
from ragstat.inference.power import pilot_icc
from ragstat.records import DocStats, aggregate_file, pair_files

__all__ = ["cluster_pilot", "pilot_source", "pilot_stats"]


def _left_out(count: int) -> str:
    """The rows left out (``non_numeric="missing"``); paired, their partners went with them."""
    return f"; {count} row(s) whose score is not a number left out" if count else ""


def pilot_source(pilot: Data, stats: DocStats) -> str:
    """``pilot FILE: K = … documents, N = … queries`` (and the rows left out)."""
    return (
        f"pilot {label_of(pilot, 'pilot')}: K = {stats.K} documents, N = {stats.N:g} queries"
        + _left_out(stats.non_numeric)
    )


def pilot_stats(
    pilot: Data, pilot_b: Data | None, systems: str | tuple[str, str] | None,
    system: str | None, cluster: str, score: str | None, strata: str | None,
    non_numeric: str = "error",
) -> tuple[DocStats, bool]:  # fmt: skip
    """Pilot DocStats (differences when two systems are given) and whether it is paired."""
    with as_path(pilot, "pilot") as path:
        where = label_of(pilot, "pilot")
        names = [n for n, _ in read_schema(path)]
        cluster = resolve_column(names, cluster, "--cluster", where)
        score = resolve_score(read_schema(path), score, where)
        if strata is not None:
            strata = resolve_column(names, strata, "--strata", where)
        if pilot_b is not None or systems is not None:
            pair = parse_systems(systems)
            second = as_path(pilot_b, "pilot_b") if pilot_b is not None else nullcontext()
            with second as path_b:  # a row left out leaves its query without a partner
                table = pair_files(
                    path, path_b, systems=pair, cluster=cluster, score=score, stratum=strata,
                    non_numeric=non_numeric,
                    on_missing="drop" if non_numeric == "missing" else "error",
                )  # fmt: skip
            p = table.pairing
            if p.only_a + p.only_b > sum(p.non_numeric):  # unmatched before any was left out
                raise InputError(
                    f"{where}: {p.only_a + p.only_b - sum(p.non_numeric)} query(ies) appear for "
                    "one system only: a paired pilot needs every query scored by both"
                )
            return replace(table.stats, non_numeric=sum(p.non_numeric)), True
        stats = aggregate_file(path, cluster=cluster, score=score, stratum=strata, system=system,
                               non_numeric=non_numeric)  # fmt: skip
        return stats, False


def cluster_pilot(
    pilot: Data, cluster: str, score: str | None, system: str | None, non_numeric: str = "error"
) -> tuple[float, float, float, float, str]:
    """(σ̂, m̄, CV of cluster sizes (ddof 0), ρ̂ ANOVA, description) from a per-row pilot."""
    with as_path(pilot, "pilot") as path:
        where = label_of(pilot, "pilot")
        cluster = resolve_column([n for n, _ in read_schema(path)], cluster, "--cluster", where)
        score = resolve_score(read_schema(path), score, where)
        stats = aggregate_file(path, cluster=cluster, score=score, system=system,
                               non_numeric=non_numeric)  # fmt: skip
    q = stats.q if stats.w is None else stats.w + stats.s**2 / stats.n
    sd, rho = pilot_icc(stats.n, stats.s, q)
    m = float(stats.n.mean())
    text = f"pilot {where}: {stats.K} {cluster} clusters, {stats.N:g} rows, ρ̂ = {rho:.4g}"
    return sd, m, float(stats.n.std() / m), rho, text + _left_out(stats.non_numeric)
