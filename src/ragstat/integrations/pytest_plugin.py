"""ragstat inside pytest: release gates as test outcomes, and a ``ragstat_gate`` fixture.

Registered by the ``pytest11`` entry point ``ragstat`` (``-p no:ragstat`` turns it off). It
does nothing unless ``--ragstat-gates`` is given or a test asks for the fixture, and it
imports the library only then.

``pytest --ragstat-gates GATES.toml`` adds one test per gate of the file (per window when the
file has windows). The gates are decided once, by one :func:`ragstat.gate` call, exactly as
``ragstat gate`` decides them, and each outcome maps to the test's:

* pass → passed;
* a gate that blocks the run (a blocking gate that fails, or is inconclusive while
  ``inconclusive = "blocks"``) → failed, with the gate's sentence and its evidence;
* any other gate that does not pass (an advisory gate, ``blocking = false``, that fails or is
  inconclusive; an inconclusive gate under ``inconclusive = "passes"``) → xfailed.

So pytest fails exactly when ``ragstat gate`` exits 1, as the gate's own JUnit file does (it
marks those gates ``skipped``; pytest's ``--junitxml`` does the same for xfail). A gates file
``ragstat gate`` would refuse (exit 2) stops pytest with a usage error (exit 4) naming it.

The ``ragstat_gate`` fixture decides one gate on a table a test builds::

    def test_answers(ragstat_gate):
        table = score_answers()          # query_id, doc_id, correct
        ragstat_gate(table, metric="correct", at_least=0.7)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ragstat.api.verbs.gate import GateFile
    from ragstat.decisions.gates import GateReport, GateResult

__all__ = ["GateItem", "GatesFile", "ragstat_gate"]

#: The marker every gate test carries (``-m ragstat_gate`` runs only the gates).
MARKER = "ragstat_gate"
_FILES = pytest.StashKey[list[tuple[str, Path, "GateFile"]]]()
_REPORTS = pytest.StashKey[list[tuple[str, "GateReport"]]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ragstat", "release gates decided by ragstat")
    group.addoption(
        "--ragstat-gates",
        action="append",
        default=[],
        metavar="GATES.toml",
        dest="ragstat_gates",
        help="decide the release gates of a ragstat gates file and report each gate as a "
        "test (pass: passed; a gate that blocks: failed; advisory or non-blocking: xfailed); "
        "repeat for several files",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Read every ``--ragstat-gates`` file now: a bad one is a usage error before any test."""
    given: list[str] = config.getoption("ragstat_gates", default=None) or []
    if not given:
        return
    from ragstat.api.verbs.gate import read_gates_file
    from ragstat.errors import RagstatError

    config.addinivalue_line("markers", f"{MARKER}: a release gate decided by ragstat")
    files = []
    for arg in given:
        path = (config.invocation_params.dir / arg).resolve()
        try:
            files.append((arg, path, read_gates_file(path)))
        except RagstatError as exc:
            text = str(exc)
            where = "" if text.startswith(str(path)) else f"{arg}: "
            raise pytest.UsageError(f"--ragstat-gates {where}{text}") from None
    config.stash[_FILES] = files
    config.stash[_REPORTS] = []


