"""`ragstat study` on a folder never reads a symbolic link that leaves it (listed with the
reason in documents.parquet) unless ``--follow-symlinks`` says so."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ragstat.cli import main


def _folder(root: Path, outside: Path) -> Path:
    corpus = root / "corpus"
    corpus.mkdir()
    for name, word in (
        ("a.txt", "alpha"),
        ("b.txt", "beta"),
        ("c.txt", "gamma"),
        ("d.txt", "delta"),
    ):
        (corpus / name).write_text(
            " ".join(f"{word}{i % 37}" for i in range(400)), encoding="utf-8"
        )
    outside.write_text("SECRET " * 400, encoding="utf-8")
    (corpus / "leak.txt").symlink_to(outside)
    return corpus


def _documents(out: Path) -> pd.DataFrame:
    return pd.read_parquet(out / "documents.parquet")


def test_a_symlink_out_of_the_corpus_folder_is_not_read(tmp_path, capsys):
    corpus = _folder(tmp_path, tmp_path / "private.txt")
    assert main(["study", str(corpus), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    docs = _documents(tmp_path / "o")
    leak = docs[docs["source"] == "leak.txt"]
    assert len(leak) == 1 and leak["chunks"].iloc[0] == 0
    assert "outside the corpus folder" in leak["reason"].iloc[0]
    assert "--follow-symlinks" in leak["reason"].iloc[0]
    records = pd.read_parquet(tmp_path / "o" / "records.parquet")
    assert "leak.txt" not in set(records["doc_id"])
    capsys.readouterr()


def test_follow_symlinks_reads_it_on_purpose(tmp_path, capsys):
    corpus = _folder(tmp_path, tmp_path / "private.txt")
    argv = ["study", str(corpus), "--out", str(tmp_path / "o"), "--quiet", "--follow-symlinks"]
    assert main(argv) == 0
    docs = _documents(tmp_path / "o")
    assert "leak.txt" in set(docs["doc_id"].dropna())
    capsys.readouterr()
