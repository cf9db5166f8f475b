"""Every comma-list option is capped (RAGSTAT_MAX_LIST, default 100): too many values stop
with one line naming the option and the variable, before any work."""

from __future__ import annotations

import pytest

from ragstat.api.verbs.evaluate import metric_names
from ragstat.api.verbs.split import parse_groups, parse_sets
from ragstat.errors import InputError


@pytest.mark.parametrize(
    ("call", "option"),
    [
        (lambda: metric_names(",".join(f"ndcg@{k}" for k in range(1, 102))), "--metrics"),
        (lambda: parse_groups(",".join(f"g{k}" for k in range(101))), "--groups"),
        (lambda: parse_sets(",".join(f"s{k}=0.0099" for k in range(101))), "--sets"),
    ],
)
def test_api_lists_are_capped(call, option):
    with pytest.raises(InputError, match=rf"{option} has too many values: 101.*RAGSTAT_MAX_LIST"):
        call()


def test_the_cap_follows_the_environment(monkeypatch):
    monkeypatch.setenv("RAGSTAT_MAX_LIST", "2")
    assert metric_names("mrr,ndcg@10") == ["mrr", "ndcg@10"]
    with pytest.raises(InputError, match="RAGSTAT_MAX_LIST=3"):
        metric_names("mrr,ndcg@10,recall@10")


@pytest.mark.parametrize(
    ("verb", "option"),
    [("routing", "--labels"), ("routing", "--cost-budgets"), ("rewriting", "--methods")],
)
def test_cli_lists_are_capped(verb, option, tmp_path, capsys, monkeypatch):
    from ragstat.cli import main

    monkeypatch.setenv("RAGSTAT_MAX_LIST", "3")
    data = tmp_path / "x.jsonl"
    data.write_text('{"id": "1"}\n', encoding="utf-8")
    assert main([verb, str(data), option, "a,b,c,d"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{option} has too many values: 4" in err[0]