@pytest.hookimpl(tryfirst=True)  # before -k and -m deselect
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    for arg, path, spec_file in config.stash.get(_FILES, []):
        node = GatesFile.from_parent(session, path=path, arg=arg, spec_file=spec_file)
        gates: list[pytest.Item | pytest.Collector] = list(node.collect())
        items.extend(g for g in gates if isinstance(g, pytest.Item))
        report = pytest.CollectReport(node.nodeid, "passed", None, gates)
        config.hook.pytest_collectreport(report=report)  # "collected N items" counts them


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The verdict sentence of each gates file decided in this process."""
    for arg, report in config.stash.get(_REPORTS, []):
        terminalreporter.write_sep("-", f"ragstat gates: {arg}")
        terminalreporter.write_line(report.verdict())
        terminalreporter.write_line(f"ragstat gate {arg} would exit with {report.exit_code()}.")


class GatesFile(pytest.File):
    """A gates file as a collector: one :class:`GateItem` per gate (per window)."""

    def __init__(self, *, arg: str, spec_file: GateFile, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.arg = arg
        self.spec_file = spec_file
        self._report: GateReport | None = None
        self._error: str | None = None

    def collect(self) -> Iterator[GateItem]:
        from ragstat.api.verbs.gate import windows

        index = 0
        for label, part in windows(self.spec_file):
            for spec in part.gates:
                name = f"{spec.name} [{label}]" if label else spec.name
                item = GateItem.from_parent(self, name=name, index=index)
                item.add_marker(MARKER)
                index += 1
                yield item

    def report(self) -> GateReport:
        """Every gate of the file decided, once (one :func:`ragstat.gate` call)."""
        if self._report is None and self._error is None:
            from ragstat.api.verbs.gate import gate
            from ragstat.errors import RagstatError

            try:
                self._report = gate(self.spec_file)
            except RagstatError as exc:
                self._error = str(exc)
            else:
                self.config.stash[_REPORTS].append((self.arg, self._report))
        if self._report is None:
            raise GateFailure(f"the gates could not be decided: {self._error}")
        return self._report


class GateFailure(Exception):
    """A gate that blocks the run: its sentence is the whole failure message."""


class GateItem(pytest.Item):
    """One gate of a gates file as a test."""

    def __init__(self, *, index: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.index = index

    def runtest(self) -> None:
        parent = self.parent
        if not isinstance(parent, GatesFile):  # only GatesFile.collect makes these items
            raise TypeError(f"a ragstat gate item outside a gates file: {self.nodeid}")
        report = parent.report()
        g = report.gates[self.index]
        self.user_properties.extend(_properties(g))
        if g.outcome == "pass":
            return
        if g.blocks(report.inconclusive_blocks):
            raise GateFailure(f"{g.summary()}\n{g.evidence}; gate {g.name!r} of {parent.arg}")
        why = "advisory gate, does not block" if not g.spec.blocking else "inconclusive gates pass"
        pytest.xfail(g.summary(f" ({why})"))

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, GateFailure):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"ragstat gate: {self.name}"


def _properties(g: GateResult) -> list[tuple[str, object]]:
    """What ``--junitxml`` records for the gate (as ``ragstat gate --junit`` does)."""
    return [
        ("kind", g.spec.kind),
        ("metric", g.spec.metric),
        ("estimate", g.estimate),
        ("interval", g.interval_text()),
        ("outcome", g.outcome),
        ("blocking", g.spec.blocking),
    ]


# ---------------------------------------------------------------------------- the fixture

#: The condition keywords of :class:`GateCheck` → (gate kind, the gates file key it sets,
#: whether it compares with a baseline).
_CONDITIONS = {
    "at_least": ("at_least", "threshold", False),
    "at_most": ("at_most", "threshold", False),
    "not_worse_than": ("not_worse_than_baseline", "margin", True),
    "better_than": ("better_than_baseline", "min_delta", True),
    "equivalent_within": ("equivalent", "margin", True),
}
_INCONCLUSIVE = ("blocks", "passes", "xfail")


@dataclass(frozen=True)
class GateCheck:
    """``ragstat_gate(data, metric=…, at_least=…)``: one gate decided on a table a test built.

    ``data`` (and ``baseline``) is a DataFrame or a table path (Parquet, CSV, TSV, JSONL)
    with ``query_id``, the cluster column ``cluster`` (default ``doc_id``) and the metric.
    Give exactly one condition: ``at_least`` / ``at_most`` (a threshold on the metric), or
    with a ``baseline`` table, paired by query: ``not_worse_than`` (a margin),
    ``better_than`` (a minimum gain, 0 allowed) or ``equivalent_within`` (a margin).

    Returns the :class:`~ragstat.decisions.gates.GateResult` when the gate passes; fails the
    test with the gate's sentence when it fails. An inconclusive gate fails the test too
    (``inconclusive="blocks"``), passes (``"passes"``) or xfails (``"xfail"``). Bad input
    (a missing column, two conditions) fails the test with one line saying what.
    """

    folder: Callable[[], Path]

    def __call__(
        self, data: Any, *, metric: str, baseline: Any = None, estimand: str = "micro",
        level: float = 0.95, inconclusive: str = "blocks", cluster: str = "doc_id",
        system: str | None = None, baseline_system: str | None = None,
        slice: Mapping[str, Any] | None = None, seed: int = 0, bootstrap_reps: int = 9999,
        name: str | None = None, **condition: float,
    ) -> GateResult:  # fmt: skip
        from ragstat.api.verbs.gate import gate
        from ragstat.errors import RagstatError

        error: str | None = None
        try:
            spec = self._spec(metric, condition, baseline, estimand, slice, name, inconclusive)
            inputs = {"candidate": self._input(data, "candidate", cluster, system)}
            if baseline is not None:
                inputs["baseline"] = self._input(baseline, "baseline", cluster, baseline_system)
            settings = {"level": level, "seed": seed, "bootstrap_reps": bootstrap_reps}
            report = gate({**settings, "inputs": inputs, "gates": [spec]}, base=Path.cwd())
        except RagstatError as exc:
            error = str(exc)
        if error is not None:  # outside the except block: one line, no chained traceback
            pytest.fail(f"ragstat_gate: {error}", pytrace=False)
        g = report.gates[0]
        if g.outcome == "fail" or (g.outcome == "inconclusive" and inconclusive == "blocks"):
            pytest.fail(f"{g.summary()} ({g.evidence})", pytrace=False)
        if g.outcome == "inconclusive" and inconclusive == "xfail":
            pytest.xfail(g.summary())
        return g

    @staticmethod
    def _spec(
        metric: str, condition: Mapping[str, float], baseline: Any, estimand: str,
        slice: Mapping[str, Any] | None, name: str | None, inconclusive: str,
    ) -> dict[str, Any]:  # fmt: skip
        from ragstat.errors import InputError

        words = ", ".join(_CONDITIONS)
        if len(condition) != 1 or next(iter(condition)) not in _CONDITIONS:
            given = ", ".join(condition) or "none"
            raise InputError(f"give exactly one condition of {words} (given: {given})")
        if inconclusive not in _INCONCLUSIVE:
            raise InputError(f"inconclusive must be one of {', '.join(_INCONCLUSIVE)}")
        ((word, value),) = condition.items()
        kind, key, paired = _CONDITIONS[word]
        if (baseline is not None) != paired:
            raise InputError(
                f"{word} needs a baseline table" if baseline is None
                else f"{word} takes no baseline (not_worse_than, better_than and "
                "equivalent_within compare with one)"
            )  # fmt: skip
        spec: dict[str, Any] = {
            "name": name or f"{metric} {word.replace('_', ' ')} {value}",
            "kind": kind,
        }
        spec |= {"metric": metric, "estimand": estimand, key: value}
        return spec | ({"slice": dict(slice)} if slice else {})

    def _input(self, data: Any, role: str, cluster: str, system: str | None) -> dict[str, Any]:
        if isinstance(data, (str, Path)):
            path = Path(data).resolve()
        else:
            from ragstat.api.data import as_frame

            path = self.folder() / f"{role}.parquet"
            as_frame(data, role).to_parquet(path, index=False)
        spec: dict[str, Any] = {"path": str(path), "cluster": cluster}
        return spec | ({"system": system} if system is not None else {})


@pytest.fixture
def ragstat_gate(tmp_path_factory: pytest.TempPathFactory) -> GateCheck:
    """Decide one release gate on a table the test built; see :class:`GateCheck`."""
    return GateCheck(lambda: tmp_path_factory.mktemp("ragstat-gate"))
