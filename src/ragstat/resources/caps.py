"""Caps on what a verb builds from its input: each fails at once, before the work, with one
line (an `InputError`, exit 2) naming the count, the limit and the environment variable
that changes it:

* ``RAGSTAT_MAX_LABELS``: distinct labels of an agreement scale (default 100; the
  per-document confusion tables grow with labels², 300 labels took 5.8 GB);
* ``RAGSTAT_MAX_CELLS``: cells of a coverage matrix, the product of its dimensions' values
  (default 10,000);
* ``RAGSTAT_MAX_LIST``: values of one comma-separated list option (``--k``, ``--methods``,
  ``--systems``…; default 100).

The memory budget (``RAGSTAT_MEMORY_BUDGET``, :func:`ragstat.resources.check_memory`) is
checked besides.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ragstat.errors import InputError

__all__ = ["CELLS_ENV", "LABELS_ENV", "LIST_ENV", "check_cap", "check_list", "limit"]

LABELS_ENV = "RAGSTAT_MAX_LABELS"
CELLS_ENV = "RAGSTAT_MAX_CELLS"
LIST_ENV = "RAGSTAT_MAX_LIST"
_DEFAULTS = {LABELS_ENV: 100, CELLS_ENV: 10_000, LIST_ENV: 100}


def limit(env: str) -> int:
    """The cap named by ``env``: its environment variable (a positive whole number) or the
    default."""
    text = os.environ.get(env, "").strip().replace(",", "").replace("_", "")
    if not text:
        return _DEFAULTS[env]
    if not text.isdigit() or int(text) < 1:
        raise InputError(f"{env}={text!r} is not a positive whole number")
    return int(text)


def check_cap(count: int, env: str, what: str, fix: str) -> None:
    """InputError when ``count`` exceeds the cap: "``what``: N, over the limit of L; ``fix``,
    or raise ENV (e.g. ENV=N)"."""
    cap = limit(env)
    if count > cap:
        raise InputError(
            f"{what}: {count:,}, over the limit of {cap:,}; {fix}, or raise the limit with "
            f"{env}={count}"
        )


def check_list(values: Sequence[object], option: str) -> None:
    """A comma-separated option holds at most ``RAGSTAT_MAX_LIST`` values."""
    check_cap(len(values), LIST_ENV, f"{option} has too many values", "give fewer")
