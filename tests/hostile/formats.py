"""Content mutations of one input file, by kind: delimited tables (csv, tsv, TREC), JSON
Lines, JSON documents and TOML. Each returns the new bytes, or ``None`` when the mutation
does not apply to the file (no numeric column, no records…). Deterministic: the choices
depend only on the file and the arguments."""

from __future__ import annotations

import json
import re
from typing import Any

Record = dict[str, Any]
SEP = {"csv": ",", "tsv": "\t", "trec": None}
DOC_WORDS = ("doc", "cluster", "source", "file", "session", "topic", "group")


def encode(text: str) -> bytes:
    """UTF-8, a lone surrogate written as the invalid bytes it would be on disk."""
    return text.encode("utf-8", "surrogatepass")


# -- delimited tables ------------------------------------------------------------------


def read_table(data: bytes, kind: str) -> tuple[list[str] | None, list[list[str]]]:
    lines = [ln for ln in data.decode("utf-8").splitlines() if ln.strip()]
    sep = SEP[kind]
    rows = [ln.split(sep) for ln in lines]
    if kind == "trec" or not rows:
        return None, rows
    return rows[0], rows[1:]


def write_table(header: list[str] | None, rows: list[list[str]], kind: str) -> bytes:
    sep = SEP[kind] or " "
    out = ([header] if header is not None else []) + rows
    return encode("".join(sep.join(r) + "\n" for r in out))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def numeric_columns(rows: list[list[str]]) -> list[int]:
    width = min((len(r) for r in rows), default=0)
    return [c for c in range(width) if rows and all(_is_number(r[c]) for r in rows)]


def text_columns(rows: list[list[str]]) -> list[int]:
    width = min((len(r) for r in rows), default=0)
    numeric = set(numeric_columns(rows))
    return [c for c in range(width) if c not in numeric]


def doc_column(header: list[str] | None, rows: list[list[str]]) -> int | None:
    if header is None:  # TREC: the document id is the third field
        return 2 if rows and len(rows[0]) >= 3 else None
    for c, name in enumerate(header):
        if any(w in name.lower() for w in DOC_WORDS):
            return c
    return None


def table_cell(data: bytes, kind: str, pick: int, text: str, every: int) -> bytes | None:
    """``text`` in one numeric column (the ``pick``-th, cyclically): every ``every``-th row
    from the second (``every`` = 0: the second row only)."""
    header, rows = read_table(data, kind)
    cols = numeric_columns(rows)
    if len(rows) < 2 or not cols:
        return None
    col = cols[pick % len(cols)]
    for i in range(1, len(rows), every or len(rows)):
        rows[i][col] = text
    return write_table(header, rows, kind)


def table_string(data: bytes, kind: str, pick: int, text: str) -> bytes | None:
    """``text`` in a text column (an id, a name, a label) of the second row."""
    header, rows = read_table(data, kind)
    cols = text_columns(rows)
    if len(rows) < 2 or not cols:
        return None
    rows[1][cols[pick % len(cols)]] = text
    return write_table(header, rows, kind)


def table_shape(data: bytes, kind: str, shape: str) -> bytes | None:
    header, rows = read_table(data, kind)
    if not rows:
        return None
    if shape == "dup-rows":
        rows = [r for r in rows for _ in (0, 1)]
    elif shape == "dup-id" and len(rows) > 1:
        rows[1] = list(rows[0])
    elif shape == "one-doc":
        c = doc_column(header, rows)
        if c is None:
            return None
        for r in rows:
            r[c] = rows[0][c]
    elif shape == "one-row":
        rows = rows[:1]
    elif shape == "no-rows":
        rows = []
    elif shape == "drop-score" and header is not None and numeric_columns(rows):
        c = numeric_columns(rows)[-1]
        header = header[:c] + header[c + 1 :]
        rows = [r[:c] + r[c + 1 :] for r in rows]
    else:
        return None
    return write_table(header, rows, kind)


# -- JSON Lines and JSON documents ------------------------------------------------------


def dump(value: Any, raw: dict[str, str]) -> str:
    """JSON text with each placeholder string replaced by its raw token (NaN, 1e400…)."""
    text = json.dumps(value)
    for key, token in raw.items():
        text = text.replace(json.dumps(key), token)
    return text


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, (*path, i))]
    return [(path, value)]


