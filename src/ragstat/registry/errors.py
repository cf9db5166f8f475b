"""The registry's error: one line that names the file and the fix."""

from __future__ import annotations

from ragstat.errors import RagstatError

__all__ = ["RegistryError"]


class RegistryError(RagstatError):
    """The run registry cannot be read or written (the message names the file and the fix)."""
