"""Write tests/reference/teds_reference.json: TEDS and TEDS-S from the reference code.

Runs the ``table-recognition-metric`` package (PubTabNet's TEDS class, repackaged; |T| =
the nodes of the scored tree) and PubTabNet's own ``src/metric.py`` count (|T| = every
element below ``<table>``) on the table pairs below, so tests/test_extraction_tables.py
can hold ragstat's TEDS to them without installing either. Needs lxml, apted,
Levenshtein and table-recognition-metric, e.g. in a throwaway venv:

    python -m venv /tmp/teds && /tmp/teds/bin/pip install table-recognition-metric
    /tmp/teds/bin/python scripts/make_teds_fixture.py [--out PATH]

Both implementations need the table inside ``<html><body>``; the pairs are wrapped here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from apted import APTED
from lxml import html
from table_recognition_metric import TEDS
from table_recognition_metric.utils import CustomConfig

OUT = Path(__file__).resolve().parents[1] / "tests" / "reference" / "teds_reference.json"

H2 = "<thead><tr><td>Name</td><td>Rate</td></tr></thead>"
PAIRS: dict[str, tuple[str, str]] = {
    "identical": (
        f"<table>{H2}<tbody><tr><td>VAT</td><td>20 %</td></tr></tbody></table>",
        f"<table>{H2}<tbody><tr><td>VAT</td><td>20 %</td></tr></tbody></table>",
    ),
    "one_cell_typo": (
        f"<table>{H2}<tbody><tr><td>VAT</td><td>2O %</td></tr></tbody></table>",
        f"<table>{H2}<tbody><tr><td>VAT</td><td>20 %</td></tr></tbody></table>",
    ),
    "missing_row": (
        f"<table>{H2}<tbody><tr><td>VAT</td><td>20 %</td></tr></tbody></table>",
        f"<table>{H2}<tbody><tr><td>VAT</td><td>20 %</td></tr>"
        "<tr><td>Books</td><td>5 %</td></tr></tbody></table>",
    ),
    "colspan_lost": (
        "<table><thead><tr><td>Year</td><td>Q1</td><td>Q2</td></tr></thead>"
        "<tbody><tr><td>2024</td><td>10</td><td>12</td></tr></tbody></table>",
        '<table><thead><tr><td>Year</td><td colspan="2">Quarter</td></tr></thead>'
        "<tbody><tr><td>2024</td><td>10</td><td>12</td></tr></tbody></table>",
    ),
    "rowspan_and_colspan": (
        '<table><tbody><tr><td rowspan="2">A</td><td colspan="2">B</td></tr>'
        "<tr><td>c</td><td>d</td></tr></tbody></table>",
        '<table><tbody><tr><td rowspan="2">A</td><td colspan="2">B</td></tr>'
        "<tr><td>c</td><td>e</td></tr></tbody></table>",
    ),
    "empty_cells": (
        "<table><tbody><tr><td></td><td>x</td></tr><tr><td></td><td></td></tr></tbody></table>",
        "<table><tbody><tr><td></td><td>x</td></tr><tr><td>y</td><td></td></tr></tbody></table>",
    ),
    "entirely_different": (
        "<table><tbody><tr><td>alpha</td></tr></tbody></table>",
        "<table><thead><tr><td>Name</td><td>Age</td><td>City</td></tr></thead>"
        "<tbody><tr><td>Ana</td><td>31</td><td>Porto</td></tr>"
        "<tr><td>Rui</td><td>45</td><td>Braga</td></tr></tbody></table>",
    ),
    "inline_markup": (
        f"<table>{H2}<tbody><tr><td><b>VAT</b></td><td>20<sup>a</sup> %</td></tr></tbody></table>",
        f"<table>{H2}<tbody><tr><td>VAT</td><td>20 %</td></tr></tbody></table>",
    ),
    "header_cells_th": (
        "<table><thead><tr><th>Name</th><th>Rate</th></tr></thead>"
        "<tbody><tr><td>VAT</td><td>20 %</td></tr></tbody></table>",
        "<table><thead><tr><th>Nome</th><th>Taxa</th></tr></thead>"
        "<tbody><tr><td>IVA</td><td>23 %</td></tr></tbody></table>",
    ),
    "no_tbody": (
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>",
        "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>",
    ),
    "unicode_and_entities": (
        "<table><tbody><tr><td>São Paulo &amp; Rio</td><td>€ 5</td></tr></tbody></table>",
        "<table><tbody><tr><td>Sao Paulo &amp; Rio</td><td>€5</td></tr></tbody></table>",
    ),
    "unclosed_cells": (
        "<table><tbody><tr><td>a<td>b<tr><td>c<td>d</tbody></table>",
        "<table><tbody><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></tbody></table>",
    ),
    "line_break_in_cell": (
        "<table><tbody><tr><td>first<br>second</td></tr></tbody></table>",
        "<table><tbody><tr><td>first second</td></tr></tbody></table>",
    ),
}


def _pubtabnet_count(pred: str, ref: str, structure_only: bool) -> float:
    """PubTabNet src/metric.py: the same distance over ``len(table.xpath('.//*'))``."""
    teds = TEDS(structure_only=structure_only)
    parser = html.HTMLParser(remove_comments=True, encoding="utf-8")
    p = html.fromstring(pred, parser=parser).xpath("body/table")[0]
    r = html.fromstring(ref, parser=parser).xpath("body/table")[0]
    n_nodes = max(len(p.xpath(".//*")), len(r.xpath(".//*")))
    tp, tr = teds.load_html_tree(p), teds.load_html_tree(r)
    distance = APTED(tp, tr, CustomConfig()).compute_edit_distance()
    return 1.0 - float(distance) / n_nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    rows = []
    for name, (pred, ref) in PAIRS.items():
        wp, wr = f"<html><body>{pred}</body></html>", f"<html><body>{ref}</body></html>"
        rows.append(
            {
                "name": name,
                "pred": pred,
                "ref": ref,
                "teds": TEDS()(wp, wr),
                "teds_s": TEDS(structure_only=True)(wp, wr),
                "teds_pubtabnet": _pubtabnet_count(wp, wr, False),
                "teds_s_pubtabnet": _pubtabnet_count(wp, wr, True),
            }
        )
    doc = {
        "source": "table-recognition-metric 0.0.6 (PubTabNet TEDS); PubTabNet src/metric.py count",
        "pairs": rows,
    }
    args.out.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
