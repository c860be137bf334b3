"""``t.inspect``: every frame in one namespace, on a Table or on a bare snapshot reader alike."""

from __future__ import annotations

import pandas.testing as pdt
import pytest

import paimon_lens as pl
from paimon_lens.metadata.snapshot_reader import open_reader
from paimon_lens.presentation.lens_frame import LensFrame
from paimon_lens.table.inspect import InspectTable

FRAMES = ["snapshots", "schemas", "manifests", "files", "index_manifest", "file_indexes", "bloom_filters",
          "range_bitmaps", "deletion_vectors", "hash_index"]


@pytest.mark.parametrize("table", ["data/events20", "data/orders_dv20"])
def test_inspect_frames_equal_the_table_methods(table: str) -> None:
    t = pl.open_table(table)
    reader = InspectTable(open_reader(table))  # no engine, no Table: the local engine
    for name in FRAMES:
        frame = getattr(t.inspect, name)()
        assert isinstance(frame, LensFrame), name
        pdt.assert_frame_equal(frame, getattr(t, name)(), obj=name)
        pdt.assert_frame_equal(frame, getattr(reader, name)(), obj=name)
    values = t.inspect.bitmap_values("status")
    pdt.assert_frame_equal(values, reader.bitmap_values("status"))
    assert len(values) > 0  # both Paimon-written tables carry bitmap indexes on status
    with pytest.raises(pl.PaimonLensError, match="no column 'nope'"):
        t.inspect.bitmap_values("nope")
