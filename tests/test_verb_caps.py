"""Issue 28, item 3 (the verbs' caps): inputs that made a verb explode stop at once with one
line that names the number and the environment variable that changes it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragstat.cli import main

PEAK_LIMIT_MB = 500


def _labels_file(folder: Path, labels: int = 300, lines: int = 2000) -> Path:
    path = folder / "labels.csv"
    rows = [f"d{i % 400},L{(7 * i) % labels},L{(13 * i + 5) % labels}" for i in range(lines)]
    path.write_text("doc_id,judge,human\n" + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def _fails_fast(argv: list[str], capsys, *words: str) -> str:
    start = time.perf_counter()
    code = main(argv)
    took = time.perf_counter() - start
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("ragstat: error: "), err
    assert took < 5, f"{took:.1f} s"
    for w in words:
        assert w in err, err
    return err


def test_agreement_with_300_labels_stops_at_the_label_cap(tmp_path, capsys):
    path = _labels_file(tmp_path)
    argv = ["agreement", str(path), "--judge", "judge", "--human", "human"]
    _fails_fast(argv, capsys, "300", "over the limit of 100", "RAGSTAT_MAX_LABELS=300")


def test_agreement_over_the_memory_budget_stops_before_allocating(tmp_path, capsys, monkeypatch):
    path = _labels_file(tmp_path)
    monkeypatch.setenv("RAGSTAT_MAX_LABELS", "1000")
    monkeypatch.setenv("RAGSTAT_MEMORY_BUDGET", "200M")
    argv = ["agreement", str(path), "--judge", "judge", "--human", "human"]
    _fails_fast(argv, capsys, "300 labels", "RAGSTAT_MEMORY_BUDGET", "--bootstrap-reps")


def test_agreement_with_300_labels_peaks_under_500_mb(tmp_path):
    """Measured in a fresh process: its peak resident memory (VmHWM, the high-water mark of
    its own memory; ru_maxrss would carry the parent's peak across exec) stays small."""
    path = _labels_file(tmp_path)
    script = (
        "import json, resource, sys\n"
        "from ragstat.cli import main\n"
        f"code = main(['agreement', {str(path)!r}, '--judge', 'judge', '--human', 'human'])\n"
        "peak = next(int(l.split()[1]) for l in open('/proc/self/status')"
        " if l.startswith('VmHWM:')) / 1024\n"
        "print(json.dumps({'code': code, 'peak_mb': peak}))\n"
    )
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=120, check=False)  # fmt: skip
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["code"] == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert out["peak_mb"] < PEAK_LIMIT_MB, out


def test_coverage_cross_product_is_capped(tmp_path, capsys):
    path = tmp_path / "cov.csv"
    rows = [f"d{i % 30},a{i},b{i},c{i},{i % 2}" for i in range(100)]
    path.write_text("doc_id,a,b,c,hit\n" + "\n".join(rows) + "\n", encoding="utf-8")
    argv = ["coverage", str(path), "--dims", "a,b,c"]
    _fails_fast(argv, capsys, "100 × 100 × 100", "1,000,000", "RAGSTAT_MAX_CELLS=1000000")
    assert main(["coverage", str(path), "--dims", "a,b", "--json"]) == 0  # 10,000 cells: fine
    assert len(json.loads(capsys.readouterr().out)["cells"]) == 10_000


def test_plan_population_is_a_bounded_whole_number(tmp_path, capsys):
    pop = tmp_path / "pop.csv"
    pop.write_text("stratum,M\na,1e308\nb,100\n", encoding="utf-8")
    pilot = tmp_path / "pilot.csv"
    pilot.write_text(
        "doc_id,score,stratum\n"
        + "\n".join(f"d{i},0.{i},{'a' if i % 2 else 'b'}" for i in range(1, 21))
        + "\n",
        encoding="utf-8",
    )
    base = ["plan", "--half-width", "0.01"]
    argv = [*base, "--pilot", str(pilot), "--score", "score", "--strata", "stratum",
            "--population-file", str(pop)]  # fmt: skip
    _fails_fast(argv, capsys, "stratum 'a'", "1,000,000,000,000", "309 digits")
    _fails_fast([*base, "--sd", "0.3", "--population", "1" + "0" * 308], capsys, "population")


@pytest.mark.parametrize(
    "argv, option",
    [
        (["simulate", "CENSUS", "--k", ",".join(["5"] * 150)], "--k"),
        (["simulate", "CENSUS", "--methods", ",".join(["cr1"] * 150)], "--methods"),
        (["agreement", "CENSUS", "--judge", "hit", "--human", "hit",
          "--labels", ",".join(map(str, range(150)))], "--labels"),
        (["coverage", "CENSUS", "--dims", ",".join(["doc_id"] * 150)], "--dims"),
    ],
)  # fmt: skip
def test_list_options_are_capped(argv, option, tmp_path, capsys):
    census = tmp_path / "census.csv"
    census.write_text(
        "doc_id,hit\n" + "\n".join(f"d{i % 10},{i % 2}" for i in range(40)) + "\n",
        encoding="utf-8",
    )
    argv = [str(census) if a == "CENSUS" else a for a in argv]
    _fails_fast(argv, capsys, option, "150", "over the limit of 100")
