"""Stages, index answers and index locations are closed sets (enums whose members are their names)."""

from __future__ import annotations

import json
import pickle

from paimon_lens.formats.result import REMAIN, SKIP, BitmapIndexResult, IndexAnswer
from paimon_lens.metadata.snapshot_reader import IndexLocation
from paimon_lens.pruning.pipeline import STEPS
from paimon_lens.pruning.plan_stages import GlobalIndexStage
from paimon_lens.pruning.stage import Stage, StageName


def _subclasses(cls: type) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _subclasses(sub)
    return out


def test_every_stage_is_named_by_a_member_and_every_member_is_a_step() -> None:
    assert GlobalIndexStage.name is StageName.GLOBAL_INDEX
    names = {s.name for s in _subclasses(Stage) if s.name}
    assert all(isinstance(n, StageName) for n in names)
    assert {s.name for s in STEPS} == set(StageName)


def test_members_are_their_text_everywhere() -> None:
    for member in (StageName.ROW_IDS, IndexAnswer.NO_INDEX, IndexLocation.EMBEDDED):
        assert member == member.value and f"{member}" == member.value and str(member) == member.value
        assert json.dumps({"k": member}) == json.dumps({"k": member.value})
        assert pickle.loads(pickle.dumps(member)) is member


def test_index_results_say_their_kind() -> None:
    from pyroaring import BitMap

    assert (REMAIN.kind, SKIP.kind, BitmapIndexResult(BitMap([1])).kind) == (
        IndexAnswer.REMAIN, IndexAnswer.SKIP, IndexAnswer.BITMAP)
