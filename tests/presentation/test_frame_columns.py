"""Every frame has the columns ``paimon_lens.presentation.frame_columns`` declares, in order, and every cell holds
the kind of value :data:`~paimon_lens.presentation.frame_columns.COLUMN_KINDS` says (checked on Paimon-written
tables, Java 0.9 / 2.0 and pypaimon, and on the advisor's frames)."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import paimon_lens as pl
from paimon_lens.presentation import frame_columns as fc
from paimon_lens.presentation.frame_columns import column_kind
from tests.conftest import FIXTURES

ROOT = Path(__file__).parents[2]
TABLES = [
    ROOT / "data" / "orders_dv20",
    ROOT / "data" / "events20",
    *sorted(p for p in (FIXTURES / "tables").glob("*/warehouse/*.db/*") if (p / "schema").is_dir()),
    *sorted(p for p in (FIXTURES / "pypaimon" / "warehouse" / "db.db").iterdir() if (p / "schema").is_dir()),
]


def _is_int(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_)):
        return False
    if isinstance(v, (int, np.integer)):
        return True
    return isinstance(v, (float, np.floating)) and float(v).is_integer()  # an int column next to a null


_CHECKS = {
    "int": _is_int,
    "number": lambda v: not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, float, np.integer, np.floating)),
    "str": lambda v: isinstance(v, str),
    "bool": lambda v: isinstance(v, (bool, np.bool_)),
    "time": lambda v: isinstance(v, (pd.Timestamp, dt.datetime)),
    "dict": lambda v: isinstance(v, dict),
    "list": lambda v: isinstance(v, (list, tuple)),
    "any": lambda v: isinstance(v, (int, float, str, bytes, bool, Decimal, dt.date, dt.time, dt.datetime, list,
                                    dict, pd.Timestamp, np.generic)),
}


def _null(v: Any) -> bool:
    if v is None or v is pd.NaT:
        return True
    if isinstance(v, (float, np.floating)) and math.isnan(v):
        return True
    return bool(v is pd.NA)


def check_frame(frame: pd.DataFrame, declared: dict[str, str] | None, where: str, extra_ok: bool = False) -> None:
    """Columns as declared (in order; ``extra_ok``: more may follow) and every cell of its kind."""
    if declared is not None:
        got = list(frame.columns)
        assert got[:len(declared)] == list(declared), where
        assert extra_ok or len(got) == len(declared), (where, got[len(declared):])
    for col in frame.columns:
        kind = column_kind(str(col))
        assert kind is not None, f"{where}: column {col!r} has no kind in frame_columns.COLUMN_KINDS"
        check = _CHECKS[kind]
        bad = [v for v in frame[col].tolist() if not _null(v) and not check(v)]
        assert not bad, f"{where}: column {col!r} ({kind}) holds {bad[:3]!r}"


@pytest.mark.parametrize("path", TABLES, ids=lambda p: p.name)
def test_table_frames(path: Path) -> None:
    t = pl.open_table(str(path))
    where = path.name
    check_frame(t.snapshots(), fc.SNAPSHOT_COLUMNS, f"{where} snapshots")
    check_frame(t.schemas(), fc.SCHEMA_COLUMNS, f"{where} schemas")
    check_frame(t.manifests(), fc.MANIFEST_COLUMNS, f"{where} manifests")
    files = t.files()
    check_frame(files, fc.FILE_COLUMNS, f"{where} files", extra_ok=True)
    assert all(str(c).split("(")[0] in ("min", "max", "null_count") for c in files.columns[len(fc.FILE_COLUMNS):])
    check_frame(t.index_manifest(), fc.INDEX_MANIFEST_COLUMNS, f"{where} index_manifest")
    check_frame(t.deletion_vectors(), fc.DELETION_VECTOR_COLUMNS, f"{where} deletion_vectors")
    check_frame(t.hash_index(), fc.HASH_INDEX_COLUMNS, f"{where} hash_index")
    indexes = t.file_indexes()
    check_frame(indexes, fc.FILE_INDEX_COLUMNS, f"{where} file_indexes", extra_ok=True)
    for column in sorted(set(indexes.loc[indexes["index_type"] == "bitmap", "column"])):
        check_frame(t.bitmap_values(column), fc.BITMAP_VALUE_COLUMNS, f"{where} bitmap_values({column})")
    first = t.schema.fields[0].name
    report = t.explain(f"{first} IS NOT NULL", truth=True)
    check_frame(report.to_frame(), fc.EXPLAIN_COLUMNS, f"{where} explain")


def test_index_summaries_have_kinds() -> None:
    """Every field of every index type's summary is a declared column kind."""
    import dataclasses

    from paimon_lens.formats.bitmap import BitmapIndexSummary
    from paimon_lens.formats.bloom import BloomFilterInfo
    from paimon_lens.formats.bsi import BsiSummary
    from paimon_lens.formats.range_bitmap import RangeBitmapSummary

    for cls in (BitmapIndexSummary, BloomFilterInfo, BsiSummary, RangeBitmapSummary):
        names = [f.name for f in dataclasses.fields(cls)] + list(cls.derived)
        assert [n for n in names if column_kind(n) is None and column_kind(f"index_{n}") is None] == [], cls


