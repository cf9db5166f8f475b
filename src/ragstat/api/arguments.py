"""Checks of a verb's plain arguments at the Python API boundary.

The command line types its options (typer turns ``--level x`` into a usage error); a
Python caller can pass anything. Each helper returns the value in its proper type or
raises one-line :class:`~ragstat.errors.InputError` naming the argument, so that
``ragstat.simulate(..., level="x")`` says what is wrong instead of failing inside the
computation with a ``TypeError``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

from ragstat.errors import InputError

__all__ = [
    "flag", "level_value", "positive_number", "real_number", "whole_number", "whole_numbers",
]  # fmt: skip


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _real(value: Any) -> float | None:
    """``value`` as a float when it is a real number (not a bool, not text), else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    try:
        return float(value)
    except (OverflowError, ValueError):
        return None


def level_value(value: Any, name: str = "level", example: str = "0.95") -> float:
    """A confidence level (or a power): a number strictly between 0 and 1."""
    number = _real(value)
    if number is None or not 0 < number < 1:
        raise InputError(
            f"{name} must be a number between 0 and 1 (e.g. {example}), got {_shown(value)}"
        )
    return number


def real_number(value: Any, name: str) -> float:
    """A real number (its range is the computation's to check): not text, not a bool."""
    number = _real(value)
    if number is None:
        raise InputError(f"{name} must be a number, got {_shown(value)}")
    return number


def positive_number(value: Any, name: str) -> float:
    """A finite number > 0."""
    number = _real(value)
    if number is None or not (math.isfinite(number) and number > 0):
        raise InputError(f"{name} must be a finite number > 0, got {_shown(value)}")
    return number


def whole_number(value: Any, name: str, low: int = 1, high: int | None = None) -> int:
    """A whole number in [low, high] (an integral float such as 20.0 is accepted)."""
    number = _real(value)
    if number is not None and math.isfinite(number) and number == int(number):
        whole = int(number)
        if low <= whole and (high is None or whole <= high):
            return whole
    bound = f"≥ {low:,}" if high is None else f"from {low:,} to {high:,}"
    raise InputError(f"{name} must be a whole number {bound}, got {_shown(value)}")


def whole_numbers(value: Any, name: str, low: int = 1) -> list[int]:
    """One whole number or a sequence of them (not text)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return [whole_number(value, name, low)]
    return [whole_number(v, name, low) for v in value]


def flag(value: Any, name: str) -> bool:
    """True or False (numpy booleans included); anything else is an error."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    raise InputError(f"{name} must be True or False, got {_shown(value)}")
