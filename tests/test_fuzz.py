"""Mutation fuzzing over every Paimon-written fixture: bad bytes give a typed error, nothing else.

Each fixture file (column index blobs, containers, ``.index`` files, embedded indexes,
deletion-vector files and blobs, HASH index files, manifests) is mutated many times (bit flips,
byte overwrites, extreme 32-bit values, truncation, insertion) and fully decoded: container head,
every index reader, its summary and a few predicates. The only exception allowed is
:class:`~paimon_lens.errors.PaimonLensError`; each decode must also finish quickly (no hang).

``PAIMON_LENS_FUZZ=N`` sets the mutations per fixture (default 1000; the recorded long run in
``benchmarks/RESULTS.md`` used 5000).
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from paimon_lens.errors import PaimonLensError
from paimon_lens.formats.deletion_vector import read_dv_index_file, read_serialized_deletion_vector
from paimon_lens.formats.file_index_format import FileIndexFormatReader, index_field_type
from paimon_lens.formats.hash_index import read_hash_index
from paimon_lens.formats.registry import create_reader
from paimon_lens.inventory.file_indexes import summarize
from paimon_lens.io.fileio import LocalFileIO
from paimon_lens.metadata.manifest import read_manifest
from paimon_lens.metadata.schema import SchemaManager
from paimon_lens.metadata.stats import decode_stats, stats_fields
from paimon_lens.predicate.model import LeafPredicate
from paimon_lens.pruning.file_index_predicate import index_answer
from paimon_lens.types import DataField, DataType, parse_type
from tests.conftest import FIXTURES, BytesFileIO, load_json

ITERATIONS = int(os.environ.get("PAIMON_LENS_FUZZ", "1000"))
SLOW_SECONDS = 2.0
EXTREMES = [b"\x7f\xff\xff\xff", b"\x80\x00\x00\x00", b"\xff\xff\xff\xff", b"\x00\x00\x00\x00", b"\x00\x00\x00\x01"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three random mutations of ``data``."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        if not b:
            b += bytes([rng.randrange(256)])
            continue
        i = rng.randrange(len(b))
        if op == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[i] = rng.randrange(256)
        elif op == 2:
            b[i:i + 4] = rng.choice(EXTREMES)
        elif op == 3:
            del b[i:]
        elif op == 4:
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        else:
            j = rng.randrange(len(b))
            b[i:i + 8] = b[j:j + 8]
    return bytes(b)


def _probe(reader: object, dtype: DataType, name: str) -> None:
    summarize(reader)  # type: ignore[arg-type]
    sample = {"STRING": "a", "INT": 1, "BIGINT": 1, "TINYINT": 1, "SMALLINT": 1}.get(dtype.root if not dtype.is_string
                                                                                      else "STRING")
    for fn, lits in (("IsNull", ()), ("IsNotNull", ()), ("Equal", (sample,)), ("LessThan", (sample,))):
        if lits and sample is None:
            continue
        index_answer(reader, LeafPredicate(fn, name, 0, dtype, lits))  # type: ignore[arg-type]


def decode_container(data: bytes, fields: list[DataField]) -> None:
    container = FileIndexFormatReader(data, "fuzz")
    for col in container.layout.columns:
        dtype = index_field_type(fields, col.column)
        if dtype is None:
            continue
        for entry in col.indexes:
            if entry.empty:
                continue
            reader = create_reader(entry.index_type, dtype, container.read_entry(entry) or b"", "fuzz", entry.start)
            _probe(reader, dtype, col.column)


def _blob_decoder(index_type: str, dtype: DataType) -> Callable[[bytes], None]:
    def run(data: bytes) -> None:
        _probe(create_reader(index_type, dtype, data, "fuzz"), dtype, "c")
    return run


def _cases() -> list[tuple[str, Path, Callable[[bytes], None]]]:
    cases: list[tuple[str, Path, Callable[[bytes], None]]] = []
    for case in sorted(FIXTURES.glob("blobs/**/case.json")):
        c = load_json(case)
        d = case.parent
        if "deletion_vectors" in c:
            cases.append(("dv-file", d / c["index_file"], lambda b: read_dv_index_file(b, "fuzz") and None))
            for v in c["deletion_vectors"]:
                cases.append(("dv-blob", d / v["serialized_file"],
                              lambda b: read_serialized_deletion_vector(b, "fuzz") and None))
            continue
        fields = [DataField(f["id"], f["name"], parse_type(f["type"])) for f in c["row_type"]]
        types = {f.name: f.type for f in fields}
        cases.append(("container", d / "container.index", lambda b, fs=fields: decode_container(b, fs)))
        for blob in sorted((d / "columns").glob("*.bin")):
            col, index_type, _ = blob.name.rsplit(".", 2)
            cases.append((index_type, blob, _blob_decoder(index_type, types[col])))
    for oracle in sorted(FIXTURES.glob("tables*/*/oracle_*.json")):
        o = load_json(oracle)
        tdir = oracle.parent / o["table"]["path"]
        schemas = SchemaManager(LocalFileIO(), str(tdir))
        for f in o["files"]:
            if f["file_index"].get("location") == "external":
                fields = list(schemas.schema(f["schema_id"]).fields)
                cases.append(("index-file", tdir / f["file_index"]["file"],
                              lambda b, fs=fields: decode_container(b, fs)))
        for e in o["index_manifest_entries"]:
            if e["index_type"] == "HASH":
                cases.append(("hash", tdir / e["path"], lambda b: read_hash_index(b, "fuzz") and None))
            else:
                cases.append(("dv-file", tdir / e["path"], lambda b: read_dv_index_file(b, "fuzz") and None))
        manifest = sorted((tdir / "manifest").glob("manifest-[0-9a-f]*"))[0]
        cases.append(("manifest", manifest, lambda b, s=schemas: _decode_manifest(b, s)))
    return cases


def _decode_manifest(data: bytes, schemas: SchemaManager) -> None:
    for e in read_manifest(BytesFileIO(data), "manifest", "fuzz"):
        f = e.file
        try:
            schema = schemas.schema(f.schema_id)
            fields = stats_fields(f, schema)
        except (PaimonLensError, KeyError):
            continue
        decode_stats(f.value_stats, fields, "fuzz")
        if f.embedded_index is not None:
            decode_container(f.embedded_index.read(), list(schema.fields))


CASES = _cases()


def test_every_kind_of_fixture_is_fuzzed() -> None:
    kinds = {k for k, _, _ in CASES}
    # bloom filters have no standalone blobs: they are fuzzed inside containers and manifests
    assert {"container", "bitmap", "range-bitmap", "bsi", "index-file", "dv-file", "dv-blob", "hash",
            "manifest"} <= kinds
    assert len(CASES) > 150


@pytest.mark.parametrize("case", CASES, ids=[f"{k}:{p.relative_to(FIXTURES)}" for k, p, _ in CASES])
def test_mutations_raise_only_typed_errors(case: tuple[str, Path, Callable[[bytes], None]]) -> None:
    kind, path, decode = case
    data = path.read_bytes()
    decode(data)  # the original decodes
    rng = random.Random(f"{kind}:{path.name}")
    for _ in range(ITERATIONS):
        bad = mutate(data, rng)
        start = time.perf_counter()
        with contextlib.suppress(PaimonLensError):
            decode(bad)
        took = time.perf_counter() - start
        assert took < SLOW_SECONDS, f"{path.name}: decoding a mutation took {took:.1f}s"
