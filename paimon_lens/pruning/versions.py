"""Whose rules: the Paimon release a query engine runs decides which files a filter reads.

The same table, read with the same filter, plans different files in different Paimon releases.
:class:`PaimonRules` holds the switches paimon-lens models, one per change found in Paimon's
history between 0.9.0 and 2.0.0 (commit and first release from the Java sources; see the table in
``docs/paimon-versions.md``); :func:`rules_for` gives the rules of a release. The default is the
newest release modelled, :data:`DEFAULT_VERSION`.
"""

from __future__ import annotations

from dataclasses import dataclass

RELEASES = ("0.9", "1.0", "1.1", "1.2", "1.3", "1.4", "2.0")
DEFAULT_VERSION = RELEASES[-1]


@dataclass(frozen=True)
class PaimonRules:
    """The pruning rules of one Paimon release (field docs name the release that changed each)."""

    version: str
    partition_conjuncts_whole: bool
    """< 1.4: a conjunct filters partitions only when all of it is on partition columns (and the
    primary-key filter and bucket keys are picked the same way); 1.4: ANDs are projected child by
    child (#7473)."""
    bucket_pruning_legacy: bool
    """< 1.4: bucket keys from the non-partition (append) or key (primary key) filter, no per-partition
    substitution, a bucket key in two conjuncts disables pruning, default hash only (#7486)."""
    pk_value_xor_key_filter: bool
    """< 1.0: primary-key files are tested with the value filter (level > 0 with deletion vectors or
    first-row) or the key filter, never both (#4322)."""
    pk_file_index: bool
    """>= 1.0: file indexes on primary-key tables (with deletion vectors) at planning and reading (#4310)."""
    merge_on_read_option: bool
    """>= 2.0: ``deletion-vectors.merge-on-read`` keeps level-0 files in batch scans (#7948)."""
    read_embedded_index: bool
    """>= 1.0: the reader evaluates embedded and external indexes and selects rows by a bitmap
    result; 0.9 read only external index files, to skip whole files (#4473, #4502)."""
    unsafe_filter_removed: bool
    """>= 1.3: for files written before a type change, conjuncts unsafe for the old type are not
    tested on their stats (``filterUnsafeFilter``, #5825); before, the whole filter was."""
    bitmap_or_bug: bool
    """< 1.1: ``bitmap result OR non-bitmap result`` was computed as AND (#5324)."""
    signed_binary_compare: bool
    """< 2.0: BINARY/VARBINARY values compared as signed bytes (#8237)."""
    fallback_filtered_partitions: bool
    """< 1.4: ``scan.fallback-branch`` treats as the table's own partitions those of its planned
    files (data filter applied) rather than those matching the partition filter (#7388)."""
    data_evolution_stats: bool
    """>= 1.4: data-evolution tables prune row-range groups by merged stats (1.3: no pruning, #6455)."""
    data_evolution: bool
    """>= 1.3: data-evolution tables exist."""
    index_readable: tuple[tuple[str, int], ...] = (("bloom-filter", 1), ("bitmap", 2), ("bsi", 1),
                                                   ("range-bitmap", 1))
    """The file-index types the release's readers know, each with the newest format version it
    reads (bitmap V2 from 1.0, the default from 1.1; bsi from 1.0; range-bitmap from 1.3): reading any other fails the
    query in that release (``Can't find file index for type``, ``your plugin version is lower than 2``)."""
    global_index: bool = True
    """>= 1.4: data-evolution tables plan with their global indexes (``DataEvolutionBatchScan``)."""
    global_index_search_mode: bool = True
    """>= 2.0: ``scalar-index.search-mode`` (``fast`` default; ``full``/``detail`` add the rows no
    index covers); 1.4 always searched as ``fast``."""
    global_index_strict_union: bool = True
    """>= 2.0: an index leaf is unanswered when the reader of one row range cannot answer it, and a
    column's index types are united; 1.4 skipped such ranges and intersected the types."""
    pk_index: bool = True
    """>= 2.0: primary-key tables plan with their primary-key indexes (``pk-btree`` / ``pk-bitmap``:
    ``PrimaryKeyBatchScan``): per planned file the rows the index selects."""
    global_index_range_gate: bool = True
    """>= 2.0: range, ``NOT BETWEEN``, ``endsWith``/``contains``/``LIKE`` leaves are answered only when
    the candidate index files total at most ``*-index.fallback-scan-max-size`` (256 MiB)."""

    def unreadable_index(self, index_type: str, version: int | None) -> str | None:
        """Why this release fails reading an index of ``index_type`` (format ``version``, None if
        not versioned), or None when it reads it."""
        newest = dict(self.index_readable).get(index_type)
        if newest is None:
            return f"Paimon {self.version} has no {index_type} index reader (Can't find file index for type: " \
                   f"{index_type}): reading the index fails the query"
        if version is not None and version > newest:
            return (f"Paimon {self.version} reads {index_type} indexes up to version {newest}, this one is "
                    f"version {version} (your plugin version is lower than {version}): reading it fails the query")
        return None


def _rules(version: str) -> PaimonRules:
    v = RELEASES.index(version)
    at_least = lambda release: v >= RELEASES.index(release)  # noqa: E731
    return PaimonRules(
        version=version,
        partition_conjuncts_whole=not at_least("1.4"),
        bucket_pruning_legacy=not at_least("1.4"),
        pk_value_xor_key_filter=not at_least("1.0"),
        pk_file_index=at_least("1.0"),
        merge_on_read_option=at_least("2.0"),
        read_embedded_index=at_least("1.0"),
        unsafe_filter_removed=at_least("1.3"),
        bitmap_or_bug=not at_least("1.1"),
        signed_binary_compare=not at_least("2.0"),
        fallback_filtered_partitions=not at_least("1.4"),
        data_evolution_stats=at_least("1.4"),
        data_evolution=at_least("1.3"),
        index_readable=(("bloom-filter", 1), ("bitmap", 2 if at_least("1.0") else 1))
        + ((("bsi", 1),) if at_least("1.0") else ()) + ((("range-bitmap", 1),) if at_least("1.3") else ()),
        global_index=at_least("1.4"),
        global_index_search_mode=at_least("2.0"),
        global_index_strict_union=at_least("2.0"),
        global_index_range_gate=at_least("2.0"),
        pk_index=at_least("2.0"),
    )


RULES = {r: _rules(r) for r in RELEASES}


def normalize_version(version: str | None) -> str:
    """``"0.9.0"`` -> ``"0.9"``; a release newer than the newest modelled -> that newest one.

    Raises ValueError for a release older than 0.9 or text that is not a version.
    """
    if version is None or str(version).strip() in ("", "latest"):
        return DEFAULT_VERSION
    parts = str(version).strip().lstrip("vV").split(".")
    try:
        major, minor = int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        raise ValueError(f"not a Paimon version: {version!r} (use e.g. 0.9, 1.3 or 2.0)") from None
    key = (major, minor)
    known = [tuple(int(x) for x in r.split(".")) for r in RELEASES]
    if key < known[0]:
        raise ValueError(f"Paimon {version} is older than the oldest release modelled ({RELEASES[0]})")
    best = max(k for k in known if k <= key)
    return f"{best[0]}.{best[1]}"


def rules_for(version: str | None) -> PaimonRules:
    """The rules of Paimon ``version`` (the newest release modelled when None)."""
    return RULES[normalize_version(version)]


def rules_of_newest() -> PaimonRules:
    """The rules of the newest release modelled (:data:`DEFAULT_VERSION`)."""
    return RULES[DEFAULT_VERSION]
