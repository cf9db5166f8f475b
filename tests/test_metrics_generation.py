"""Generation metrics and judges: seed-004 worked examples, hand-checked values, bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from pydantic import ValidationError

from ragstat.adapters import OpenAICompatibleJudge
from ragstat.errors import InputError
from ragstat.metrics.generation import (
    BudgetExceeded,
    FaithfulnessJudgment,
    InvalidResponse,
    Judge,
    JudgeBudget,
    ReplayJudge,
    citation_scores,
    exact_match,
    faithfulness,
    normalize_answer,
    parse_judgment,
    position_bias,
    prompt_hash,
    refusal_correctness,
    run_judge,
    short_answer_scores,
    token_f1,
    unseen_entities,
    unseen_entity_flag,
    unseen_entity_flags,
    write_replay,
)

VALID = dict(
    extracted_claims=["Mars has two moons", "Mars has a thick atmosphere"],
    supported_claims=["Mars has two moons"],
    unsupported_claims=["Mars has a thick atmosphere"],
    outcome="scored",
    failure_mode="fabrication",
    rationale="The atmosphere claim lacks support.",
)
EMPTY = dict(
    extracted_claims=[],
    supported_claims=[],
    unsupported_claims=[],
    outcome="no_claims",
    failure_mode="none",
    rationale="Score refusal correctness separately.",
)
OVERLAP = dict(
    extracted_claims=["Mars has two moons"],
    supported_claims=["Mars has two moons"],
    unsupported_claims=["Mars has two moons"],
    outcome="scored",
    failure_mode="none",
    rationale="Contradictory verdict.",
)


# --- seed 004: the three FaithfulnessJudgment cases ------------------------------------


def test_seed_faithfulness_three_cases():
    assert FaithfulnessJudgment(**VALID).score == 0.5
    assert FaithfulnessJudgment(**EMPTY).score is None
    with pytest.raises(ValidationError, match="complete, disjoint claim partition"):
        FaithfulnessJudgment(**OVERLAP)


@pytest.mark.parametrize(
    "change",
    [
        {"unsupported_claims": []},  # incomplete partition
        {"supported_claims": ["Mars has two moons", "Mars has two moons"]},  # duplicate
        {"outcome": "no_claims"},  # scored claims under a no_claims outcome
        {"supported_claims": ["Mars has two moons", "Pluto"]},  # verdict on unextracted claim
        {"extracted_claims": ["  ", "x"]},  # blank claim
    ],
)
def test_partition_violations_rejected(change):
    with pytest.raises(ValidationError):
        FaithfulnessJudgment(**{**VALID, **change})
    with pytest.raises(ValidationError, match="no_claims"):
        FaithfulnessJudgment(**{**EMPTY, "outcome": "scored"})


def test_faithfulness_kernel_no_claims_slice():
    extra = {
        **VALID,
        "supported_claims": VALID["extracted_claims"],
        "unsupported_claims": [],
        "failure_mode": "none",
    }
    res = faithfulness({"q1": FaithfulnessJudgment(**VALID), "q2": EMPTY, "q3": extra})
    assert res.item_ids == ("q1", "q2", "q3")
    assert res.score[0] == 0.5 and math.isnan(res.score[1]) and res.score[2] == 1.0
    assert res.no_claims == ("q2",) and res.n_no_claims == 1 and res.n_scored == 2
    assert res.mean == pytest.approx(0.75)  # the refusal is not averaged in
    assert res.micro == pytest.approx(3 / 4)
    assert res.records() == {"q1": 0.5, "q3": 1.0}
    with pytest.raises(ValueError):
        res.score[0] = 1.0  # read-only arrays
    with pytest.raises(InputError, match="empty denominator"):
        _ = faithfulness({"r": EMPTY}).mean
    with pytest.raises(InputError, match=r"'bad'.*partition"):
        faithfulness({"bad": OVERLAP})
    with pytest.raises(InputError):
        faithfulness({})


# --- citations -------------------------------------------------------------------------


def test_citation_scores_hand_checked():
    res = citation_scores(
        cited={"a": ["p1", "p2", "p2"], "b": [], "c": ["p9"]},
        supporting={"a": ["p1", "p3"], "b": ["p1"], "c": []},
        context={"a": ["p1", "p2", "p3", "p4"], "b": ["p1"]},
    )
    np.testing.assert_allclose(res.precision, [0.5, np.nan, 0.0])
    np.testing.assert_allclose(res.recall, [0.5, 0.0, np.nan])
    np.testing.assert_allclose(res.coverage, [0.5, 0.0, np.nan])
    assert res.empty_context == ("c",) and res.no_citations == ("b",)
    assert res.mean_precision == pytest.approx(0.25)
    assert res.mean_recall == pytest.approx(0.25)
    assert res.mean_coverage == pytest.approx(0.25)  # c (empty context) not a zero
    assert res.records("coverage") == {"a": 0.5, "b": 0.0}
    with pytest.raises(InputError, match="empty denominator"):
        _ = citation_scores({}, {"x": ["p"]}).mean_precision
    with pytest.raises(InputError, match="without labels"):
        citation_scores({"zz": ["p"]}, {"x": ["p"]})
    with pytest.raises(InputError, match="passage ids"):
        citation_scores({"x": "p1"}, {"x": ["p1"]})


# --- refusals --------------------------------------------------------------------------


def test_refusal_correctness():
    res = refusal_correctness(
        refused={"a": True, "b": True, "c": False, "d": False, "e": True},
        should_abstain={"a": True, "b": False, "c": True, "d": False, "e": True},
    )
    assert res.refusal_precision == pytest.approx(2 / 3)
    assert res.refusal_recall == pytest.approx(2 / 3)
    assert res.records("precision") == {"a": 1.0, "b": 0.0, "e": 1.0}
    assert res.records("recall") == {"a": 1.0, "c": 0.0, "e": 1.0}
    none = refusal_correctness({"a": False}, {"a": False})
    with pytest.raises(InputError, match="no refusal"):
        _ = none.refusal_precision
    with pytest.raises(InputError, match="no should-abstain"):
        _ = none.refusal_recall
    with pytest.raises(InputError, match="ids differ"):
        refusal_correctness({"a": True}, {"b": True})
    with pytest.raises(InputError, match="boolean"):
        refusal_correctness({"a": "yes"}, {"a": True})


# --- short answers ---------------------------------------------------------------------


def test_squad_normalisation_em_f1():
    assert normalize_answer("The  Eiffel Tower!") == "eiffel tower"
    assert normalize_answer("an apple, a pear") == "apple pear"
    assert exact_match("the Eiffel tower.", "Eiffel Tower") == 1.0
    assert exact_match("Café", "cafe") == 0.0
    assert exact_match("Café", "cafe", fold_accents=True) == 1.0
    # pred tokens [paris, france], ref [paris]: P=1/2, R=1, F1=2/3
    assert token_f1("Paris, France", "Paris") == pytest.approx(2 / 3)
    assert token_f1("", "") == 1.0 and token_f1("a", "Paris") == 0.0
    res = short_answer_scores(
        {"q1": "Paris", "q2": "in 1889", "q9": "x"},
        {"q1": ["paris", "City of Paris"], "q2": "1889", "q3": "Seine"},
    )
    assert res.item_ids == ("q1", "q2", "q3") and res.missing == ("q3",)
    np.testing.assert_allclose(res.exact, [1.0, 0.0, 0.0])
    np.testing.assert_allclose(res.f1, [1.0, 2 / 3, 0.0])
    assert res.exact_match == pytest.approx(1 / 3)
    assert res.records("f1")["q2"] == pytest.approx(2 / 3)
    with pytest.raises(InputError):
        short_answer_scores({}, {})
    with pytest.raises(InputError):
        short_answer_scores({"a": "x"}, {"a": []})


# --- seed 004: the unseen-entity flag stays silent on a contradiction ------------------


def test_seed_paris_1994_flag_stays_silent():
    context = "Paris was not founded in 1994."
    answer = "Paris was founded in 1994."
    assert not unseen_entity_flag(answer, context, ["Paris"])
    assert not unseen_entity_flag(answer, context)  # automatic candidates: Paris, 1994
    assert unseen_entities(answer, context) == ()
    claim_supported = False  # a human label or NLI verdict, not the lexical flag
    assert not claim_supported


def test_unseen_entity_flags():
    assert unseen_entities("Lyon was founded in 43 BC.", "Lugdunum, 43 BC") == ("Lyon",)
    assert unseen_entities("Parisian", "Paris") == ("Parisian",)  # whole-word match
    assert unseen_entities("São Paulo", "sao paulo", fold_accents=True) == ()
    res = unseen_entity_flags(
        {"a": "Paris in 1994.", "b": "It rained in Rome."}, {"a": "paris 1994", "b": ""}
    )
    assert res.flagged.tolist() == [False, True] and res.unseen[1] == ("It", "Rome")
    assert res.rate == 0.5 and res.records() == {"a": 0.0, "b": 1.0}
    with pytest.raises(InputError, match="without context"):
        unseen_entity_flags({"a": "X"}, {})


# --- pairwise position bias ------------------------------------------------------------


def test_position_bias_swap_consistency():
    res = position_bias(
        {"p1": "A", "p2": "first", "p3": "tie", "p4": "second", "p5": "A"},
        {"p1": "B", "p2": "first", "p3": "tie", "p4": "second", "p6": "A"},
    )
    assert res.pair_ids == ("p1", "p2", "p3", "p4")
    assert res.consistent.tolist() == [True, False, True, False]
    assert res.swap_consistency == 0.5 and res.primacy_share == 0.25
    assert res.second_both.tolist() == [False, False, False, True]
    assert res.one_order == ("p5", "p6")
    with pytest.raises(InputError, match="both orders"):
        position_bias({"p": "A"}, {"q": "A"})
    with pytest.raises(InputError, match="verdict"):
        position_bias({"p": "X"}, {"p": "A"})


# --- judges ----------------------------------------------------------------------------


def test_replay_judge_and_parse(tmp_path):
    path = tmp_path / "replay.jsonl"
    prompts = {"q1": "judge q1", "q2": "judge q2", "q3": "judge q3", "q4": "judge q4"}
    responses = [json.dumps(VALID), "not json {", json.dumps(OVERLAP), json.dumps(EMPTY)]
    assert write_replay(path, zip(prompts.values(), responses, strict=True)) == 4
    judge = ReplayJudge.from_jsonl(path)
    assert isinstance(judge, Judge) and len(judge) == 4
    assert judge.judge("judge q1") == responses[0]
    missing = prompt_hash("unknown prompt")
    with pytest.raises(InputError, match=missing):
        judge.judge("unknown prompt")
    run = run_judge(judge, prompts, FaithfulnessJudgment)
    assert set(run.valid) == {"q1", "q4"} and set(run.invalid) == {"q2", "q3"}
    assert run.invalid["q2"].kind == "invalid_json"
    assert "partition" in run.invalid["q3"].reason
    assert run.invalid_counts == {"invalid_json": 1, "schema": 1} and run.invalid_rate == 0.5
    assert faithfulness(run.valid).mean == 0.5


def test_parse_judgment_never_coerces():
    out = parse_judgment(json.dumps({**VALID, "rationale": 3}), FaithfulnessJudgment)
    assert isinstance(out, InvalidResponse) and out.kind == "schema"
    assert out.reason.startswith("rationale:")
    out = parse_judgment("[1, 2]", FaithfulnessJudgment)
    assert isinstance(out, InvalidResponse) and "object" in out.reason
    out = parse_judgment("```json\n{}\n```", FaithfulnessJudgment)
    assert isinstance(out, InvalidResponse) and out.kind == "invalid_json"
    out = parse_judgment(json.dumps({**VALID, "extra": 1}), FaithfulnessJudgment)
    assert isinstance(out, InvalidResponse) and "extra" in out.reason
    assert parse_judgment(json.dumps(VALID), FaithfulnessJudgment).score == 0.5
    with pytest.raises(InputError):
        parse_judgment("{}", dict)


def test_replay_file_errors(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"prompt": "p", "response": "r"}\nnope\n')
    with pytest.raises(InputError, match=r"bad.jsonl:2"):
        ReplayJudge.from_jsonl(bad)
    bad.write_text('{"prompt_sha256": "abc", "response": "r"}\n')
    with pytest.raises(InputError, match="sha256"):
        ReplayJudge.from_jsonl(bad)
    bad.write_text('{"prompt": "p", "response": "r"}\n{"prompt": "p", "response": "s"}\n')
    with pytest.raises(InputError, match="conflicting"):
        ReplayJudge.from_jsonl(bad)


def test_judge_budget():
    judge = ReplayJudge({prompt_hash(p): json.dumps(EMPTY) for p in ("a", "b", "c")})
    prompts = {"1": "a", "2": "b", "3": "c"}
    budget = JudgeBudget(max_calls=2)
    with pytest.raises(BudgetExceeded, match="max_calls=2"):
        run_judge(judge, prompts, FaithfulnessJudgment, budget=budget)
    assert budget.calls == 2
    with pytest.raises(BudgetExceeded, match="max_tokens=5"):
        run_judge(judge, prompts, FaithfulnessJudgment, JudgeBudget(max_tokens=5), len)
    assert run_judge(judge, prompts, FaithfulnessJudgment, JudgeBudget(3, 10**6)).n == 3
    with pytest.raises(InputError):
        JudgeBudget(max_calls=-1)


def test_http_backend_is_lazy_and_needs_key(monkeypatch):
    monkeypatch.delenv("RAGSTAT_TEST_NO_KEY", raising=False)
    judge = OpenAICompatibleJudge("http://127.0.0.1:9", "m", api_key_env="RAGSTAT_TEST_NO_KEY")
    assert isinstance(judge, Judge)
    with pytest.raises(InputError, match="RAGSTAT_TEST_NO_KEY"):
        judge.judge("x")  # fails on the missing key before any network access
