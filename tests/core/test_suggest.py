"""The replaced finder as a person would check it: which fact it says is replaced, by what,
and why; never a hard negative, never backwards in time, one line per older fact."""

from __future__ import annotations

from synapse_tui.core.review.suggest import Item, ReplacedFinder
from synapse_tui.core.review.suggest_text import changed_spans


def found(*items: Item) -> list[tuple[str, str]]:
    return [(s.fact, s.other) for s in ReplacedFinder.build(list(items)).suggestions()]


def test_a_changed_day_is_suggested_with_why_naming_the_change():
    old = Item("a", "deploys run on Fridays", 1.0, "ops")
    new = Item("b", "deploys run on Tuesdays since March", 2.0, "ops")
    (s,) = ReplacedFinder.build([old, new]).suggestions()
    assert (s.fact, s.other, s.kind) == ("a", "b", "replaced")
    assert "'Fridays' became 'Tuesdays since March'" in s.why and "'since'" in s.why
    assert 0.5 <= s.score <= 1.0


def test_why_names_the_first_change_as_one_place_in_both_texts():
    """Words added in front and a full stop at the end: the first change is the words added
    (not the older's last word set against the newer's first: 'generation' became
    'Integration of', read on a real memory bank)."""
    old = Item("a", "Swift OpenAPI Generator for API client code generation", 1.0, "tech")
    new = Item("b", "Integration of Swift OpenAPI Generator for API client code generation.", 2.0, "tech")
    (s,) = ReplacedFinder.build([old, new]).suggestions()
    assert "adds 'Integration of'" in s.why and "became" not in s.why, s.why


def test_same_subject_facts_that_do_not_replace_each_other_are_not_suggested():
    assert (
        found(
            Item("a", "the project uses Postgres", 1.0, "n"),
            Item("b", "Postgres runs on port 5433", 2.0, "n"),
        )
        == []
    )
    assert (
        found(
            Item("a", "CI runs on GitHub Actions", 1.0, "n"),
            Item("b", "CI caches the pip downloads", 2.0, "n"),
        )
        == []
    )


def test_the_newer_is_always_created_after_the_older():
    # the same pair, the "new" wording written first: the older one is the one replaced
    got = found(
        Item("x", "the rate limit is now 900 per minute", 1.0, "n"),
        Item("y", "the rate limit is 600 per minute", 2.0, "n"),
    )
    assert got == [("x", "y")]
    same_instant = found(
        Item("x", "the rate limit is 600 per minute", 1.0, "n"),
        Item("y", "the rate limit is 900 per minute", 1.0, "n"),
    )
    assert same_instant == []


def test_a_fact_with_a_successor_or_a_dismissed_pair_is_never_suggested():
    old = Item("a", "the rate limit is 600 per minute", 1.0, "n", successor=True)
    assert found(old, Item("b", "the rate limit is 900 per minute", 2.0, "n")) == []
    finder = ReplacedFinder.build(
        [
            Item("a", "the rate limit is 600 per minute", 1.0, "n"),
            Item("b", "the rate limit is 900 per minute", 2.0, "n"),
            Item("c", "the rate limit is 1200 per minute", 3.0, "n"),
        ]
    )
    assert [(s.fact, s.other) for s in finder.suggestions()] == [("b", "c"), ("a", "b")] or len(
        finder.suggestions()
    ) == 2
    rest = finder.suggestions(frozenset({("a", "b")}))
    assert ("a", "b") not in {(s.fact, s.other) for s in rest}


def test_at_most_one_line_per_older_fact_and_other_notes_need_an_update_word():
    items = [
        Item("a", "the staging box is staging-1", 1.0, "n"),
        Item("b", "the staging box is staging-2", 2.0, "n"),
        Item("c", "the staging box is staging-3", 3.0, "n"),
        Item("d", "the staging box is staging-9", 4.0, "other-note", ("staging",)),
    ]
    olds = [f for f, _ in found(*items)]
    assert len(olds) == len(set(olds))
    assert all(new != "d" for _, new in found(*items))  # another note, and it says no "now"


