"""Where Paimon puts a table's files: partition directories, buckets, index files.

``<table>/<k1>=<v1>/<k2>=<v2>/bucket-<n>/<data file>``; partition values are rendered the way
Paimon's ``InternalRowPartitionComputer`` does (``partition.legacy-name``, default true: Java
``toString`` of the internal value, so a DATE is its epoch day; false: cast to string), null or
empty values become ``partition.default-name`` and names/values are escaped like Hive paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..types import DataField, Timestamp, date_from_days
from .options import CoreOptions

MAIN_BRANCH = "main"
BRANCH_PREFIX = "branch-"
_ESCAPED = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(1, 32)}


def escape_path_name(text: str) -> str:
    """Hive/Paimon path escaping: special characters become ``%XX``."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def java_local_datetime_string(ts: Timestamp) -> str:
    """``LocalDateTime.toString()``: seconds and fraction only when non-zero."""
    d = ts.to_datetime()
    nanos = (ts.millisecond % 1000) * 1_000_000 + ts.nano_of_millisecond
    text = f"{d.year:04d}-{d.month:02d}-{d.day:02d}T{d.hour:02d}:{d.minute:02d}"
    if d.second or nanos:
        text += f":{d.second:02d}"
    if nanos:
        if nanos % 1_000_000 == 0:
            text += f".{nanos // 1_000_000:03d}"
        elif nanos % 1000 == 0:
            text += f".{nanos // 1000:06d}"
        else:
            text += f".{nanos:09d}"
    return text


def partition_value_string(value: Any, field: DataField, legacy: bool = True) -> str | None:
    """A partition value as Paimon writes it into a path (None for null)."""
    if value is None:
        return None
    t = field.type
    if t.root == "DATE" and not legacy:
        return date_from_days(value).isoformat()
    if t.is_timestamp:
        return java_local_datetime_string(value) if legacy else value.isoformat(t.precision or 6).replace("T", " ")
    if t.root == "BOOLEAN":
        return "true" if value else "false"
    if t.is_binary:
        return bytes(value).decode("utf-8", "replace")
    if t.root == "DECIMAL":
        return format(value, "f")
    return str(value)


_JAVA_WHITESPACE = frozenset("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \u1680\u2028\u2029\u205f\u3000"
                              + "".join(chr(c) for c in range(0x2000, 0x200B) if c != 0x2007))


def is_java_whitespace(text: str) -> bool:
    """``StringUtils.isNullOrWhitespaceOnly``: empty or only ``Character.isWhitespace`` characters
    (Unicode space separators except the no-break spaces U+00A0, U+2007, U+202F, and the controls
    tab, line feed, U+000B, form feed, carriage return, U+001C-U+001F)."""
    return all(c in _JAVA_WHITESPACE for c in text)


def partition_path(values: Sequence[Any], fields: Sequence[DataField], options: CoreOptions | Mapping[str, str]) -> str:
    """``k1=v1/k2=v2`` for a partition (empty string for unpartitioned tables). ``options``: the
    table's typed options (a plain mapping is typed on each call: for one-off uses)."""
    core = options if isinstance(options, CoreOptions) else CoreOptions(options)
    legacy, default = core.partition_legacy_name, core.partition_default_name
    parts = []
    for v, f in zip(values, fields):
        try:
            s = partition_value_string(v, f, legacy)
        except (OverflowError, ValueError) as e:  # a date or timestamp beyond the calendar
            from ..errors import CorruptFileError

            raise CorruptFileError(None, None, f"partition value of {f.name} ({f.type})", "a value Paimon can write "
                                   "into a path", repr(v)[:80], detail=f"{type(e).__name__}: {e}") from None
        if s is None or is_java_whitespace(s):  # InternalRowPartitionComputer: null or blank
            s = default
        parts.append(f"{escape_path_name(f.name)}={escape_path_name(s)}")
    return "/".join(parts)


def bucket_dir(bucket: int) -> str:
    """``bucket-<n>`` (``bucket-postpone`` for the postpone bucket -2)."""
    return "bucket-postpone" if bucket == -2 else f"bucket-{bucket}"


def is_main_branch(branch: str | None) -> bool:
    """Whether ``branch`` names the main branch (None, empty or ``main``)."""
    return not branch or branch == MAIN_BRANCH


def branch_root(table_path: str, branch: str | None, join: Any) -> str:
    """Directory holding a branch's ``snapshot/``, ``schema/`` and ``tag/``.

    The main branch keeps them in the table directory; branch ``b`` in ``<table>/branch/branch-b``.
    Data files, manifests and index files of every branch live in the table directory.
    """
    return table_path if is_main_branch(branch) else join(table_path, "branch", BRANCH_PREFIX + str(branch))


def branch_names(names: Sequence[str]) -> list[str]:
    """Branch names from the entry names of ``<table>/branch`` (``branch-<name>``)."""
    return sorted(n[len(BRANCH_PREFIX):] for n in names if n.startswith(BRANCH_PREFIX) and len(n) > len(BRANCH_PREFIX))
