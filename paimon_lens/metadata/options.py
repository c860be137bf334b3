"""A table's options as Paimon reads them: :class:`CoreOptions`, and memory sizes (``MemorySize.parse``).

A schema holds its options as text. :class:`CoreOptions` (``TableSchema.core_options``) gives the
ones paimon-lens models a type and Paimon's default, each parsed once, so that every module reads
``deletion-vectors.enabled`` the same way: a boolean is ``true`` or ``false`` in any case (blanks
around it ignored); anything else is the default, and said in :attr:`CoreOptions.problems` (Paimon
refuses such a table).

Sizes are text too (``file-index.bitmap.<col>.index-block-size = 16kb``, ``range-bitmap``
``chunk-size``, ``file-index.in-manifest-threshold``); Paimon reads them with ``MemorySize.parse``:
digits, optional blanks, an optional unit of powers of 1024, case-insensitive.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cached_property

_UNITS = {
    "": 1, "b": 1, "bytes": 1,
    "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
    "m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
    "t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}
_SIZE = re.compile(r"\s*(\d+)\s*([A-Za-z]*)\s*")


def parse_memory_size(text: str | int) -> int:
    """Paimon's ``MemorySize.parse``: ``"64b"``, ``"16kb"``, ``"1 mb"``, ``"64"`` -> bytes (an int as is).

    Raises:
        ValueError: not a memory size, or an unknown unit.
    """
    if isinstance(text, int):
        return text
    m = _SIZE.fullmatch(text)
    if not m:
        raise ValueError(f"not a memory size: {text!r}")
    unit = m.group(2).lower()
    if unit not in _UNITS:
        raise ValueError(f"unknown memory unit {m.group(2)!r} in {text!r}")
    return int(m.group(1)) * _UNITS[unit]


def option_true(options: dict[str, str], key: str, default: bool = False) -> bool:
    """A boolean table option (``"true"``, any case and blanks; ``default`` when unset)."""
    raw = options.get(key)
    return default if raw is None else raw.strip().lower() == "true"


def memory_option(options: dict[str, str], key: str, default: int) -> int:
    """The memory-size option ``key`` in bytes (``default`` when unset).

    Raises:
        ValueError: the option is set to something that is not a memory size (Paimon refuses it too).
    """
    raw = options.get(key)
    if raw is None:
        return default
    try:
        return parse_memory_size(raw)
    except ValueError as e:
        raise ValueError(f"table option {key} = {raw!r}: {e}") from None


DEFAULT_TARGET_FILE_SIZE = {True: 128 << 20, False: 256 << 20}
"""Paimon's ``target-file-size`` default: 128 MB for primary-key tables, 256 MB for append tables."""

SMALL_FILE_DIVISOR = 8
"""A data file is *small* below ``target-file-size / SMALL_FILE_DIVISOR`` (findings, health, history)."""


def target_file_size(options: dict[str, str], primary_key: bool) -> int:
    """The table's ``target-file-size`` in bytes (Paimon's default when unset)."""
    raw = options.get("target-file-size")
    return parse_memory_size(raw) if raw else DEFAULT_TARGET_FILE_SIZE[primary_key]


def configured_indexes(options: dict[str, str]) -> list[str]:
    """The file indexes the options configure, as ``type(column)`` labels in option order
    (``file-index.<type>.columns``; a malformed list is read as far as it names columns)."""
    out: list[str] = []
    for key, value in options.items():
        if key.startswith("file-index.") and key.endswith(".columns"):
            index_type = key[len("file-index."):-len(".columns")]
            out += [f"{index_type}({c.strip()})" for c in value.split(",") if c.strip()]
    return out


DEFAULT_PARTITION_NAME = "__DEFAULT_PARTITION__"
"""Paimon's ``partition.default-name``: the directory value of a null partition."""
DEFAULT_STATS_MODE = "truncate(16)"
"""Paimon's ``metadata.stats-mode`` default."""
DEFAULT_TARGET_SPLIT = 128 << 20
"""Paimon's ``source.split.target-size`` default."""
DEFAULT_OPEN_FILE_COST = 4 << 20
"""Paimon's ``source.split.open-file-cost`` default."""
DEFAULT_COMPACTION_TRIGGER = 5
"""Paimon's ``num-sorted-run.compaction-trigger`` default."""


