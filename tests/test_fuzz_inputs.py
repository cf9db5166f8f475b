"""Fuzz every verb with malformed inputs (issue 21: no internal errors on input).

Hypothesis builds per-query tables, qrels/runs, JSONL items and spans, and run folders
(report.json, summary.json, manifest.json) from a valid base with a few cells, columns
or bytes made bad: lone surrogates, U+2028 and other "line breaks" that are not "\\n",
NaN/Infinity, integers past int64 and past float, huge strings, deep nesting, wrong
types, BOMs, gzip, truncation, invalid UTF-8. Every run must end in exit 0 or 2; on 2,
exactly one non-empty stderr line ``ragstat: error: …``; never a traceback or an
``internal error``; and an ``--out`` folder of a failed run holds no report or manifest.

The budget is fixed (``derandomize=True``) and CI-sized; the last test prints how many
inputs each verb was given and records them as a junit property.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import shutil
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragstat.cli import main

pytestmark = pytest.mark.slow  # fuzz sweeps

TRIED: Counter[str] = Counter()
#: (verb, exit code) → count: how many inputs were refused (2) and how many ran (0).
CODES: Counter[tuple[str, int]] = Counter()
FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
OUTPUTS = ("report.json", "manifest.json", "result.json")

# -- values ---------------------------------------------------------------------------------

NASTY_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\u2028",
        "a\u2029b",
        "\x85",
        "\x0b",
        "\x0c",
        "\r",
        "\t",
        "\udc80",
        "d\ud800",
        "é",
        "\ufeff",
        "\x00",
        "a,b",
        '"',
        "'",
        "1e23",
        "NaN",
        "-0",
        "q1",
        "d1",
        "x" * 20_000,
    ]
)
NASTY_NUMBER = st.one_of(
    st.integers(-3, 3),
    st.sampled_from([2**31, -(2**31), 2**63, 2**64, 10**23, -(2**63) - 1, 10**400]),
    st.floats(allow_nan=True, allow_infinity=True),
)
SCALAR = st.one_of(st.none(), st.booleans(), NASTY_NUMBER, NASTY_TEXT, st.text(max_size=6))
VALUE = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)


@st.composite
def corrupted(draw, base: list[dict]) -> list[dict]:
    """``base`` rows with a few cells replaced, keys dropped or added, rows dropped."""
    rows = [dict(r) for r in base]
    keys = sorted({k for r in rows for k in r})
    for _ in range(draw(st.integers(0, 3))):
        action = draw(st.sampled_from(["cell", "column", "drop", "add", "rows"]))
        if action == "rows":
            rows = rows[: draw(st.integers(0, len(rows)))]
        if not rows:
            break
        i = draw(st.integers(0, len(rows) - 1))
        key = draw(st.sampled_from(keys))
        if action == "cell":
            rows[i][key] = draw(VALUE)
        elif action == "column":
            value = draw(VALUE)
            for r in rows:
                r[key] = value
        elif action == "drop":
            for r in rows:
                r.pop(key, None)
        elif action == "add":
            rows[i][draw(st.text(max_size=4))] = draw(VALUE)
    return rows


# -- encodings -------------------------------------------------------------------------------


def _text_bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # a lone surrogate → invalid UTF-8 bytes


def to_jsonl(rows: list[dict], ascii_only: bool) -> bytes:
    return _text_bytes("".join(json.dumps(r, ensure_ascii=ascii_only) + "\n" for r in rows))


def to_csv(rows: list[dict], sep: str) -> bytes:
    keys = list(dict.fromkeys(k for r in rows for k in r))
    buf = io.StringIO()
    writer = csv.writer(buf, delimiter=sep, lineterminator="\n")
    writer.writerow(keys)
    writer.writerows([[r.get(k, "") for k in keys] for r in rows])
    return _text_bytes(buf.getvalue())


def to_parquet(rows: list[dict]) -> bytes:
    buf = io.BytesIO()
    try:
        table = pa.Table.from_pylist(rows)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        # mixed types: every value as its JSON text (still wrong for a score column)
        table = pa.Table.from_pylist([{k: json.dumps(v) for k, v in r.items()} for r in rows])
    try:
        pq.write_table(table, buf)
    except (pa.ArrowException, ValueError, TypeError):  # e.g. a struct without fields
        buf = io.BytesIO()
        pq.write_table(pa.table({"x": [1]}), buf)
    return buf.getvalue()


def to_trec(rows: list[dict]) -> bytes:
    return _text_bytes("".join(" ".join(str(v) for v in r.values()) + "\n" for r in rows))


ENCODE = {
    ".jsonl": lambda rows, d: to_jsonl(rows, d(st.booleans())),
    ".csv": lambda rows, d: to_csv(rows, ","),
    ".tsv": lambda rows, d: to_csv(rows, "\t"),
    ".parquet": lambda rows, d: to_parquet(rows),
    ".trec": lambda rows, d: to_trec(rows),
}


def mutate_bytes(data: bytes, draw) -> bytes:
    """Sometimes leave the bytes alone; else truncate, splice garbage, add a BOM, gzip …"""
    action = draw(
        st.sampled_from(["none", "none", "truncate", "garbage", "bom", "utf16", "gzip", "crlf"])
    )
    if action == "truncate":
        return data[: draw(st.integers(0, max(len(data) - 1, 0)))]
    if action == "garbage":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    if action == "bom":
        return b"\xef\xbb\xbf" + data
    if action == "utf16":
        return data.decode("utf-8", "replace").encode("utf-16")
    if action == "gzip":
        return gzip.compress(data)
    if action == "crlf":
        return data.replace(b"\n", b"\r\n")
    return data


# -- running ---------------------------------------------------------------------------------


class Runner:
    """Writes inputs under one folder and runs verbs in-process, checking the contract."""

    def __init__(self, root: Path, capsys) -> None:
        self.root, self.capsys, self.n = root, capsys, 0

    def file(self, name: str, data: bytes) -> Path:
        self.n += 1
        path = self.root / f"{self.n}" / name
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        return path

    def out(self) -> Path:
        self.n += 1
        return self.root / f"out{self.n}"

    def __call__(
        self, verb: str, *args: object, out: Path | None = None, codes: tuple[int, ...] = (0, 2)
    ) -> int:
        TRIED[verb] += 1
        argv = [str(a) for a in args] + (["--out", str(out)] if out is not None else [])
        self.capsys.readouterr()
        rc = main(argv)
        CODES[verb, rc] += 1
        captured = self.capsys.readouterr()
        everything = captured.out + captured.err
        assert "Traceback" not in everything, (argv, captured.err)
        assert "internal error" not in everything, (argv, captured.err)
        assert rc in codes, (argv, rc, captured.err)
        if rc == 2:
            lines = [line for line in captured.err.splitlines() if line.strip()]
            assert len(lines) == 1, (argv, captured.err)
            assert lines[0].startswith("ragstat: error: "), (argv, captured.err)
            if out is not None and out.exists():
                left = sorted(p.name for p in out.iterdir() if p.name in OUTPUTS)
                assert not left, (argv, left)  # a failed run publishes nothing
        return rc


@pytest.fixture
def run(tmp_path, capsys) -> Runner:
    return Runner(tmp_path, capsys)


def _fresh(runner: Runner) -> None:
    """Drop the previous example's files (hypothesis reuses the function's tmp_path)."""
    for child in runner.root.iterdir():
        shutil.rmtree(child, ignore_errors=True) if child.is_dir() else child.unlink()


# -- bases -----------------------------------------------------------------------------------

QUERIES = [
    {"query_id": f"q{i}", "doc_id": f"d{i % 4}", "hit": i % 2, "position": i // 4}
    for i in range(12)
]
QRELS = [
    {"query_id": f"q{i}", "iteration": 0, "doc_id": f"d{i}", "relevance": i % 3} for i in range(4)
]
RUN = [
    {
        "query_id": f"q{i}",
        "Q0": "Q0",
        "doc_id": f"d{j}",
        "rank": j + 1,
        "score": 1.0 / (j + 1),
        "tag": "t",
    }
    for i in range(4)
    for j in range(3)
]
ITEMS = [
    {
        "id": f"i{i}",
        "doc_id": f"d{i % 2}",
        "answer": "Paris",
        "gold": "Sedan" if i % 2 else "Car",
        "predicted": "Car",
        "context": "Paris is in France.",
        "judgment": {
            "extracted_claims": ["x", "y"],
            "supported_claims": ["x"],
            "unsupported_claims": ["y"],
            "outcome": "scored",
            "failure_mode": "none",
            "rationale": "r",
        },
        "reference": "the cat sat",
        "extracted": "the cat sad",
        "text": "caf\u00e9",
    }
    for i in range(4)
]
SPANS = [
    {"trace_id": f"t{i}", "stage": "retrieve" if i % 2 else "generate", "duration_ms": i + 0.5}
    for i in range(8)
]
TAXONOMY = "parent,child\nVehicle,Car\nCar,Sedan\n"


@st.composite
def table_file(draw, base: list[dict], suffixes: tuple[str, ...]) -> tuple[str, bytes]:
    rows = draw(corrupted(base))
    suffix = draw(st.sampled_from(suffixes))
    data = ENCODE[suffix](rows, draw)
    if suffix != ".parquet" or draw(st.booleans()):
        data = mutate_bytes(data, draw)
    return f"input{suffix}", data


# -- per-query tables: interval, compare, simulate, plan -----------------------------------

TABLES = (".parquet", ".csv", ".tsv", ".jsonl")
GOOD_TABLE = to_parquet(QUERIES)


@settings(FUZZ, max_examples=25)
@given(data=st.data(), spec=table_file(QUERIES, TABLES))
def test_fuzz_interval_and_compare(run, data, spec):
    _fresh(run)
    path = run.file(*spec)
    good = run.file("good.parquet", GOOD_TABLE)
    reps = ("--bootstrap-reps", 19, "--seed", data.draw(st.sampled_from([0, 2**64])))
    extra = data.draw(st.sampled_from([(), ("--position", "position"), ("--estimand", "macro")]))
    cells = data.draw(st.sampled_from([(), ("--non-numeric", "missing")]))
    run("interval", "interval", path, *reps, *extra, *cells, out=run.out())
    a, b = data.draw(st.permutations([path, good]))
    run("compare", "compare", a, b, *reps, *cells, "--permutation-reps", 19, out=run.out())


GATE = (
    "seed = 1\nbootstrap_reps = 99\n[inputs.candidate]\npath = {path}\n"
    '[[gates]]\nname = "hit"\nkind = "at_least"\nmetric = "hit"\nthreshold = 0.2\n'
)


@settings(FUZZ, max_examples=20)
@given(data=st.data(), spec=table_file(QUERIES, TABLES))
def test_fuzz_gate_inputs(run, data, spec):
    """A gate over a corrupted table: exit 0 or 1 (decided) or 2 (one line), whatever the
    cells hold; cells that are not numbers never pass silently (item 1 of issue 28)."""
    _fresh(run)
    path = run.file(*spec)
    head = data.draw(
        st.sampled_from(
            ["", 'non_numeric = "missing"\n', 'non_numeric = "missing"\nmax_unscored = 0.5\n']
        )
    )
    gates = run.file("gates.toml", (head + GATE.format(path=json.dumps(str(path)))).encode())
    run("gate", "gate", gates, "--json", codes=(0, 1, 2))


@settings(FUZZ, max_examples=20)
@given(spec=table_file(QUERIES, TABLES))
def test_fuzz_simulate_and_plan(run, spec):
    _fresh(run)
    path = run.file(*spec)
    run(
        "simulate",
        "simulate", path, "--k", 2, "--reps", 5, "--bootstrap-reps", 9, "--methods", "cr1",
        out=run.out(),
    )  # fmt: skip
    run("plan", "plan", "--pilot", path, "--half-width", 0.1)


# -- qrels and runs: evaluate --------------------------------------------------------------

IR_FORMATS = (".trec", ".jsonl", ".csv", ".parquet")


@settings(FUZZ, max_examples=50)
@given(data=st.data(), qrels=table_file(QRELS, IR_FORMATS), run_file=table_file(RUN, IR_FORMATS))
def test_fuzz_evaluate(run, data, qrels, run_file):
    _fresh(run)
    good_qrels = run.file("good.qrels", to_trec(QRELS))
    good_run = run.file("good.run", to_trec(RUN))
    which = data.draw(st.sampled_from(["qrels", "run", "both"]))
    q = run.file(*qrels) if which != "run" else good_qrels
    r = run.file(*run_file) if which != "qrels" else good_run
    metrics = data.draw(st.sampled_from(["ndcg@10,recall@10,mrr", "map,p@5"]))
    run("evaluate", "evaluate", "--qrels", q, "--run", r, "--metrics", metrics,
        "--bootstrap-reps", 19, "--json")  # fmt: skip


# -- JSONL items and spans: generation, ontology, ingestion, latency -----------------------


@st.composite
def jsonl_file(draw, base: list[dict]) -> tuple[str, bytes]:
    rows = draw(corrupted(base))
    if draw(st.integers(0, 9)) == 0:  # a line that is not an object, or nested very deep
        rows.append(draw(st.sampled_from([[1, 2], "x", 1, None])))  # type: ignore[arg-type]
    data = to_jsonl(rows, draw(st.booleans()))
    if draw(st.integers(0, 19)) == 0:
        data += b"[" * 100_000 + b"]" * 100_000 + b"\n"
    return "input.jsonl", mutate_bytes(data, draw)


@settings(FUZZ, max_examples=40)
@given(
    data=st.data(),
    items=jsonl_file(ITEMS),
    spans=jsonl_file(SPANS),
    tax=table_file([{"parent": "Vehicle", "child": "Car"}, {"parent": "Car", "child": "Sedan"}],
                   (".csv", ".jsonl")),
)  # fmt: skip
def test_fuzz_item_verbs(run, data, items, spans, tax):
    _fresh(run)
    path = run.file(*items)
    cluster = data.draw(st.sampled_from([(), ("--cluster-by", "doc_id")]))
    run("generation", "generation", path, *cluster, "--json")
    run("ingestion", "ingestion", path, *cluster, "--json")
    taxonomy = run.file("tax.csv", TAXONOMY.encode())
    if data.draw(st.booleans()):
        taxonomy = run.file(*tax)
    run("ontology", "ontology", path, "--taxonomy", taxonomy, *cluster, "--json")
    trace = run.file(*spans)
    by = data.draw(st.sampled_from([(), ("--cluster-by", "stage")]))
    run("latency", "latency", trace, *by, "--json")


# -- corpora: study ------------------------------------------------------------------------

CORPUS = [
    {"doc_id": f"d{i}", "text": " ".join(f"w{(i * j) % 17} v{j % 5}" for j in range(60)), "law": i}
    for i in range(5)
]


@settings(FUZZ, max_examples=15)
@given(corpus=jsonl_file(CORPUS))
def test_fuzz_study(run, corpus):
    _fresh(run)
    path = run.file(*corpus)
    run("study", "study", path, "--quiet", "--chunk-words", "30", "--retrievers", "bm25",
        "--strata", "law", out=run.out())  # fmt: skip


# -- run folders: report, simulate --from-study --------------------------------------------


@pytest.fixture(scope="module")
def study_folder(tmp_path_factory) -> Path:
    """A real (tiny) study's output folder: the base the folder fuzz corrupts."""
    root = tmp_path_factory.mktemp("study")
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
    ]
    corpus = root / "corpus.jsonl"
    corpus.write_text(
        "".join(
            json.dumps(
                {"doc_id": f"d{i}", "text": " ".join(words[(i * j) % 12] for j in range(120))}
            )
            + "\n"
            for i in range(8)
        )
    )
    out = root / "out"
    argv = ["study", str(corpus), "--out", str(out), "--chunk-words", "40", "--retrievers", "bm25"]
    assert main(argv) == 0
    return out