def _set(root: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        root = root[step]
    root[path[-1]] = value


def _key(path: tuple[Any, ...]) -> str:
    return next((str(p) for p in reversed(path) if isinstance(p, str)), "")


def leaf_groups(root: Any, numeric: bool) -> list[list[tuple[Any, ...]]]:
    """Leaf paths grouped by their last key name: numbers (not booleans) or strings."""
    groups: dict[str, list[tuple[Any, ...]]] = {}
    for path, v in _leaves(root):
        is_num = isinstance(v, int | float) and not isinstance(v, bool)
        if path and (is_num if numeric else isinstance(v, str)):
            groups.setdefault(_key(path), []).append(path)
    return [groups[k] for k in sorted(groups)]


def load_doc(data: bytes, kind: str) -> Any:
    if kind == "jsonl":
        return [json.loads(ln) for ln in data.decode("utf-8").splitlines() if ln.strip()]
    return json.loads(data)


def dump_doc(root: Any, kind: str, raw: dict[str, str] | None = None) -> bytes:
    raw = raw or {}
    if kind == "jsonl":
        return encode("".join(dump(r, raw) + "\n" for r in root))
    return encode(dump(root, raw))


def json_cell(data: bytes, kind: str, pick: int, token: str, every: int) -> bytes | None:
    """``token`` (raw JSON) in place of numbers of one key (the ``pick``-th, cyclically)."""
    root = load_doc(data, kind)
    groups = leaf_groups(root, numeric=True)
    if not groups:
        return None
    paths = groups[pick % len(groups)]
    chosen = paths[1 :: every or len(paths)] or paths[:1]
    for path in chosen:
        _set(root, path, "@@RAW@@")
    return dump_doc(root, kind, {"@@RAW@@": token})


def json_string(data: bytes, kind: str, pick: int, text: str) -> bytes | None:
    """``text`` in place of the strings of one key (the ``pick``-th), second occurrence."""
    root = load_doc(data, kind)
    groups = leaf_groups(root, numeric=False)
    if not groups:
        return None
    paths = groups[pick % len(groups)]
    _set(root, paths[min(1, len(paths) - 1)], text)
    return dump_doc(root, kind)


def records(root: Any) -> list[Any] | None:
    """The longest list of objects in the document (its records)."""
    best: list[Any] | None = root if isinstance(root, list) else None
    stack = [root]
    while stack:
        v = stack.pop()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        for child in items:
            is_records = (
                isinstance(child, list) and child and all(isinstance(c, dict) for c in child)
            )
            if is_records and (best is None or len(child) > len(best)):
                best = child
            stack.append(child)
    return best


def json_shape(data: bytes, kind: str, shape: str) -> bytes | None:
    root = load_doc(data, kind)
    recs = records(root)
    if not recs:
        return None
    if shape == "dup-rows":
        recs[:] = [r for r in recs for _ in (0, 1)]
    elif shape == "dup-id" and len(recs) > 1:
        recs[1] = recs[0]
    elif shape == "one-doc":
        keys = [k for k in recs[0] if any(w in str(k).lower() for w in DOC_WORDS)]
        if not keys:
            return None
        for r in recs:
            if isinstance(r, dict):
                r[keys[0]] = recs[0][keys[0]]
    elif shape == "one-row":
        del recs[1:]
    elif shape == "no-rows":
        recs.clear()
    elif shape == "drop-score":
        groups = leaf_groups(recs, numeric=True)
        if not groups:
            return None
        for path in groups[-1]:
            parent = recs
            for step in path[:-1]:
                parent = parent[step]
            parent.pop(path[-1])
    else:
        return None
    return dump_doc(root, kind)


# -- TOML (gate files) ------------------------------------------------------------------

TOML_KEY = re.compile(r"^(?P<key>[a-z_]+) = (?P<value>.+)$", re.M)


def toml_value(data: bytes, key: str, value: str) -> bytes | None:
    """Every ``key = …`` line with ``value`` (TOML text) instead."""
    text = data.decode("utf-8")
    new, n = re.subn(rf"^{re.escape(key)} = .+$", lambda _m: f"{key} = {value}", text, flags=re.M)
    return encode(new) if n else None


def toml_keys(data: bytes) -> list[str]:
    return sorted({m.group("key") for m in TOML_KEY.finditer(data.decode("utf-8"))})


def toml_many_gates(data: bytes, n: int) -> bytes:
    """The file's first gate repeated ``n`` times (names made unique)."""
    text = data.decode("utf-8")
    start = text.index("[[gates]]")
    end = text.find("[[gates]]", start + 1)
    block = text[start : end if end > 0 else len(text)]
    copies = [block.replace('name = "', f'name = "{i} ', 1) for i in range(n)]
    return encode(text[:start] + "".join(copies))
