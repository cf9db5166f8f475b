"""The documentation site (mkdocs.yml, docs/) is whole: the API reference covers every public
name and every type a verb returns, every page is in the navigation and every navigation
entry is a page, every relative link of README.md and docs/ reaches a file, and
``mkdocs build --strict`` passes (slow tier)."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest
import yaml

import ragstat

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REFERENCE = DOCS / "reference"
DIRECTIVE = re.compile(r"^::: ([\w.]+)\s*$", re.M)
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^```.*?^```$", re.M | re.S)
CODE = re.compile(r"`[^`\n]+`")


def _resolve(path: str) -> object:
    """The object a ``::: dotted.path`` names: the longest importable module, then
    attributes."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise AssertionError(f"{path}: no such module")


def _directives() -> dict[str, object]:
    """Every ``::: path`` of docs/reference and the object it names."""
    found = {}
    for page in sorted(REFERENCE.glob("*.md")):
        for path in DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            assert path not in found, f"{path} is documented twice"
            found[path] = _resolve(path)
    return found


def _public() -> dict[str, object]:
    """``ragstat.__all__`` without ``__version__`` (a string, named in the prose)."""
    return {n: getattr(ragstat, n) for n in ragstat.__all__ if n != "__version__"}


def _returned(function: object) -> list[type]:
    """The classes a verb's return annotation names (each member of a union)."""
    hint = typing.get_type_hints(function)["return"]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        return [h for h in typing.get_args(hint) if h is not type(None)]
    return [hint]


# ------------------------------------------------------------------ (a) the API reference


def test_every_public_name_and_returned_type_is_in_the_reference():
    documented = list(_directives().values())
    missing = [n for n, obj in _public().items() if not any(obj is d for d in documented)]
    assert not missing, f"not in docs/reference: {missing}"
    verbs = [obj for obj in _public().values() if inspect.isfunction(obj)]
    assert len(verbs) >= 25  # the verbs, read_source, analyze and aggregate_*
    results = {cls for verb in verbs for cls in _returned(verb)}
    assert all(inspect.isclass(c) for c in results), results
    absent = sorted(c.__qualname__ for c in results if not any(c is d for d in documented))
    assert not absent, f"result types not in docs/reference: {absent}"
    assert "ragstat.__version__" in (REFERENCE / "index.md").read_text(encoding="utf-8")


def test_the_return_types_cover_unions_and_the_errors_are_grouped():
    assert len(_returned(ragstat.compare)) == 2  # paired or two-sample
    assert len(_returned(ragstat.simulate)) == 2  # one census or several studies
    errors = DIRECTIVE.findall((REFERENCE / "errors.md").read_text(encoding="utf-8"))
    assert {e.rsplit(".", 1)[-1] for e in errors} == {
        n for n, obj in _public().items() if inspect.isclass(obj) and issubclass(obj, Exception)
    }


# ------------------------------------------------------------------ (b) the navigation


def _nav_pages(entries: object) -> list[str]:
    """Every page path of an mkdocs ``nav`` (nested lists of {title: path or list})."""
    pages: list[str] = []
    if isinstance(entries, str):
        return [entries]
    if isinstance(entries, dict):
        for value in entries.values():
            pages += _nav_pages(value)
    elif isinstance(entries, list):
        for entry in entries:
            pages += _nav_pages(entry)
    return pages


def _config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def test_every_page_is_in_the_nav_and_every_nav_entry_exists():
    config = _config()
    assert config["docs_dir"] == "docs" and config["theme"]["name"] == "material"
    nav = _nav_pages(config["nav"])
    assert len(nav) == len(set(nav)), "a page is in the nav twice"
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert sorted(set(nav) - pages) == [], "nav entries without a page"
    assert sorted(pages - set(nav)) == [], "pages missing from the nav"
    titles = [next(iter(e)) for e in config["nav"]]
    assert titles[:3] == ["Home", "Getting started", "Tutorials"]
    assert {"User guide", "Formats", "API reference", "Methods", "Limits", "Architecture"} <= set(
        titles
    )


def test_the_tutorials_are_in_the_nav_in_order():
    (tutorials,) = [e["Tutorials"] for e in _config()["nav"] if "Tutorials" in e]
    assert _nav_pages(tutorials) == [
        f"tutorials/{name}.md"
        for name in ("self-retrieval", "compare", "gates", "ppi", "other-tools", "planning")
    ]


# ------------------------------------------------------------------ (d) links


def _pages_with_links() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def _relative_links(page: Path) -> list[str]:
    """The relative link targets of a page's prose (code blocks and spans left out)."""
    prose = CODE.sub("", FENCE.sub("", page.read_text(encoding="utf-8")))
    return [
        target
        for target in LINK.findall(prose)
        if not re.match(r"[a-z]+:", target) and not target.startswith("#")
    ]


@pytest.mark.parametrize("page", _pages_with_links(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_reaches_a_file(page):
    broken = []
    for target in _relative_links(page):
        path = target.split("#", 1)[0]
        if not (page.parent / path).exists():
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def test_the_link_check_sees_links():
    readme = _relative_links(ROOT / "README.md")
    assert "docs/guide/quickstart.md" in readme and "docs/formats/index.md" in readme
    assert not any("formats.md" in t for p in _pages_with_links() for t in _relative_links(p))


# ------------------------------------------------------------------ (c) the build


@pytest.mark.slow
def test_mkdocs_build_strict_passes(tmp_path):
    site = tmp_path / "site"
    res = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert res.returncode == 0, res.stderr[-4000:]
    assert "WARNING" not in res.stderr, res.stderr[-4000:]
    verbs = (site / "reference" / "verbs" / "index.html").read_text(encoding="utf-8")
    for verb in ("interval", "compare", "gate"):
        assert f'id="ragstat.{verb}"' in verbs, verb  # the docstrings were rendered
    assert ":func:" not in verbs and ":class:" not in verbs  # Sphinx roles turned into code
    assert (site / "formats" / "gate" / "index.html").is_file()
