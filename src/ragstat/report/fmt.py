"""Number and name formatting shared by the checklist and the renderers (plain text, no markup)."""

from __future__ import annotations

from ragstat.inference.results import Interval

__all__ = [
    "ESTIMAND_LABELS",
    "METHOD_LABELS",
    "NO_CLUSTERING",
    "ci",
    "clustering",
    "method_label",
    "num",
    "pct",
]

METHOD_LABELS = {
    "wald_iid": "Wald iid (naive: queries as independent)",
    "query_bootstrap": "query bootstrap (naive)",
    "cr1": "CR1 cluster-robust, K − 1 df",
    "cr2_bm": "CR2 cluster-robust, Bell–McCaffrey df",
    "cr2_ik": "CR2 cluster-robust, Imbens–Kolesár df",
    "t_rates": "t on document rates, K − 1 df",
    "doc_bootstrap_percentile": "document bootstrap, percentile",
    "doc_bootstrap_t": "document bootstrap-t",
    "wald_effective_n": "Wald with effective n = N/DEFF (diagnostic)",
    "logit": "logit (survey svyciprop)",
    "korn_graubard": "Korn–Graubard (Clopper–Pearson on the effective n)",
    "logit_cr2_bm": "logit (delta method around CR2)",
    "cr3_bm": "CR3 leave-one-document-out, Satterthwaite df",
    "wcr": "wild cluster bootstrap-t, null imposed",
    "doc_bootstrap_bca": "document bootstrap, BCa",
    "beta_binomial": "Bayesian beta-binomial posterior",
    "doc_bootstrap_calibrated": "document bootstrap, percentile calibrated by a double bootstrap",
    "stratified_ratio": "stratified combined ratio, linearised",
    "stratified_mean": "stratified mean of rates",
    "two_stage_t": "two-stage t (types, then documents)",
}

ESTIMAND_LABELS = {
    "micro": "micro: R = Σ s_d / Σ n_d, the rate of a random query (chunk)",
    "macro": "macro: r̄ = mean of the per-document rates s_d / n_d, the rate in a typical document",
    "type_mean": "type mean: the mean over types of their mean document rate (two-stage)",
}


def method_label(method: str | None) -> str:
    if method is None:
        return "none"
    return METHOD_LABELS.get(method, method)


def num(x: float | None, digits: int = 4) -> str:
    if x is None:
        return "n/a"
    return f"{x:.{digits}f}"


#: How an ICC or DEFF estimate at or below 0 is shown (the estimator can go negative when
#: documents differ less than chance would make them; it is not a negative clustering).
NO_CLUSTERING = "no clustering detected (estimate ≤ 0)"


def clustering(x: float | None, digits: int) -> str:
    """An ICC or DEFF estimate, or :data:`NO_CLUSTERING` at or below 0."""
    if x is not None and x <= 0:
        return NO_CLUSTERING
    return num(x, digits)


def signed(x: float | None, digits: int = 4) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.{digits}f}"


def pct(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "n/a"
    return f"{100 * x:.{digits}f} %"


def ci(iv: Interval | None, digits: int = 4) -> str:
    """``[lower, upper]`` or why there is none."""
    if iv is None:
        return "not computed"
    if not iv.available or iv.lower is None or iv.upper is None:
        return f"unavailable ({iv.reason})" if iv.reason else "unavailable"
    return f"[{iv.lower:.{digits}f}, {iv.upper:.{digits}f}]"


def df(x: float | None) -> str:
    if x is None:
        return "—"
    return f"{x:.1f}"


def whole(x: float | int | None) -> str:
    if x is None:
        return "n/a"
    return f"{round(x):,}"
