"""The public surface is exactly what `__all__` says (a change here is an API change)."""

import ragstat
from ragstat import errors, inference, records


def test_top_level_all_is_pinned():
    assert sorted(ragstat.__all__) == sorted(
        [
            "BackendUnavailable",
            "DesignError",
            "DocStats",
            "InputError",
            "Interval",
            "IntervalReport",
            "RagstatError",
            "__version__",
            "aggregate_arrays",
            "aggregate_file",
            "aggregate_frame",
            "agreement",
            "analyze",
            "compare",
            "coverage",
            "evaluate",
            "filter_rule",
            "gate",
            "generation",
            "ingestion",
            "interval",
            "judge_bias",
            "latency",
            "ontology",
            "plan",
            "ppi",
            "simulate",
            "split",
            "study",
            "chunking",
            "extraction",
            "nuggets",
            "read_source",
            "rewriting",
            "routing",
        ]
    )
    for name in ragstat.__all__:
        assert hasattr(ragstat, name)


def test_api_all_is_pinned_and_names_the_functions_not_their_modules():
    import ragstat.api
    import ragstat.api.verbs.interval  # a submodule import must not shadow the function

    assert sorted(ragstat.api.__all__) == sorted(
        [
            "AgreementResult",
            "CoverageMatrix",
            "EvaluationReport",
            "FilterRuleResult",
            "GateReport",
            "ItemScores",
            "JudgeBiasResult",
            "PPIResult",
            "PlanResult",
            "SplitResult",
            "StudyResult",
            "ChunkingReport",
            "ExtractionScores",
            "RewritingReport",
            "RoutingResult",
            "Source",
            "agreement",
            "compare",
            "coverage",
            "evaluate",
            "filter_rule",
            "gate",
            "generation",
            "ingestion",
            "interval",
            "judge_bias",
            "latency",
            "ontology",
            "plan",
            "ppi",
            "simulate",
            "split",
            "study",
            "chunking",
            "extraction",
            "nuggets",
            "read_source",
            "rewriting",
            "routing",
        ]
    )
    for name in ragstat.api.__all__:
        value = getattr(ragstat.api, name)
        assert callable(value) and not isinstance(value, type(ragstat)), name
        if name[0].islower():
            assert getattr(ragstat, name) is value


def test_subpackages_export_what_they_list():
    for module in (inference, records, errors):
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)


def test_one_error_hierarchy():
    assert issubclass(ragstat.InputError, ragstat.RagstatError)
    assert issubclass(ragstat.InputError, ValueError)
    assert issubclass(ragstat.DesignError, ragstat.RagstatError)
    assert issubclass(ragstat.BackendUnavailable, ImportError)
