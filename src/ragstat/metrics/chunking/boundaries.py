"""Structural boundary checks of a chunker: does a cut fall inside a sentence, a table or a
list, and does a chunk end on a heading with no body? Plus the size of every chunk.

A document's chunks are given in order; the *boundary* after chunk ``i`` is the cut between
chunk ``i`` and chunk ``i + 1`` of the same document (the last chunk has none). "The last
line" of a chunk is its last non-blank line, "the first line" its first non-blank one.

Rules (text after stripping surrounding whitespace):

* **in-sentence cut**: the previous chunk does not end with a terminal mark ``. ! ? … : ;``
  (closing quotes, brackets and ``*``/``_`` emphasis are skipped first) *and* the next chunk
  starts (after opening quotes, brackets and emphasis) with a lowercase letter or one of
  ``, ; : ) ] } %`` — a continuation. A next chunk that starts with a capital, a digit or a
  list marker is not counted (a conservative rule: a cut before a proper noun is missed).
* **in-table cut**: the last line of the previous chunk and the first line of the next are
  both Markdown table rows (a line that holds ``|`` and starts or ends with ``|``), or the
  document text up to the boundary has opened more ``<table`` than it closed ``</table>``.
* **in-list cut**: the last line of the previous chunk and the first line of the next are
  both list items: ``-``, ``*``, ``+``, ``•``, ``–`` bullets, ``1.``/``1)`` numbers,
  ``a)``/``a.`` letters or ``I -``/``IV –``/``II)`` Roman numerals, followed by a space.
* A chunk is flagged ``cut_in_*`` when the boundary before it *or* after it is such a cut.
* **orphan heading**: the chunk's last line is a heading — Markdown ``#``…``######``; a
  numbered heading ``Art. 5``, ``Artigo 5º``, ``Capítulo II``, ``Seção III``, ``Título I``,
  ``Section 2``, ``Chapter 3``, ``Anexo I`` of at most 8 words whose rest does not end with
  ``.``, ``,``, ``;`` or ``:``; a decimal number ``3.2 Results`` (at most 8 words, a capital
  after the number, no final ``. ! ? , ; :``); or a line of at most 12 words in capitals
  (two letters or more, no lowercase letter, no ``|``, no final ``, ; . ! ?``).
* **size**: words = whitespace-separated tokens; characters = ``len(text)``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ragstat.arrays import frozen_array
from ragstat.errors import InputError

__all__ = [
    "BoundaryChecks",
    "boundary_checks",
    "first_line",
    "is_heading",
    "is_list_item",
    "is_table_row",
    "last_line",
    "list_cut",
    "sentence_cut",
    "table_cut",
]

TERMINAL = ".!?…:;"
_CLOSERS = "\"'”’»)]}*_"
_OPENERS = "\"'“‘«([{*_"
_CONTINUATION = ",;:)]}%"
_LIST = re.compile(r"^(?:[-*+•–]|\d{1,3}[.)]|[a-z][.)]|[IVXLCDM]{1,6}\s*[-–—.)])\s+\S")
_MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+\S")
_NUMBERED = re.compile(
    r"^(?:art(?:igo)?\.?|cap[íi]tulo|se[çc][ãa]o|t[íi]tulo|livro|parte|section|chapter|part|"
    r"anexo|annex)\s*(?:\d+|[IVXLCDM]+)[º°ªo]?\.?(?P<rest>.*)$",
    re.IGNORECASE,
)
_DECIMAL = re.compile(r"^\d+(?:\.\d+)*\.?\s+[A-ZÀ-ÖØ-Þ]")
_OPEN_TABLE = re.compile(r"<table\b", re.IGNORECASE)
_CLOSE_TABLE = re.compile(r"</table\s*>", re.IGNORECASE)


def last_line(text: str) -> str:
    """The last non-blank line, stripped ("" when none)."""
    lines = [s.strip() for s in text.splitlines() if s.strip()]
    return lines[-1] if lines else ""


def first_line(text: str) -> str:
    """The first non-blank line, stripped ("" when none)."""
    lines = [s.strip() for s in text.splitlines() if s.strip()]
    return lines[0] if lines else ""


def sentence_cut(previous: str, following: str) -> bool:
    """The boundary between two chunks falls inside a sentence (module rule)."""
    end = previous.rstrip().rstrip(_CLOSERS).rstrip()
    start = following.lstrip().lstrip(_OPENERS).lstrip()
    if not end or not start:
        return False
    return end[-1] not in TERMINAL and (start[0].islower() or start[0] in _CONTINUATION)


def is_table_row(line: str) -> bool:
    """A Markdown table row: holds ``|`` and starts or ends with it."""
    s = line.strip()
    return "|" in s and (s.startswith("|") or s.endswith("|"))


def table_cut(previous: str, following: str, html_open: bool = False) -> bool:
    """The boundary falls inside a Markdown table, or inside an HTML table (``html_open``:
    the document text up to the boundary opened more ``<table`` than it closed)."""
    return html_open or (is_table_row(last_line(previous)) and is_table_row(first_line(following)))


def is_list_item(line: str) -> bool:
    """A bullet, numbered, lettered or Roman-numeral list item (module rule)."""
    return bool(_LIST.match(line.strip()))


def list_cut(previous: str, following: str) -> bool:
    """The previous chunk ends with a list item and the next starts with one."""
    return is_list_item(last_line(previous)) and is_list_item(first_line(following))


def is_heading(line: str) -> bool:
    """A heading line: Markdown, numbered ("Art. 5", "3.2 Results") or short all-caps."""
    s = line.strip()
    words = s.split()
    if not s:
        return False
    if _MARKDOWN_HEADING.match(s):
        return True
    m = _NUMBERED.match(s)
    if m and len(words) <= 8:
        return not m.group("rest").strip() or m.group("rest").strip()[-1] not in ".,;:"
    if _DECIMAL.match(s) and len(words) <= 8 and s[-1] not in ".!?,;:":
        return True
    letters = [c for c in s if c.isalpha()]
    return (
        len(words) <= 12
        and len(letters) >= 2
        and not any(c.islower() for c in letters)
        and "|" not in s
        and s[-1] not in ",;.!?"
    )


@dataclass(frozen=True)
class BoundaryChecks:
    """Per chunk (in document order): the four structural flags and the size.

    ``problem`` = any of the four flags; ``boundaries`` counts the cuts checked (chunks
    minus documents).
    """

    item_ids: tuple[str, ...]
    doc_ids: tuple[str, ...]
    cut_in_sentence: np.ndarray
    cut_in_table: np.ndarray
    cut_in_list: np.ndarray
    orphan_heading: np.ndarray
    words: np.ndarray
    characters: np.ndarray
    boundaries: int

    @property
    def problem(self) -> np.ndarray:
        return self.cut_in_sentence | self.cut_in_table | self.cut_in_list | self.orphan_heading

    def records(self, name: str) -> dict[str, float]:
        """Item id → the value of ``name`` (a flag, ``problem``, ``words``, ``characters``)."""
        values = getattr(self, name)
        return dict(zip(self.item_ids, np.asarray(values, float).tolist(), strict=True))


def _cuts(texts: Sequence[str]) -> tuple[list[bool], list[bool], list[bool]]:
    """Per boundary of one document: in-sentence, in-table and in-list cuts."""
    sentence, table, in_list = [], [], []
    depth = 0
    for prev, nxt in pairwise(texts):
        depth += len(_OPEN_TABLE.findall(prev)) - len(_CLOSE_TABLE.findall(prev))
        sentence.append(sentence_cut(prev, nxt))
        table.append(table_cut(prev, nxt, depth > 0))
        in_list.append(list_cut(prev, nxt))
    return sentence, table, in_list


def _per_chunk(cuts: list[bool]) -> list[bool]:
    """A chunk is flagged when the boundary before or after it is: n − 1 cuts → n flags."""
    before, after = [False, *cuts], [*cuts, False]
    return [a or b for a, b in zip(before, after, strict=True)]


def boundary_checks(documents: Mapping[str, Sequence[tuple[str, str]]]) -> BoundaryChecks:
    """The checks of the module docstring: ``documents`` maps doc id → its chunks in order,
    as ``(item id, text)``. No chunk at all, or a text that is not a string → InputError."""
    ids: list[str] = []
    docs: list[str] = []
    flags: dict[str, list[bool]] = {"s": [], "t": [], "l": [], "h": []}
    words: list[int] = []
    chars: list[int] = []
    for doc, chunks in documents.items():
        texts = []
        for item, text in chunks:
            if not isinstance(text, str):
                raise InputError(f"chunk {item!r} of document {doc!r}: 'text' must be a string")
            texts.append(text)
            ids.append(str(item))
            docs.append(str(doc))
            words.append(len(text.split()))
            chars.append(len(text))
        sentence, table, in_list = _cuts(texts)
        flags["s"] += _per_chunk(sentence)
        flags["t"] += _per_chunk(table)
        flags["l"] += _per_chunk(in_list)
        flags["h"] += [is_heading(last_line(t)) for t in texts]
    if not ids:
        raise InputError("boundary_checks: no chunk (empty denominator)")
    return BoundaryChecks(
        tuple(ids),
        tuple(docs),
        frozen_array(flags["s"], bool),
        frozen_array(flags["t"], bool),
        frozen_array(flags["l"], bool),
        frozen_array(flags["h"], bool),
        frozen_array(words, int),
        frozen_array(chars, int),
        sum(max(len(c) - 1, 0) for c in documents.values()),
    )
