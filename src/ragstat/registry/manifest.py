"""A run's manifest: what was run, on which data, with which versions, and what it found.

The manifest is plain JSON all the way down (``to_dict`` / ``from_dict`` round-trip
exactly): numpy scalars and arrays, paths and sets are normalised on construction,
non-finite floats become ``None``. It is written beside a run's outputs as
``manifest.json`` and recorded in the registry (:mod:`ragstat.registry.store`, found
by :mod:`ragstat.registry.location`).
"""

from __future__ import annotations

import hashlib
import json
import math
import platform
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from ragstat.atomic import atomic_write_text
from ragstat.errors import InputError
from ragstat.tidy import json_text

__all__ = [
    "MANIFEST_NAME",
    "OUTCOMES",
    "Manifest",
    "corpus_fingerprint",
    "file_sha256",
    "new_run_id",
    "output_folder",
    "package_versions",
    "read_manifest",
    "utc_now",
    "with_output_hashes",
    "write_manifest",
]

MANIFEST_NAME = "manifest.json"
#: What a run came to: a gate that passed or failed, a verb that ran (no pass or fail), a run
#: that failed (an error) or was interrupted.
OUTCOMES = ("passed", "failed gate", "ran", "failed", "interrupted")
#: Fields a manifest written by an older ragstat may lack (their defaults apply).
_OPTIONAL = ("status", "error", "outcome", "output_sha256")
_BLOCK = 1 << 20
# Distribution names as pip knows them; only the installed ones are reported.
_PACKAGES = (
    "ragstat",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "duckdb",
    "bm25s",
    "PyStemmer",
    "scikit-learn",
    "typer",
    "pydantic",
    "jinja2",
    "matplotlib",
    "sentence-transformers",
    "torch",
    "jiwer",
    "datasketch",
    "hnswlib",
    "dask",
    "distributed",
)


def utc_now() -> str:
    """The current time as ISO 8601 UTC to the microsecond (sorts as text)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def new_run_id() -> str:
    """A sortable, unique run id: UTC timestamp and a random suffix, e.g. ``20261129-142241-3f9a2c``."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(3)}"


def _update_file(h, path: Path) -> None:
    with path.open("rb") as fh:
        while block := fh.read(_BLOCK):
            h.update(block)


def file_sha256(path: str | Path) -> str:
    """Hex sha256 of a file's bytes, read in blocks.

    For a folder: one sha256 over its files in sorted relative-path order, each
    contributing its POSIX relative path, its size and its bytes (so renaming or
    moving a file changes the hash).
    """
    path = Path(path)
    h = hashlib.sha256()
    try:
        if path.is_file():
            _update_file(h, path)
        elif path.is_dir():
            files = sorted((p for p in path.rglob("*") if p.is_file()), key=lambda p: p.as_posix())
            for p in files:
                rel = p.relative_to(path).as_posix().encode("utf-8")
                h.update(len(rel).to_bytes(8, "big") + rel + p.stat().st_size.to_bytes(8, "big"))
                _update_file(h, p)
        else:
            raise InputError(f"cannot hash {path}: no such file or folder")
    except OSError as exc:
        raise InputError(f"cannot hash {path}: {exc.strerror or exc}") from exc
    return h.hexdigest()


def corpus_fingerprint(documents: Iterable[Any]) -> str:
    """Hex sha256 over document ids and texts, independent of document order.

    ``documents`` holds ``(doc_id, text)`` pairs or objects with ``doc_id`` and
    ``text`` attributes (e.g. :class:`ragstat.corpus.Document`).
    """
    pairs: list[tuple[str, str]] = []
    for d in documents:
        doc_id, text = (d.doc_id, d.text) if hasattr(d, "doc_id") else d
        pairs.append((str(doc_id), str(text)))
    h = hashlib.sha256()
    for doc_id, text in sorted(pairs):
        for part in (doc_id.encode("utf-8"), text.encode("utf-8")):
            h.update(len(part).to_bytes(8, "big") + part)
    return h.hexdigest()


