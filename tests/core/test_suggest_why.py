"""The sentence of a `replaced` suggestion (`why`), asked of every suggestion at every catch-up
of a kept finder (issue 39's queue): said once per pair, and said again when what it reads
changed."""

from __future__ import annotations

import dataclasses

from synapse_tui.core.review.suggest import Item, ReplacedFinder

OLD = Item("a", "deploys run on Fridays", 1.0, "ops")
NEW = Item("b", "deploys run on Tuesdays since March", 2.0, "ops")
OTHER = Item("c", "the wiki lives on the intranet", 1.5, "ops")


def _why(finder: ReplacedFinder) -> str:
    (found,) = finder.suggestions()
    assert (found.fact, found.other) == ("a", "b")
    return found.why


def test_asked_again_the_sentence_is_the_one_said_before():
    finder = ReplacedFinder.build([OLD, NEW, OTHER])
    first = _why(finder)
    assert "'Fridays' became 'Tuesdays since March'" in first
    assert _why(finder) is first  # not said again


def test_the_sentence_follows_the_older_facts_removal():
    finder = ReplacedFinder.build([OLD, NEW, OTHER])
    before = _why(finder)
    assert "removed" not in before
    finder.update(dataclasses.replace(OLD, gone=2.0))  # its source deleted it as the newer came
    after = _why(finder)
    assert after.endswith("the older was removed when the newer was written")
    assert after.removesuffix("; the older was removed when the newer was written") == before


def test_the_sentence_follows_its_note_recording_deletions():
    old = Item("a", "backups run at 02:00 UTC every night", 1.0, "ops")
    new = Item("b", "backups now run at 03:00 UTC every night", 2.0, "ops")
    finder = ReplacedFinder.build([old, new, OTHER])
    before = _why(finder)
    finder.update(dataclasses.replace(OTHER, gone=5.0))  # another fact of the note left its source
    assert _why(finder) == before + "; but the older was not removed then"
