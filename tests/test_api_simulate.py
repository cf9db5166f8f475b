"""The `simulate` Python twin: same numbers as the command line, tidy views for notebooks."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ragstat import InputError
from ragstat.api.verbs.simulate import default_reps, simulate
from ragstat.cli import main
from ragstat.simulation.results import CoverageReport, StudiesCoverage

FAST = {"k": [5, 10], "reps": 100, "bootstrap_reps": 49, "seed": 3}
FAST_ARGS = ["--k", "5,10", "--reps", "100", "--bootstrap-reps", "49", "--seed", "3"]
METHODS = ["wald_iid", "cr1", "cr2_bm", "t_rates"]
ROW_COLUMNS = [
    "k",
    "estimand",
    "method",
    "reps",
    "coverage",
    "coverage_se",
    "coverage_available",
    "mean_width",
    "median_width",
    "bias",
    "rmse",
    "unavailable",
    "recommended",
    "verdict",
]


def _frame(docs: int = 60, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 20, docs)
    doc = np.repeat([f"d{i}" for i in range(docs)], n)
    hit = (rng.random(n.sum()) < np.repeat(rng.beta(1, 3, docs), n)).astype(int)
    return pd.DataFrame({"query_id": np.arange(n.sum()), "doc_id": doc, "hit": hit})


@pytest.fixture(scope="module")
def census(tmp_path_factory):
    path = tmp_path_factory.mktemp("census") / "census.parquet"
    _frame().to_parquet(path, index=False)
    return path


@pytest.fixture(scope="module")
def report(census) -> CoverageReport:
    return simulate(census, **FAST)


def test_path_frame_and_table_give_the_same_result(census, report):
    frame = pd.read_parquet(census)
    assert simulate(frame, **FAST).to_dict() == report.to_dict()
    table = pa.Table.from_pandas(frame, preserve_index=False)
    assert simulate(table, **FAST).to_dict() == report.to_dict()
    assert report.score == "hit" and report.population is not None
    assert report.population.M == 60


def test_cli_json_is_the_twin_to_dict(census, report, capsys):
    assert main(["simulate", str(census), *FAST_ARGS, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report.to_dict()
    args = [*FAST_ARGS, "--methods", ",".join(METHODS), "--estimand", "micro", "--json"]
    assert main(["simulate", str(census), *args]) == 0
    twin = simulate(census, **FAST, methods=METHODS, estimands=["micro"])
    assert json.loads(capsys.readouterr().out) == twin.to_dict()


def test_to_frame_one_row_per_k_estimand_method(report):
    frame = report.to_frame()
    assert list(frame.columns) == ROW_COLUMNS
    assert len(frame) == len(report.results)
    assert set(frame["k"]) == {5, 10} and set(frame["estimand"]) == {"micro", "macro"}
    assert not frame.duplicated(["k", "estimand", "method"]).any()
    picked = frame[frame["recommended"]]
    assert len(picked) == 4  # one per K × estimand
    assert picked["verdict"].isin(["within", "conservative", "short"]).all()
    assert frame.loc[~frame["recommended"], "verdict"].isna().all()


def test_repr_is_short_and_plain(report):
    text = repr(report)
    assert len(text) < 2_000
    assert "np.float64" not in text and "array(" not in text
    assert text.startswith("Coverage simulation (srs design, 100 samples per K")
    assert "seed 000" not in text and "seed 001" not in text
    assert len(text.splitlines()) == 2 + 4  # title, header, one row per K × estimand


def _parse(markup: str) -> list[str]:
    """The tags of ``markup``, checked to nest properly."""

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.open: list[str] = []
            self.seen: list[str] = []

        def handle_starttag(self, tag, attrs):
            self.open.append(tag)
            self.seen.append(tag)

        def handle_endtag(self, tag):
            assert self.open.pop() == tag

    parser = Tags()
    parser.feed(markup)
    parser.close()
    assert parser.open == []
    return parser.seen


def test_repr_html_parses(report):
    tags = _parse(report._repr_html_())
    assert tags[:2] == ["table", "caption"]
    assert tags.count("tr") == 1 + 4


def test_default_score_is_the_only_score_column(tmp_path):
    frame = _frame().rename(columns={"hit": "correct"})
    kw = {"k": 5, "reps": 50, "methods": ["cr1"], "estimands": "micro"}
    assert simulate(frame, **kw).score == "correct"
    frame["rank"] = 1.0
    with pytest.raises(InputError, match="several score columns"):
        simulate(frame, **kw)
    assert simulate(frame, score="correct", **kw).score == "correct"
    with pytest.raises(InputError, match="did you mean"):
        simulate(frame, score="corect", **kw)


def test_per_document_table_and_bad_inputs(tmp_path):
    docs = pd.DataFrame({"doc_id": [f"d{i}" for i in range(30)], "n": 10.0, "s": 3.0})
    docs["s"] = np.arange(30) % 10
    rep = simulate(docs, k=5, reps=50, methods=["cr1", "t_rates"])
    assert rep.census.K == 30 and rep.score is None
    with pytest.raises(InputError, match="expected a path, a pandas DataFrame"):
        simulate([1, 2, 3], k=5, reps=50)
    with pytest.raises(InputError, match="one of census"):
        simulate(k=5, reps=50)
    with pytest.raises(InputError, match="k is empty"):
        simulate(docs, k=[], reps=50)
    assert default_reps([20]) == 5_000 and default_reps([5, 20]) == 2_000


def test_study_folders_match_the_cli(tmp_path, capsys):
    from ragstat.api.verbs.study import summarize
    from ragstat.corpus.document import Corpus, Document
    from ragstat.selfretrieval import StudyConfig, run_study, write_study

    rng = np.random.default_rng(0)
    vocab = np.array([f"w{i}" for i in range(300)])
    docs = tuple(Document(f"d{i}", " ".join(rng.choice(vocab, 200 + 30 * i))) for i in range(8))
    folders = []
    for cw in (50, 100):
        done = run_study(Corpus(docs), StudyConfig(retrievers=("bm25",), chunk_words=cw))
        write_study(done, tmp_path / f"cw{cw}", summarize(done, reps=99).to_dict())
        folders.append(tmp_path / f"cw{cw}")
    kw = {"k": 4, "reps": 60, "bootstrap_reps": 49, "methods": METHODS}
    twin = simulate(from_study=folders, **kw)
    assert isinstance(twin, StudiesCoverage) and twin.score == "hit1"
    args = ["--k", "4", "--reps", "60", "--bootstrap-reps", "49", "--methods", ",".join(METHODS)]
    study_args = [a for f in folders for a in ("--from-study", str(f))]
    assert main(["simulate", *study_args, *args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == twin.to_dict()
    frame = twin.to_frame()
    assert list(frame.columns) == ["folder", "retriever", "chunk_words", *ROW_COLUMNS]
    assert list(frame["chunk_words"].unique()) == [50, 100]
    assert len(repr(twin)) < 2_000 and "np.float64" not in repr(twin)
    _parse(twin._repr_html_())
