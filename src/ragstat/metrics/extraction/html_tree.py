"""A small, forgiving HTML element tree for tables (the standard library's tokenizer).

TEDS compares element trees, so the tree must be built the way the reference
implementation's parser (libxml2 through lxml) builds it for table markup: no element
is invented (a ``<tr>`` directly under ``<table>`` stays there: no implied ``<tbody>``),
comments are dropped, void elements (``<br>``, ``<img>``) have no children, a new cell
closes the open cell, a new row closes the open row and cell, a new ``thead``/``tbody``/
``tfoot`` closes the open section, and an end tag with no open element of its name is
ignored. Text is kept as lxml keeps it: an element's ``text`` (before its first child)
and each child's ``tail`` (after it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Element", "first_table"]

VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
     "source", "track", "wbr"}
)  # fmt: skip
_SECTION = frozenset({"td", "th", "tr", "thead", "tbody", "tfoot"})
#: A start tag → the open elements it closes (libxml2's automatic closing, table part).
CLOSES: dict[str, frozenset[str]] = {
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tr": frozenset({"td", "th", "tr"}),
    "thead": _SECTION,
    "tbody": _SECTION,
    "tfoot": _SECTION,
}


@dataclass(frozen=True)
class Element:
    """One element: its tag (lower case), attributes, text pieces before its first child,
    its children and the text pieces after it (``tail``)."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    text_parts: list[str] = field(default_factory=list)
    children: list[Element] = field(default_factory=list)
    tail_parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    @property
    def tail(self) -> str:
        return "".join(self.tail_parts)

    def descendants(self) -> int:
        """How many elements lie below this one (lxml's ``len(e.xpath('.//*'))``)."""
        return sum(1 + c.descendants() for c in self.children)


class _Builder(HTMLParser):
    """Builds the element tree under a synthetic root as the tokenizer reports tags."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root")
        self.stack: list[Element] = [self.root]

    def _open_index(self, names: frozenset[str]) -> int | None:
        """The innermost open element named in ``names``, not looking past a table."""
        for i in range(len(self.stack) - 1, 0, -1):
            tag = self.stack[i].tag
            if tag in names:
                return i
            if tag == "table":
                return None
        return None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        closes = CLOSES.get(tag)
        while closes is not None and (i := self._open_index(closes)) is not None:
            del self.stack[i:]
        element = Element(tag, {k: "" if v is None else v for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID and self.stack[-1].tag == tag:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        names = frozenset({tag})
        if tag == "table":
            i = next(
                (j for j in range(len(self.stack) - 1, 0, -1) if self.stack[j].tag == tag), None
            )
        else:
            i = self._open_index(names)
        if i is not None:
            del self.stack[i:]

    def handle_data(self, data: str) -> None:
        top = self.stack[-1]
        if top.children:
            top.children[-1].tail_parts.append(data)
        else:
            top.text_parts.append(data)


def _find(element: Element, tag: str) -> Element | None:
    for child in element.children:
        if child.tag == tag:
            return child
        found = _find(child, tag)
        if found is not None:
            return found
    return None


def first_table(markup: str) -> Element | None:
    """The first ``<table>`` element of ``markup`` (document order), or None when there is
    none."""
    builder = _Builder()
    builder.feed(markup)
    builder.close()
    return _find(builder.root, "table")
