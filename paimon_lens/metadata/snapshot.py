"""Snapshots (``snapshot/snapshot-N``), tags (``tag/tag-NAME``) and snapshot selection."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import CorruptFileError, PaimonLensError, SnapshotNotFoundError
from ..io.fileio import MAX_JSON_BYTES, FileIO, read_file
from .paths import MAIN_BRANCH, branch_root


@dataclass(frozen=True)
class Snapshot:
    """One snapshot file (Paimon's ``Snapshot``); ``raw`` keeps every field as written."""

    id: int
    schema_id: int
    base_manifest_list: str
    delta_manifest_list: str
    changelog_manifest_list: str | None
    index_manifest: str | None
    commit_user: str | None
    commit_identifier: int | None
    commit_kind: str | None
    time_millis: int
    total_record_count: int | None
    delta_record_count: int | None
    changelog_record_count: int | None
    watermark: int | None
    version: int | None
    next_row_id: int | None
    path: str = ""
    tag: str | None = None
    raw: dict[str, Any] = field(default_factory=dict, hash=False, compare=False, repr=False)

    @staticmethod
    def from_json(obj: dict[str, Any], path: str = "", tag: str | None = None) -> Snapshot:
        """Build from a parsed snapshot (or tag) file; a field Paimon writes that is missing or of
        another JSON type is a :class:`CorruptFileError` naming it."""
        def get(key: str, kind: type, required: bool = False) -> Any:
            return json_field(obj, key, kind, path, "snapshot", required)

        return Snapshot(
            id=get("id", int, True), schema_id=get("schemaId", int, True),
            base_manifest_list=get("baseManifestList", str, True),
            delta_manifest_list=get("deltaManifestList", str, True),
            changelog_manifest_list=get("changelogManifestList", str), index_manifest=get("indexManifest", str),
            commit_user=get("commitUser", str), commit_identifier=get("commitIdentifier", int),
            commit_kind=get("commitKind", str), time_millis=get("timeMillis", int, True),
            total_record_count=get("totalRecordCount", int), delta_record_count=get("deltaRecordCount", int),
            changelog_record_count=get("changelogRecordCount", int), watermark=get("watermark", int),
            version=get("version", int), next_row_id=get("nextRowId", int), path=path, tag=tag, raw=obj,
        )


def load_json_object(raw: bytes, path: str, what: str) -> dict[str, Any]:
    """The JSON object in ``raw``: :class:`CorruptFileError` for anything else (bad UTF-8 or JSON,
    another JSON type, nesting too deep to parse).

    A string holding a lone UTF-16 surrogate (``"\\ud800"``, which Java writes for a broken
    ``String`` and which no UTF-8 text can hold) keeps it as the escape text ``\\ud800``, so
    that frames, JSON output and HTML can show it.
    """
    try:
        obj = json.loads(raw)
    except ValueError as e:
        raise CorruptFileError(path, getattr(e, "pos", None), what, detail=str(e)) from None
    except RecursionError:
        raise CorruptFileError(path, None, what, detail="nested too deeply to parse") from None
    if not isinstance(obj, dict):
        raise CorruptFileError(path, 0, what, "an object", type(obj).__name__)
    if _MAYBE_SURROGATE.search(raw):
        obj = _escape_surrogates(obj)
    return obj


#: a ``\uD800``-``\uDFFF`` escape, or the (invalid) UTF-8 bytes of a surrogate
_MAYBE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def _escape_surrogates(value: Any) -> Any:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {_escape_surrogates(k): _escape_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_escape_surrogates(v) for v in value]
    return value


def json_field(obj: dict[str, Any], key: str, kind: type, path: str | None, what: str,
               required: bool = False) -> Any:
    """``obj[key]`` checked to be a ``kind`` (an int is not a bool); None when absent or null and
    not ``required``."""
    value = obj.get(key)
    if value is None:
        if required:
            raise CorruptFileError(path, None, f"{what} field {key}", kind.__name__, "nothing",
                                   detail="a required field is missing")
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise CorruptFileError(path, None, f"{what} field {key}", kind.__name__, type(value).__name__)
    return value


class SnapshotManager:
    """Finds and reads snapshots and tags of one branch of a table (``main`` by default)."""

    def __init__(self, file_io: FileIO, table_path: str, branch: str | None = None) -> None:
        self.file_io = file_io
        self.table_path = table_path
        self.branch = branch or MAIN_BRANCH
        root = branch_root(table_path, branch, file_io.join)
        self.snapshot_dir = file_io.join(root, "snapshot")
        self.tag_dir = file_io.join(root, "tag")
        self._cache: dict[int, Snapshot] = {}
        self._ids: list[int] | None = None

    def snapshot_path(self, snapshot_id: int) -> str:
        """Path of ``snapshot-<id>``."""
        return self.file_io.join(self.snapshot_dir, f"snapshot-{snapshot_id}")

    def list_ids(self) -> list[int]:
        """Ids of the snapshot files present, ascending (listed once per manager)."""
        if self._ids is None:
            ids = []
            for name in self.file_io.list_names(self.snapshot_dir):
                if name.startswith("snapshot-") and name[9:].isdigit():
                    ids.append(int(name[9:]))
            self._ids = sorted(ids)
        return self._ids

    def _read(self, path: str, tag: str | None = None) -> Snapshot:
        raw = read_file(self.file_io, path, limit=MAX_JSON_BYTES)
        return Snapshot.from_json(load_json_object(raw, path, "snapshot JSON"), path, tag)

    def snapshot(self, snapshot_id: int) -> Snapshot:
        """Snapshot ``snapshot_id``; :class:`SnapshotNotFoundError` if missing or expired."""
        if snapshot_id not in self._cache:
            path = self.snapshot_path(snapshot_id)
            if not self.file_io.exists(path):
                ids = self.list_ids()
                have = f"snapshots {ids[0]}..{ids[-1]} exist" if ids else "the table has no snapshots"
                expired = " (expired)" if ids and snapshot_id < ids[0] else ""
                raise SnapshotNotFoundError(f"snapshot {snapshot_id} not found{expired}: {path} is missing; {have}")
            try:
                self._cache[snapshot_id] = self._read(path)
            except FileNotFoundError:
                raise SnapshotNotFoundError(f"snapshot {snapshot_id} expired while it was read: {path} is gone") \
                    from None
        return self._cache[snapshot_id]

    def _hint(self, name: str) -> int | None:
        path = self.file_io.join(self.snapshot_dir, name)
        if not self.file_io.exists(path):  # checked, not read: a table without hints is not missing files
            return None
        try:
            text = read_file(self.file_io, path, limit=64).decode("ascii").strip()
            return int(text)
        except (OSError, ValueError, UnicodeDecodeError, PaimonLensError):
            return None

    def latest_id(self) -> int | None:
        """Latest snapshot id: the LATEST hint if it is current, else by listing."""
        hint = self._hint("LATEST")
        if (hint is not None and self.file_io.exists(self.snapshot_path(hint))
                and not self.file_io.exists(self.snapshot_path(hint + 1))):
            return hint
        ids = self.list_ids()
        return ids[-1] if ids else None

    def earliest_id(self) -> int | None:
        """Earliest snapshot id: the EARLIEST hint if that file exists, else by listing."""
        hint = self._hint("EARLIEST")
        if hint is not None and self.file_io.exists(self.snapshot_path(hint)):
            ids = self.list_ids()
            if not ids or ids[0] >= hint:
                return hint
        ids = self.list_ids()
        return ids[0] if ids else None

    def latest(self) -> Snapshot:
        """The latest snapshot."""
        sid = self.latest_id()
        if sid is None:
            raise SnapshotNotFoundError(f"{self.table_path} has no snapshots (nothing committed yet)")
        return self.snapshot(sid)

    def earliest(self) -> Snapshot:
        """The earliest snapshot still present."""
        sid = self.earliest_id()
        if sid is None:
            raise SnapshotNotFoundError(f"{self.table_path} has no snapshots (nothing committed yet)")
        return self.snapshot(sid)

    def tag_names(self) -> list[str]:
        """Names of the tags of the table."""
        return [n[4:] for n in self.file_io.list_names(self.tag_dir) if n.startswith("tag-")]

    def tag(self, name: str) -> Snapshot:
        """The snapshot a tag points to (a tag file is a snapshot file)."""
        path = self.file_io.join(self.tag_dir, f"tag-{name}")
        if not self.file_io.exists(path):
            tags = ", ".join(self.tag_names()) or "none"
            raise SnapshotNotFoundError(f"tag {name!r} not found: {path} is missing; tags: {tags}")
        return self._read(path, tag=name)

    def at_or_before(self, time_millis: int) -> Snapshot:
        """The latest snapshot committed at or before ``time_millis`` (binary search)."""
        ids = self.list_ids()
        if not ids:
            raise SnapshotNotFoundError(f"{self.table_path} has no snapshots")
        lo, hi, found = 0, len(ids) - 1, None
        while lo <= hi:
            mid = (lo + hi) // 2
            snap = self.snapshot(ids[mid])
            if snap.time_millis <= time_millis:
                found, lo = snap, mid + 1
            else:
                hi = mid - 1
        if found is None:
            first = self.snapshot(ids[0])
            raise SnapshotNotFoundError(
                f"no snapshot at or before {time_millis} ms: the earliest, {first.id}, was committed at "
                f"{first.time_millis} ms")
        return found

    def all(self) -> list[Snapshot]:
        """Every snapshot present, ascending by id."""
        return [self.snapshot(i) for i in self.list_ids()]