def _paths(value: object, here: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys/indices) into a JSON value, depth-first."""
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*here, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:4]):
            out += _paths(v, (*here, i))
    return out


def _replace(value: object, path: tuple, new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replace(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replace(v, rest, new) if i == head else v) for i, v in enumerate(value)]  # type: ignore[union-attr]


def _without(value: object, path: tuple) -> object:
    """``value`` with the key at ``path`` removed (a list item or the root: set to None)."""
    if not path:
        return None
    holder = value
    for key in path[:-1]:
        holder = holder[key]  # type: ignore[index]
    if isinstance(holder, dict):
        return _replace(value, path[:-1], {k: v for k, v in holder.items() if k != path[-1]})
    return _replace(value, path, None)


def mutate_json(text: str, draw) -> bytes:
    """A JSON document with one to three subtrees replaced by bad values or removed."""
    value = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(value)))
        action = draw(st.sampled_from(["value", "value", "drop", "deep"]))
        if action == "drop":
            value = _without(value, path)
        else:
            new = json.loads("[" * 500 + "]" * 500) if action == "deep" else draw(VALUE)
            value = _replace(value, path, new)
    data = _text_bytes(json.dumps(value, ensure_ascii=draw(st.booleans()), allow_nan=True))
    if draw(st.integers(0, 9)) == 0:
        data = b"[" * 100_000 + b"]" * 100_000
    return mutate_bytes(data, draw) if draw(st.booleans()) else data


@settings(FUZZ, max_examples=20)
@given(data=st.data())
def test_fuzz_run_folders(run, data, study_folder):
    _fresh(run)
    folder = run.root / "run"
    shutil.copytree(study_folder, folder)
    name = data.draw(st.sampled_from(["summary.json", "report.json", "manifest.json"]))
    target = folder / name
    target.write_bytes(mutate_json(target.read_text("utf-8"), data.draw))
    if name == "summary.json" and data.draw(st.booleans()):
        (folder / "report.json").unlink()  # `report` falls back to summary.json
    run("report", "report", folder, "--quiet")
    run("simulate --from-study", "simulate", "--from-study", folder, "--k", 2, "--reps", 5,
        "--bootstrap-reps", 9, "--methods", "cr1")  # fmt: skip


# -- the count ---------------------------------------------------------------------------------


def test_fuzz_counts(record_property):
    """How many inputs each verb was given (run after the fuzz tests above)."""
    total = sum(TRIED.values())
    for verb, n in sorted(TRIED.items()):
        print(f"fuzz inputs: {verb}: {n} (exit 0: {CODES[verb, 0]}, exit 2: {CODES[verb, 2]})")
        record_property(f"fuzz_inputs_{verb.replace(' ', '_')}", n)
    print(f"fuzz inputs: total: {total}")
    record_property("fuzz_inputs_total", total)
    assert math.isfinite(total)