def test_adding_one_fact_gives_what_a_full_build_gives():
    base = [
        Item(f"f{i}", f"service {i} listens on port {8000 + i}", float(i), f"note{i}") for i in range(200)
    ]
    new = Item("new", "service 3 now listens on port 9003", 500.0, "note3")
    finder = ReplacedFinder.build(base)
    added = finder.add(new)
    assert [(s.fact, s.other) for s in added] == [("f3", "new")]
    full = ReplacedFinder.build([*base, new]).suggestions()
    assert finder.suggestions() == full


def test_the_differing_words_are_marked_on_both_sides():
    left, right = changed_spans("deploys run on Fridays", "deploys run on Tuesdays since March")
    assert [t for t, d in left if d] == ["Fridays"]
    assert [t.strip() for t, d in right if d] == ["Tuesdays since March"]
    assert "".join(t for t, _ in right) == "deploys run on Tuesdays since March"


def test_updating_a_fact_that_gained_a_successor_gives_what_a_full_build_gives():
    base = [
        Item("a", "the rate limit is 600 per minute", 1.0, "n"),
        Item("b", "the rate limit is 900 per minute", 2.0, "n"),
        Item("c", "the rate limit is 1200 per minute", 3.0, "n"),
    ]
    finder = ReplacedFinder.build(base)
    assert {(s.fact, s.other) for s in finder.suggestions()} == {("a", "b"), ("b", "c")}
    changed = Item("a", "the rate limit is 600 per minute", 1.0, "n", successor=True)
    finder.update(changed)
    assert finder.suggestions() == ReplacedFinder.build([changed, *base[1:]]).suggestions()
    assert {(s.fact, s.other) for s in finder.suggestions()} == {("b", "c")}


def test_a_restatement_of_the_same_change_is_not_a_replacement():
    # the same move said twice ("now" / "moved from"): the newer says nothing new
    assert (
        found(
            Item("a", "Jonas Weber is now the QA lead on Atlas migration", 1.0, "n"),
            Item("b", "Jonas Weber moved from data engineer to QA lead on Atlas migration", 2.0, "n"),
        )
        == []
    )
    assert (
        found(
            Item(
                "a",
                "the Heron security review deadline moved to 2025-03-03 because the sandbox was down",
                1.0,
                "n",
            ),
            Item("b", "Heron security review slipped to 2025-03-03: the sandbox was down", 2.0, "n"),
        )
        == []
    )
    # a new date is a change, not a restatement
    assert found(
        Item("a", "the Heron security review deadline moved to 2025-03-03", 1.0, "n"),
        Item("b", "the Heron security review deadline moved to 2025-03-17", 2.0, "n"),
    ) == [("a", "b")]


def test_two_dated_events_of_one_template_are_not_a_replacement():
    assert (
        found(
            Item(
                "a",
                "the Webhooks API returned 5xx errors for 40 minutes on 2025-09-18 after the disk filled",
                1.0,
                "n",
            ),
            Item(
                "b",
                "the Webhooks API returned 5xx errors for 25 minutes on 2025-09-20 after the disk filled",
                2.0,
                "n",
            ),
        )
        == []
    )


def test_long_texts_mark_only_the_words_that_differ_and_join_back():
    head = " ".join(f"step{k} does thing{k}," for k in range(300))
    old = f"{head} then deploy on Fridays. {head}"
    new = f"{head} then deploy on Tuesdays. {head}"
    left, right = changed_spans(old, new)
    assert "".join(t for t, _ in left) == old and "".join(t for t, _ in right) == new
    assert [t for t, d in left if d] == ["Fridays."] and [t for t, d in right if d] == ["Tuesdays."]


