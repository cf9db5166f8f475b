"""The hostile corpus (issue 28, item 6): seeded, deterministic generators of hostile inputs
for every verb and every ``--from`` reader, and a fork-per-case runner that classifies each
run (internal error, hang, memory, multi-line error, non-strict JSON, raw escapes).

``benchmarks/hostile_sweep.py`` runs the full sweep (≥ 1,500 cases) or ``--quick``;
``tests/test_hostile_sweep.py`` runs both from pytest. Nothing here is part of ragstat.
"""
