"""One error hierarchy for ragstat.

Every error a user can cause derives from :class:`RagstatError`; the CLI turns
these into a single line on stderr and exit code 2.
"""

from __future__ import annotations

__all__ = ["BackendUnavailable", "DesignError", "InputError", "RagstatError"]


class RagstatError(Exception):
    """Base class of every error ragstat raises on purpose."""


class InputError(RagstatError, ValueError):
    """The input data or an argument is invalid (says which and why)."""


class DesignError(RagstatError, ValueError):
    """The sampling design cannot support the requested estimator."""


class BackendUnavailable(RagstatError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""