def test_an_edit_of_only_the_letter_case_is_suggested_and_a_duplicate_is_not():
    (s,) = ReplacedFinder.build(
        [
            Item("a", "talk to the API via the httpx asgi client", 1.0, "n"),
            Item("b", "talk to the API via the httpx ASGI client", 2.0, "n"),
        ]
    ).suggestions()
    assert (s.fact, s.other) == ("a", "b") and "only the letter case differs" in s.why
    # the same text again (white space aside) is a duplicate, not a replacement
    assert (
        found(Item("a", "use ruff  for linting", 1.0, "n"), Item("b", "use ruff for linting", 2.0, "n")) == []
    )


def test_where_the_store_records_deletions_a_fact_still_at_its_source_is_not_replaced():
    old = Item("a", "run the tests with `make test`", 1.0, "n")
    new = Item("b", "run the tests with `just test`", 2.0, "n")
    deleted = Item("z", "the changelog lives in docs/", 0.5, "n", gone=1.5)
    assert found(old, new) == [("a", "b")]  # no deletions recorded: the wording decides
    assert found(old, new, deleted) == []  # recorded, and "a" stayed: not replaced
    # a change said in so many words is still put to a person, saying what speaks against it
    (s,) = ReplacedFinder.build(
        [
            Item("r", "the API rate limit is 600 requests per minute", 1.0, "n"),
            Item("s", "the API rate limit is now 900 requests per minute", 2.0, "n"),
            deleted,
        ]
    ).suggestions()
    assert (s.fact, s.other) == ("r", "s") and "but the older was not removed then" in s.why
    left = Item("a", "run the tests with `make test`", 1.0, "n", gone=2.0)
    (s,) = ReplacedFinder.build([left, new, deleted]).suggestions()
    assert (s.fact, s.other) == ("a", "b") and "removed when the newer was written" in s.why


def test_the_fact_written_the_instant_the_older_left_is_found_past_many_nearer_ones():
    # 25 facts alike came between (a busy note): the one written when the older left its
    # source is its replacement, however many came before it
    between = [
        Item(f"b{k}", f"the API rate limit for tenant {k} is {700 + k} per minute", 2.0 + k, "n")
        for k in range(25)
    ]
    at_gone = Item("c", "the API rate limit is 900 per minute", 50.0, "n")
    old = Item("a", "the API rate limit is 600 per minute", 1.0, "n", gone=50.0)
    assert ("a", "c") in found(old, *between, at_gone)


def test_a_deletion_learnt_later_gives_what_a_full_build_gives():
    base = [
        Item("a", "run the tests with `make test`", 1.0, "n"),
        Item("b", "run the tests with `just test`", 2.0, "n"),
        Item("z", "the changelog lives in docs/", 0.5, "n"),
    ]
    finder = ReplacedFinder.build(base)
    assert [(s.fact, s.other) for s in finder.suggestions()] == [("a", "b")]
    deleted = Item("z", "the changelog lives in docs/", 0.5, "n", gone=1.5)
    finder.update(deleted)  # a sync flagged it: the note's deletions are recorded from now on
    assert finder.suggestions() == ReplacedFinder.build([*base[:2], deleted]).suggestions() == []


RENAMED = [  # a heading renamed in one write: both its bullets rewritten under the new name
    Item("a1", "Installs the lgit script into ~/.local/bin", 1.0, "CLAUDE.md", ("User-level install",)),
    Item("a2", "Installs the review hooks into ~/.claude/hooks", 1.0, "CLAUDE.md", ("User-level install",)),
    Item("b1", "Copies the lgit script to ~/.local/bin", 2.0, "CLAUDE.md", ("Installation",)),
    Item("b2", "Copies the review hooks to ~/.claude/hooks", 2.0, "CLAUDE.md", ("Installation",)),
]


def test_bullets_rewritten_under_a_renamed_heading_are_suggested_and_say_so():
    got = ReplacedFinder.build(RENAMED).suggestions()
    assert {(s.fact, s.other) for s in got} == {("a1", "b1"), ("a2", "b2")}
    assert all("its subject 'User-level install' became 'Installation'" in s.why for s in got)


