"""The writers rebuild every file index the Paimon-written fixture tables store.

For every live data file of every snapshot with an index (embedded in the manifest or in a
``.index`` file), the file's columns are read and each index entry of its container is built
again from those values with the options of the schema the file was written with; the bytes must
be identical. Where every index of the container can be built (no map-key ``col[key]`` index,
which paimon-lens does not write), the whole container of a Paimon 2.0 table is rebuilt and
compared too (the writer lays containers out as 2.0 does; Paimon 0.9 put the same entries in
another column order, so for the 0.9 tables the entries are compared one by one). A bitmap
index whose version the options leave open gets the version the stored entry has (Paimon 0.9
wrote V1, 2.0 writes V2). Bitmap V1 orders its values by a Java ``HashMap`` of the writing JVM,
which paimon-lens emulates: those bytes are compared as they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import paimon_lens
from paimon_lens.formats.file_index_format import FileIndexFormatReader
from paimon_lens.pruning.truth import read_columns
from paimon_lens.writer.file_index import IndexSpec, build_container, make_index_writer, parse_index_options

FIXTURES = Path(__file__).parent.parent / "fixtures"
TABLES = sorted(p.parent.parent for p in FIXTURES.glob("tables*/*/warehouse/*/*/schema/schema-0")
                if any('"file-index.' in s.read_text(encoding="utf-8") for s in p.parent.glob("schema-*")))


def _stored(table: Any, lf: Any) -> bytes | None:
    f = lf.entry.file
    if f.embedded_index is not None:
        return f.embedded_index.read()
    rel = lf.index_file_path
    return None if rel is None else table.file_io.read_bytes(table.file_io.join(table.path, rel))


def _with_stored_version(spec: IndexSpec, entry: bytes | None) -> IndexSpec:
    if spec.index_type != "bitmap" or "version" in spec.options or not entry:
        return spec
    return IndexSpec(spec.column, spec.index_type, {**spec.options, "version": str(entry[0])})


@pytest.mark.parametrize("root", TABLES, ids=lambda p: p.name)
def test_rebuilt_indexes_equal_the_stored_ones(root: Path) -> None:
    table = paimon_lens.open_table(str(root))
    entries = containers = 0
    seen: set[str] = set()
    for snapshot_id in sorted(int(x) for x in table.snapshots()["snapshot_id"]):
        t = table.at(snapshot_id)
        for lf in t.live_files():
            if lf.path in seen:
                continue
            seen.add(lf.path)
            stored = _stored(t, lf)
            if stored is None:
                continue
            reader = FileIndexFormatReader(stored)
            schema = t.schema_manager.schema(lf.entry.file.schema_id)
            by_name = {f.name: f for f in schema.fields}
            specs = [s for s in parse_index_options(dict(schema.options)) if "[" not in s.column]
            specs = [_with_stored_version(s, reader.read_index_bytes(s.column, s.index_type)) for s in specs]
            raw = read_columns(t, lf, [by_name[s.column].id for s in specs])
            values = {f.name: raw[f.id] for f in schema.fields if f.id in raw}
            for spec in specs:
                want = reader.read_index_bytes(spec.column, spec.index_type)
                writer = make_index_writer(spec, by_name[spec.column].type)
                writer.write_many(list(values[spec.column]))
                got = writer.serialized_bytes()
                if want is None:  # the empty-index flag: Paimon stores no bytes when the file has no value
                    assert got is None or not any(v is not None for v in values[spec.column]), lf.path
                else:
                    assert got == want, f"{lf.path} {spec.column} {spec.index_type}"
                entries += 1
            if "tables20" in root.parts and all("[" not in c for c in reader.column_names()):
                assert build_container(specs, schema.fields, values) == stored, lf.path
                containers += 1
    assert entries > 0, f"{root.name}: no stored index was checked"
    if "tables20" in root.parts and root.name != "events20":  # events20's containers all hold a map-key index
        assert containers > 0
