"""Text analysis: accent folding, tokens, stopwords and Snowball stemming (pt and en)."""

from __future__ import annotations

import copy
import pickle
import threading
import unicodedata

import pytest

from ragstat.corpus import Analyzer, chunk_corpus, fold_accents, load_jsonl, stopword_set
from ragstat.errors import InputError

DECOMPOSED = "ac\u0327a\u0303o"  # "ação" in NFD: c + cedilla, a + tilde


def test_decomposed_input_really_is_decomposed():
    assert len(DECOMPOSED) == 6 and unicodedata.normalize("NFC", DECOMPOSED) == "ação"


def test_default_folds_accents_and_case():
    analyze = Analyzer()
    assert analyze("Ação AÇÃO ação " + DECOMPOSED) == ["acao"] * 4
    assert analyze("Regulação, São Paulo; ÓRGÃO-público_2021!") == [
        "regulacao",
        "sao",
        "paulo",
        "orgao",
        "publico_2021",
    ]
    assert analyze("ﬁm nº 1.000 İstanbul") == ["fim", "no", "1", "000", "istanbul"]
    assert analyze("") == [] and analyze("  ... ") == []


def test_fold_accents():
    assert fold_accents("Ação " + DECOMPOSED) == "Acao acao"
    assert fold_accents("plain ascii") == "plain ascii"
    assert fold_accents("Müller ñandú Øre") == "Muller nandu Øre"  # Ø has no decomposition


def test_portuguese_stopwords_without_stemmer():
    analyze = Analyzer(stopwords="pt")
    assert analyze("A regulação de energia da ANEEL não é nova") == [
        "regulacao",
        "energia",
        "aneel",
        "nova",
    ]
    # unaccented and decomposed spellings of a stopword are dropped too
    assert analyze("nao na\u0303o NÃO") == []


def test_portuguese_stemmer_conflates_inflections():
    analyze = Analyzer(stemmer="pt")
    regulacao, regulacoes, upper, decomposed = (
        analyze(w)[0] for w in ("regulação", "regulações", "REGULAÇÃO", "regulac\u0327a\u0303o")
    )
    assert regulacao == regulacoes == upper == decomposed
    assert regulacao.isascii()  # stems are folded after stemming
    assert analyze("distribuidora distribuidoras")[0] == analyze("distribuidoras")[0]
    assert analyze("Ação AÇÃO " + DECOMPOSED) == [analyze("ação")[0]] * 3


def test_portuguese_stemmer_with_stopwords():
    analyze = Analyzer(stopwords="pt", stemmer="pt")
    tokens = analyze("As regulações da energia não são de hoje")
    assert tokens == analyze("regulações energia hoje")
    assert "de" not in tokens and "da" not in tokens and "nao" not in tokens
    assert analyze("NÃO nao na\u0303o") == []


def test_english_pipeline():
    assert Analyzer(stopwords="en")("The Regulation of the Market") == ["regulation", "market"]
    analyze = Analyzer(stopwords="en", stemmer="en")
    assert analyze("The regulations are regulating and RUNNING") == analyze(
        "regulation regulate run"
    )
    assert analyze("Café résumé naïve") == ["cafe", "resume", "naiv"]


def test_stopword_sets_hold_folded_and_listed_forms():
    pt = stopword_set("pt")
    assert {"de", "da", "não", "nao", "é", "e", "você", "voce"} <= pt
    assert {"the", "of", "and"} <= stopword_set("en")
    assert all(w == w.lower() for w in pt)


@pytest.mark.parametrize("kwargs", [{"stopwords": "fr"}, {"stemmer": "portuguese"}, {"stemmer": 1}])
def test_bad_settings(kwargs):
    with pytest.raises(InputError, match="must be one of 'pt', 'en' or 'none'"):
        Analyzer(**kwargs)


def test_none_string_settings_and_equality():
    assert Analyzer("none", "none") == Analyzer()
    assert Analyzer(stemmer="pt") != Analyzer()
    assert hash(Analyzer("pt", "pt")) == hash(Analyzer("pt", "pt"))
    assert Analyzer("pt", None).to_dict()["stemmer"] == "none"


def test_many_pickle_and_deepcopy():
    analyze = Analyzer(stopwords="pt", stemmer="pt")
    texts = ["Regulação da energia", "", "AÇÃO " + DECOMPOSED]
    expected = [analyze(t) for t in texts]
    assert analyze.many(texts) == expected
    for clone in (pickle.loads(pickle.dumps(analyze)), copy.deepcopy(analyze)):
        assert clone == analyze and clone.many(texts) == expected


def test_threads_share_one_analyzer():
    analyze = Analyzer(stemmer="pt")
    texts = [f"regulações distribuidoras palavra{i} ação" for i in range(2000)]
    expected = [Analyzer(stemmer="pt")(t) for t in texts]
    results: dict[int, list[list[str]]] = {}

    def work(k: int) -> None:
        results[k] = analyze.many(texts)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == expected for r in results.values())


def test_many_on_planalto(shared):
    """The whole planalto corpus through both analyzers (speed is benchmarks/' business: a timed
    assertion here failed on a loaded machine)."""
    table = chunk_corpus(load_jsonl(shared / "data" / "planalto-leis.jsonl"), 100)
    for analyze in (Analyzer(), Analyzer(stopwords="pt", stemmer="pt")):
        tokens = analyze.many(table.text)
        assert len(tokens) == len(table) and sum(map(len, tokens)) > 300_000