def test_a_heading_still_written_under_afterwards_did_not_move():
    # a later bullet under the older heading: it is still in use, so its bullets stayed
    later = Item("a3", "Run install-user.sh once per machine", 3.0, "CLAUDE.md", ("User-level install",))
    assert found(*RENAMED, later) == []
    # one bullet alone under another heading is no evidence of a move either
    assert found(RENAMED[0], RENAMED[2]) == []


def test_an_older_fact_is_offered_its_best_candidate_one_to_one():
    # SPEC 13: one line per OLD, its best candidate; c reads more like a than b does
    got = found(
        Item("a", "deploys run on Fridays at 10:00", 1.0, "n"),
        Item("b", "deploys run on Tuesdays at 10:00", 2.0, "n"),
        Item("c", "deploys run on Fridays at 11:00", 3.0, "n"),
    )
    assert sorted(got) == [("a", "c")]


def test_adding_the_renamed_headings_bullets_one_by_one_gives_what_a_full_build_gives():
    finder = ReplacedFinder.build(RENAMED[:3])
    assert finder.suggestions() == []  # one bullet under the new heading: no move yet
    added = finder.add(RENAMED[3])
    assert [(s.fact, s.other) for s in added] == [("a2", "b2")]
    assert finder.suggestions() == ReplacedFinder.build(RENAMED).suggestions()
    later = Item("a3", "Run install-user.sh once per machine", 3.0, "CLAUDE.md", ("User-level install",))
    finder.add(later)  # the older heading is written under again: the move is withdrawn
    assert finder.suggestions() == ReplacedFinder.build([*RENAMED, later]).suggestions() == []


def test_one_label_under_one_heading_given_a_new_value_is_suggested():
    # under half the wording shared, but the bullet sets the same key: a new value for it
    old = Item("a", "**Run tests**: `go test ./...`", 1.0, "AGENTS.md", ("Before committing",))
    new = Item(
        "b", "**Run tests**: `make test` (or `./scripts/test.sh`)", 2.0, "AGENTS.md", ("Before committing",)
    )
    (s,) = ReplacedFinder.build([old, new]).suggestions()
    assert (s.fact, s.other) == ("a", "b") and "the same label 'run tests'" in s.why
    # other labels of one list are other keys
    other = Item(
        "c", "**Run linters**: `make lint` (or `./scripts/lint.sh`)", 2.0, "AGENTS.md", ("Before committing",)
    )
    assert found(old, other) == []


def test_a_heading_whose_status_changed_is_one_subject():
    """A progress log keeps its status in its headings: "🟡 Infrastructure (60%)" and then
    "🟢 Infrastructure (75%)" are one subject, so a bullet rewritten under it is an edit there
    (read on a real memory bank's progress.md); "Phase 1" and "Phase 2" stay two."""
    old = Item(
        "a",
        "**Current Focus**: Database schemas completion, Docker enhancement **Blockers**: None",
        1.0,
        "progress.md",
        ("🟡 Infrastructure (60%)",),
    )
    new = Item(
        "b",
        "**Current Focus**: Database schemas completion with the Core Service, Docker enhancement"
        " **Blockers**: None",
        2.0,
        "progress.md",
        ("🟢 Infrastructure (75%)",),
    )
    (s,) = ReplacedFinder.build([old, new]).suggestions()
    assert (s.fact, s.other) == ("a", "b") and "another subject" not in s.why, s.why
    phase1 = Item("c", "**Goal**: ship the Quote Service to staging", 1.0, "progress.md", ("Phase 1",))
    phase2 = Item("d", "**Goal**: ship the Quote Service to production", 2.0, "progress.md", ("Phase 2",))
    (s,) = ReplacedFinder.build([phase1, phase2]).suggestions()
    assert "under another subject ('Phase 1', then 'Phase 2')" in s.why, s.why