def test_advisor_frames() -> None:
    t = pl.open_table(str(ROOT / "data" / "events20"))
    rec = pl.recommend(t, str(ROOT / "data" / "events20.workload.sql"))
    check_frame(rec.frame(), fc.RECOMMENDATION_COLUMNS, "recommendations")
    check_frame(rec.tradeoff_frame(), fc.TRADEOFF_COLUMNS, "tradeoffs")
    check_frame(rec.whatif.frame(), fc.WHATIF_COLUMNS, "whatif")
    check_frame(rec.whatif.query_frame(), fc.QUERY_COLUMNS, "whatif queries")
    check_frame(rec.whatif.threshold_frame(), fc.THRESHOLD_COLUMNS, "thresholds")
    check_frame(rec.profile.columns_frame(), fc.COLUMN_FRAME_COLUMNS, "profile columns")
    check_frame(rec.profile.files_frame(), fc.FILE_FRAME_COLUMNS, "profile files")
    derived = pl.recommend(t)
    check_frame(derived.workload.queries_frame(), fc.DERIVED_QUERY_COLUMNS, "derived workload")
    check_frame(t.findings(str(ROOT / "data" / "events20.workload.sql")), fc.FINDING_COLUMNS, "findings")
    check_frame(pl.open_table(str(ROOT / "data" / "demo_orders")).findings(), fc.FINDING_COLUMNS, "findings")


def test_index_inventory_columns() -> None:
    from paimon_lens.presentation.report import index_inventory

    t = pl.open_table(str(ROOT / "data" / "events20"))
    check_frame(index_inventory(t.file_indexes(), len(t.live_files())), fc.INDEX_INVENTORY_COLUMNS, "inventory")
    check_frame(index_inventory(t.file_indexes().iloc[:0], 0), fc.INDEX_INVENTORY_COLUMNS, "empty inventory")


def test_unknown_kind_is_reported() -> None:
    frame = pd.DataFrame({"file_name": ["a"], "no_such_column": [1]})
    with pytest.raises(AssertionError, match="no_such_column"):
        check_frame(frame, None, "made up")
    with pytest.raises(AssertionError, match="row_count"):
        check_frame(pd.DataFrame({"row_count": ["ten"]}), None, "made up")


def test_the_file_index_frame_starts_with_the_index_records_own_fields() -> None:
    """The local frame, the Spark frame and the ``index_`` renaming of summary fields all follow
    ``INDEX_FIELDS``; the frame declares the same columns."""
    from paimon_lens.distributed.spark_plan import INDEX_BASE_FIELDS
    from paimon_lens.inventory.file_indexes import INDEX_FIELDS

    assert tuple(fc.FILE_INDEX_COLUMNS) == INDEX_FIELDS
    assert tuple(name for name, _ in INDEX_BASE_FIELDS) == INDEX_FIELDS
