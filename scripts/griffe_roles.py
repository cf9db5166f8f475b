"""A griffe extension for the API reference (mkdocs.yml): ragstat's docstrings name other
objects with Sphinx roles (``:func:`read_source```, ``:class:`~ragstat.api.sources.Source```),
which Markdown would show literally. Each role becomes a code span of the name as written
(``~`` keeps only the last component, as Sphinx does)."""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|obj|exc|const):`(~?)([^`]+)`")


def markdown_roles(text: str) -> str:
    """``text`` with every Sphinx role replaced by a Markdown code span."""

    def span(m: re.Match[str]) -> str:
        name = m.group(2).strip()
        if m.group(1):
            name = name.rsplit(".", 1)[-1]
        return f"`{name}`"

    return ROLE.sub(span, text)


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown_roles(obj.docstring.value)
