"""Ontology-layer metrics (the RAG reference part 7) over a taxonomy DAG and closed vocabularies.

* :mod:`~ragstat.metrics.ontology.taxonomy` — the validated taxonomy (`Taxonomy`);
* :mod:`~ragstat.metrics.ontology.hierarchy` — hierarchical P/R/F1, Wu–Palmer,
  hierarchy confusion;
* :mod:`~ragstat.metrics.ontology.linking` — entity linking with NIL;
* :mod:`~ragstat.metrics.ontology.conformance` — schema validity, vocabulary conformance.
"""

from ragstat.metrics.ontology.conformance import (
    SchemaValidity,
    VocabularyConformance,
    schema_validity,
    vocabulary_conformance,
)
from ragstat.metrics.ontology.hierarchy import (
    HierarchicalPRF,
    HierarchyConfusion,
    WuPalmer,
    hierarchical_prf,
    hierarchy_confusion,
    wu_palmer,
)
from ragstat.metrics.ontology.linking import EntityLinking, entity_linking
from ragstat.metrics.ontology.taxonomy import RELATIONS, Taxonomy

__all__ = [
    "RELATIONS",
    "EntityLinking",
    "HierarchicalPRF",
    "HierarchyConfusion",
    "SchemaValidity",
    "Taxonomy",
    "VocabularyConformance",
    "WuPalmer",
    "entity_linking",
    "hierarchical_prf",
    "hierarchy_confusion",
    "schema_validity",
    "vocabulary_conformance",
    "wu_palmer",
]
