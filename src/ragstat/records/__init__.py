"""Per-query records and their per-document sufficient statistics."""

from ragstat.records.aggregate import aggregate_arrays, aggregate_frame
from ragstat.records.docstats import DocStats, LagSums, QueryScores
from ragstat.records.files import (
    aggregate_file,
    dataset_files,
    load_query_scores,
    table_columns,
    table_schema,
)
from ragstat.records.paired import ON_MISSING, PairedTable, Pairing, pair_files
from ragstat.records.population import read_population_counts
from ragstat.records.scale import aggregate_dataset, aggregate_path

__all__ = [
    "ON_MISSING",
    "DocStats",
    "LagSums",
    "PairedTable",
    "Pairing",
    "QueryScores",
    "aggregate_arrays",
    "aggregate_dataset",
    "aggregate_file",
    "aggregate_frame",
    "aggregate_path",
    "dataset_files",
    "load_query_scores",
    "pair_files",
    "read_population_counts",
    "table_columns",
    "table_schema",
]