def package_versions() -> dict[str, str]:
    """Versions of Python and of the installed packages a result can depend on."""
    versions = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def _plain(value: object, where: str) -> object:
    """``value`` as plain JSON data (dict/list/str/int/float/bool/None)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, where) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_plain(v, where) for v in value), key=repr)
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "to_dict"):
        return _plain(value.to_dict(), where)
    if hasattr(value, "tolist"):  # numpy scalars and arrays, without importing numpy
        return _plain(value.tolist(), where)
    raise InputError(
        f"manifest {where}: {type(value).__name__} is not JSON data; pass numbers, strings, "
        "lists or dicts"
    )


def _str_map(value: object, where: str) -> dict[str, str]:
    if not isinstance(value, Mapping):
        raise InputError(f"manifest {where} must be a mapping, got {type(value).__name__}")
    return {str(k): str(v) for k, v in value.items()}


def _seed(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise InputError(f"manifest seed must be an integer or None, got {value!r}")
    return int(value.__index__())


@dataclass(frozen=True)
class Manifest:
    """Everything needed to tell two runs apart (see :func:`ragstat.registry.diff_runs`).

    ``config`` holds the normalised options that define the run (seed, chunk size …,
    not output paths or display flags); ``inputs`` maps each input's role (``file``,
    ``a``, ``qrels`` …) → sha256;
    ``results`` holds a few headline numbers. ``status`` is ``"ok"``, ``"failed"`` or
    ``"interrupted"``; a failed run keeps its ``error`` text (None for a run that succeeded).
    ``outcome`` is what the run came to, in the words the runs list shows (``OUTCOMES``):
    ``"passed"`` / ``"failed gate"`` for a verb that decides (gate), ``"ran"`` for one that
    finished without a pass or fail, ``"failed"``, ``"interrupted"``; None in a manifest
    recorded before outcomes were. ``output_sha256`` maps each output file (its path as in
    ``outputs``) → the sha256 of the bytes the run wrote (empty in a manifest recorded before
    hashes were, or of a run without an output folder).
    """

    run_id: str
    command: str
    argv: tuple[str, ...]
    config: dict
    seed: int | None
    corpus_fingerprint: str | None
    inputs: dict[str, str]
    outputs: tuple[str, ...]
    results: dict
    versions: dict[str, str]
    started_at: str
    wall_s: float
    status: str = "ok"
    error: str | None = None
    outcome: str | None = None
    output_sha256: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("run_id", "command", "started_at", "status"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise InputError(f"manifest {name} must be a non-empty string, got {value!r}")
        if any(c.isspace() for c in self.run_id):
            raise InputError(f"manifest run_id must not contain spaces, got {self.run_id!r}")
        if self.error is not None and not isinstance(self.error, str):
            raise InputError(f"manifest error must be a string or None, got {self.error!r}")
        outcome = self.outcome  # any word: a newer ragstat may record one this one lacks
        if outcome is not None and not (isinstance(outcome, str) and outcome.strip()):
            raise InputError(
                f"manifest outcome must be a word such as 'ran' or None, got {outcome!r}"
            )
        fp = self.corpus_fingerprint
        if fp is not None and not isinstance(fp, str):
            raise InputError(f"manifest corpus_fingerprint must be a string or None, got {fp!r}")
        try:
            wall = float(self.wall_s)
        except (TypeError, ValueError):
            wall = math.nan
        if not (math.isfinite(wall) and wall >= 0):
            raise InputError(f"manifest wall_s must be a finite number ≥ 0, got {self.wall_s!r}")
        put = object.__setattr__
        put(self, "wall_s", wall)
        put(self, "seed", _seed(self.seed))
        put(self, "argv", tuple(str(a) for a in self.argv))
        put(self, "outputs", tuple(str(p) for p in self.outputs))
        put(self, "inputs", _str_map(self.inputs, "inputs"))
        put(self, "versions", _str_map(self.versions, "versions"))
        put(self, "output_sha256", _str_map(self.output_sha256, "output_sha256"))
        for name in ("config", "results"):
            value = getattr(self, name)
            if not isinstance(value, Mapping):
                raise InputError(f"manifest {name} must be a mapping, got {type(value).__name__}")
            put(self, name, _plain(value, name))

    def to_dict(self) -> dict:
        """Plain JSON data; ``Manifest.from_dict(m.to_dict()) == m``."""
        out = asdict(self)
        out["argv"] = list(self.argv)
        out["outputs"] = list(self.outputs)
        return out

    @classmethod
    def from_dict(cls, data: Mapping) -> Manifest:
        """A manifest from :meth:`to_dict` output; unknown keys are ignored."""
        if not isinstance(data, Mapping):
            raise InputError(f"a manifest must be a JSON object, got {type(data).__name__}")
        names = [f.name for f in fields(cls)]
        missing = [n for n in names if n not in data and n not in _OPTIONAL]
        if missing:
            raise InputError(f"manifest lacks {', '.join(missing)}")
        return cls(**{n: data[n] for n in names if n in data})

    def to_json(self) -> str:
        """The manifest as strict JSON text (no NaN or Infinity), one trailing newline."""
        return json_text(self.to_dict(), indent=2) + "\n"


def output_folder(m: Manifest) -> Path | None:
    """The run's output folder: where its recorded ``manifest.json`` is (the shortest such
    path, absolute); None for a run that recorded no output folder."""
    found = [Path(p) for p in m.outputs if Path(p).name == MANIFEST_NAME and Path(p).is_absolute()]
    return min(found, key=lambda p: len(p.parts)).parent if found else None


def with_output_hashes(manifest: Manifest, folder: str | Path) -> Manifest:
    """``manifest`` with the sha256 of each output file as staged in ``folder`` (the files a
    run wrote before its output folder is published: an output ``FINAL/x`` is read from
    ``folder/x``). Folders, links and files that are not there are left out."""
    final = output_folder(manifest)
    if final is None:
        return manifest
    hashes = dict(manifest.output_sha256)
    for out in manifest.outputs:
        path = Path(out)
        if (path.name == MANIFEST_NAME and path.parent == final) or out in hashes:
            continue
        try:
            rel = path.relative_to(final)
        except ValueError:
            continue
        staged = Path(folder) / rel
        if ".." not in rel.parts and staged.is_file() and not staged.is_symlink():
            hashes[out] = file_sha256(staged)
    return replace(manifest, output_sha256=hashes)


def write_manifest(manifest: Manifest, folder: str | Path) -> Path:
    """Write ``folder/manifest.json`` atomically, with the sha256 of the output files staged
    in ``folder`` (:func:`with_output_hashes`); returns its path."""
    manifest = with_output_hashes(manifest, folder)
    return atomic_write_text(Path(folder) / MANIFEST_NAME, manifest.to_json())


def read_manifest(folder: str | Path) -> Manifest:
    """The manifest in ``folder`` (or the manifest file itself)."""
    path = Path(folder)
    if path.is_dir():
        path = path / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read manifest {path}: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise InputError(f"manifest {path} is not valid JSON: {exc}") from exc
    try:
        return Manifest.from_dict(data)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from exc