class CoreOptions:
    """A table's options typed as Paimon's ``CoreOptions`` reads them, each parsed once.

    ``raw`` keeps every option as text. Booleans that are neither ``true`` nor ``false`` read as
    their default and are named in :attr:`problems`; sizes that do not parse raise ``ValueError``
    naming the option when they are read (Paimon refuses them too).
    """

    def __init__(self, options: Mapping[str, str]) -> None:
        self.raw: dict[str, str] = dict(options)
        self.problems: list[str] = []

    def check(self) -> list[str]:
        """Every typed option read once: the values Paimon would refuse, each said (a boolean or a
        count that is not one, read as its default; a size that is not one)."""
        refused = []
        for name, attr in vars(CoreOptions).items():
            if isinstance(attr, cached_property):
                try:
                    getattr(self, name)
                except ValueError as e:
                    refused.append(str(e))
        return [*self.problems, *refused]

    def get(self, key: str, default: str | None = None) -> str | None:
        """The option's text (``default`` when unset)."""
        return self.raw.get(key, default)

    def flag(self, key: str, default: bool) -> bool:
        """A boolean option (``default`` when unset or not a boolean, the latter in :attr:`problems`)."""
        raw = self.raw.get(key)
        if raw is None:
            return default
        text = raw.strip().lower()
        if text in ("true", "false"):
            return text == "true"
        problem = f"table option {key} = {raw!r} is not a boolean: read as {str(default).lower()}"
        if problem not in self.problems:
            self.problems.append(problem)
        return default

    def size(self, key: str, default: int) -> int:
        """A memory-size option in bytes (:func:`memory_option`)."""
        return memory_option(self.raw, key, default)

    @cached_property
    def deletion_vectors_enabled(self) -> bool:
        """``deletion-vectors.enabled`` (false)."""
        return self.flag("deletion-vectors.enabled", False)

    @cached_property
    def deletion_vectors_bitmap64(self) -> bool:
        """``deletion-vectors.bitmap64`` (false): 64-bit deletion vectors."""
        return self.flag("deletion-vectors.bitmap64", False)

    @cached_property
    def deletion_vectors_merge_on_read(self) -> bool:
        """``deletion-vectors.merge-on-read`` (false)."""
        return self.flag("deletion-vectors.merge-on-read", False)

    @cached_property
    def data_evolution_enabled(self) -> bool:
        """``data-evolution.enabled`` (false)."""
        return self.flag("data-evolution.enabled", False)

    @cached_property
    def row_tracking_enabled(self) -> bool:
        """``row-tracking.enabled`` (false): rows carry ``_ROW_ID``."""
        return self.flag("row-tracking.enabled", False)

    @cached_property
    def global_index_enabled(self) -> bool:
        """``global-index.enabled`` (true)."""
        return self.flag("global-index.enabled", True)

    @cached_property
    def file_index_read_enabled(self) -> bool:
        """``file-index.read.enabled`` (true)."""
        return self.flag("file-index.read.enabled", True)

    @cached_property
    def index_file_in_data_file_dir(self) -> bool:
        """``index-file-in-data-file-dir`` (false): index files beside the data files."""
        return self.flag("index-file-in-data-file-dir", False)

    @cached_property
    def partition_legacy_name(self) -> bool:
        """``partition.legacy-name`` (true)."""
        return self.flag("partition.legacy-name", True)

    @cached_property
    def partition_default_name(self) -> str:
        """``partition.default-name`` (``__DEFAULT_PARTITION__``)."""
        return self.raw.get("partition.default-name", DEFAULT_PARTITION_NAME)

    @cached_property
    def merge_engine(self) -> str:
        """``merge-engine`` (``deduplicate``), lower case."""
        return self.raw.get("merge-engine", "deduplicate").strip().lower()

    @cached_property
    def bucket(self) -> int:
        """``bucket`` (-1: dynamic or unaware)."""
        return int(self.raw.get("bucket", "-1"))

    @cached_property
    def bucket_function_type(self) -> str:
        """``bucket-function.type`` (``default``), lower case."""
        return self.raw.get("bucket-function.type", "default").strip().lower()

    @cached_property
    def stats_mode(self) -> str:
        """``metadata.stats-mode`` (``truncate(16)``), as written."""
        return self.raw.get("metadata.stats-mode", DEFAULT_STATS_MODE)

    @cached_property
    def data_file_path_directory(self) -> str | None:
        """``data-file.path-directory`` (unset: data files under the bucket directories)."""
        return self.raw.get("data-file.path-directory") or None

    @cached_property
    def compaction_trigger(self) -> int:
        """``num-sorted-run.compaction-trigger`` (5)."""
        raw = self.raw.get("num-sorted-run.compaction-trigger")
        if raw is None:
            return DEFAULT_COMPACTION_TRIGGER
        if raw.strip().isdigit():
            return int(raw)
        self.problems.append(f"table option num-sorted-run.compaction-trigger = {raw!r} is not an integer: "
                             f"read as {DEFAULT_COMPACTION_TRIGGER}")
        return DEFAULT_COMPACTION_TRIGGER

    def target_file_size(self, primary_key: bool) -> int:
        """``target-file-size`` in bytes (128 MB for primary-key tables, 256 MB otherwise)."""
        return target_file_size(self.raw, primary_key)

    @cached_property
    def split_target_size(self) -> int:
        """``source.split.target-size`` in bytes (128 MB)."""
        return self.size("source.split.target-size", DEFAULT_TARGET_SPLIT)

    @cached_property
    def split_open_file_cost(self) -> int:
        """``source.split.open-file-cost`` in bytes (4 MB)."""
        return self.size("source.split.open-file-cost", DEFAULT_OPEN_FILE_COST)
