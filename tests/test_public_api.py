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
            "analyze",
            "compare",
            "interval",
            "plan",
            "simulate",
            "study",
        ]
    )
    for name in ragstat.__all__:
        assert hasattr(ragstat, name)


def test_subpackages_export_what_they_list():
    for module in (inference, records, errors):
        for name in module.__all__:
            assert hasattr(module, name), (module.__name__, name)


def test_one_error_hierarchy():
    assert issubclass(ragstat.InputError, ragstat.RagstatError)
    assert issubclass(ragstat.InputError, ValueError)
    assert issubclass(ragstat.DesignError, ragstat.RagstatError)
    assert issubclass(ragstat.BackendUnavailable, ImportError)
