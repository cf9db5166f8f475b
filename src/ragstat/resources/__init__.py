"""Resource caps: the memory budget long jobs are checked against before they allocate.

The budget is ``RAGSTAT_MEMORY_BUDGET`` when set — bytes, or a number with a suffix
``K``, ``M``, ``G``, ``T`` (powers of 1024; ``KiB``, ``GB``… read the same) — else half
of the machine's physical memory. A job whose estimated peak exceeds it fails before
any work with an :class:`~ragstat.errors.InputError` that gives the estimate.
"""

from __future__ import annotations

import os
import re

from ragstat.errors import InputError

__all__ = ["BUDGET_ENV", "check_memory", "fmt_bytes", "memory_budget", "parse_bytes"]

#: Environment variable overriding the memory budget.
BUDGET_ENV = "RAGSTAT_MEMORY_BUDGET"

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)
_FALLBACK = 8 << 30  # where the platform does not report its physical memory


def parse_bytes(text: str, name: str = BUDGET_ENV) -> int:
    """``"8G"`` → 8 GiB in bytes; an InputError naming ``name`` when unreadable or zero."""
    m = _SIZE.match(str(text))
    value = int(float(m.group(1)) * _UNITS[m.group(2).upper()]) if m else 0
    if value <= 0:
        raise InputError(
            f"{name}={text!r} is not a memory size: give bytes or a number with K, M, G or T "
            "(e.g. 8G)"
        )
    return value


def physical_memory() -> int:
    """Bytes of physical memory (8 GiB where the platform does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return _FALLBACK


def memory_budget() -> int:
    """The memory budget in bytes: ``RAGSTAT_MEMORY_BUDGET`` or half the physical memory."""
    env = os.environ.get(BUDGET_ENV, "").strip()
    return parse_bytes(env) if env else physical_memory() // 2


def fmt_bytes(n: float) -> str:
    """Bytes for a message: ``7.5 GiB``, ``312 MiB``."""
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= size:
            return f"{n / size:,.1f} {unit}"
    return f"{n / 1024:,.1f} KiB"


def check_memory(estimate: float, what: str, fix: str) -> None:
    """InputError when ``estimate`` bytes exceed the budget: ``what`` needs ≈ X; ``fix``."""
    budget = memory_budget()
    if estimate > budget:
        source = BUDGET_ENV if os.environ.get(BUDGET_ENV, "").strip() else "half of physical memory"
        raise InputError(
            f"{what} needs ≈ {fmt_bytes(estimate)} of memory, over the budget of "
            f"{fmt_bytes(budget)} ({source}); {fix}, or raise {BUDGET_ENV} (e.g. 64G)"
        )
