"""`suggest` and `dismiss` (SPEC 13): evidence the store finds itself, and a person's no.

`suggest` prints the standing suggestions, best first, one JSON object a line, the same
bytes for the same store. `dismiss` is an audited triage action (`undo` takes it back);
a dismissed suggestion never comes back. Accepting is the kind's own action
(`supersede DB OLD NEW` for `replaced`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import (
    TAKES_IDS,
    config_option,
    db_argument,
    emit_json,
    json_option,
    now_option,
    say,
    say_row,
    store_id,
)
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.errors import SynapseError, missing_fact
from synapse_tui.core.base.limits import counted
from synapse_tui.core.base.location import locate
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.review.referent import NoRepository, repository
from synapse_tui.core.review.suggest import KINDS, REFERENT, REPLACED
from synapse_tui.core.review.suggest_state import dismissals
from synapse_tui.core.review.suggestions import FINDERS, Options, dismissed_entry, standing
from synapse_tui.core.review.triage import Triage, default_actor
from synapse_tui.core.store.db import Store

_KIND = click.Choice(list(KINDS))


@contextmanager
def repo_hint() -> Iterator[None]:
    """No repository recorded for the store: on the command line, `--repo DIR` names one."""
    try:
        yield
    except NoRepository as exc:
        raise SynapseError(f"{exc}; or pass --repo DIR") from None


@main.command("suggest")
@db_argument
@click.option("--kind", type=_KIND, default=None, help="Only this kind (default: every kind available).")
@click.option("--repo", type=click.Path(), default=None, help="With --kind referent: the repository.")
@click.option("--rev", default=None, help="With --kind referent: the revision to check against.")
@click.option("--limit", type=click.IntRange(min=0), default=0, help="At most N lines (0: all).")
@now_option
@json_option
@config_option
def suggest_cmd(
    db: str,
    kind: str | None,
    repo: str | None,
    rev: str | None,
    limit: int,
    now: str | None,
    as_json: bool,
    config_path: str | None,
) -> None:
    """Facts a newer fact probably replaces, or that name a path gone from the repository
    (`--kind referent`), best first, with why (never scored).

    Accept one with `synapse-tui supersede DB OLD NEW`; dismiss it with
    `synapse-tui dismiss DB OLD NEW` (it never comes back)."""
    Clock.from_option(now)  # suggestions do not depend on the clock; --now is validated
    if kind == REPLACED and (repo or rev):  # a repository is what referents are checked against
        given = "--repo" if repo else "--rev"
        raise SynapseError(
            f"{given} applies to --kind referent (a path gone from a repository), not --kind replaced"
        )
    with Store.open(db, readonly=True) as store, repo_hint():  # --rev alone asks for one too
        if kind == REFERENT:  # issue 40: say so when there is no repository to check against
            repository(store, repo, required=True)
        options = Options(repo, rev) if repo or rev else None
        found = standing(store, None if kind is None else [kind], options).found
    if limit:
        found = found[:limit]
    for s in found:
        if as_json:
            emit_json(s.to_json())
        else:
            say_row(f"{s.score:.2f}", s.fact, f"{KINDS[s.kind].other} {s.other}", s.why)
    if not as_json and not found:
        say(f"no suggestions in {locate(db).shown}")


@main.command("dismiss", context_settings=TAKES_IDS)
@db_argument
@click.argument("fact_id")
@click.argument("other_id", required=False)
@click.option("--kind", type=_KIND, default=REPLACED, show_default=True)
@now_option
@json_option
@config_option
def dismiss_cmd(
    db: str,
    fact_id: str,
    other_id: str | None,
    kind: str,
    now: str | None,
    as_json: bool,
    config_path: str | None,
) -> None:
    """Dismiss the suggestion about FACT_ID (by OTHER_ID, or the one standing now): audited,
    undone by `synapse-tui undo`, and it never comes back."""
    clock = Clock.from_option(now)
    with Store.open(db) as store:
        fact_id = store_id(store, fact_id)  # an id as the list or `suggest` shows it
        other_id = store_id(store, other_id) if other_id is not None and kind == REPLACED else other_id
        if not store.review.exists(fact_id):
            raise SynapseError(missing_fact(fact_id, locate(db).shown))
        suggested: set[str] | None = None  # what stands about the fact now, when OTHER_ID is given
        if other_id is None:
            if kind not in FINDERS:
                raise SynapseError(f"dismiss --kind {kind} needs the other side (OTHER_ID)")
            mine = standing(store, [kind]).of(fact_id)
            if not mine:
                raise SynapseError(f"no standing {kind} suggestion about {fact_id!r}: nothing to dismiss")
            others = [s.other for s in mine]
        else:
            if kind == REPLACED and not store.review.exists(other_id):
                raise SynapseError(missing_fact(other_id, locate(db).shown))
            others = [other_id]
            if kind in FINDERS:  # a typo'd other side is remembered, but it is not what was suggested
                suggested = {s.other for s in standing(store, [kind]).of(fact_id)}
            # dismissed again: a second entry, and one undo would not bring the suggestion back
            if (fact_id, other_id) in dismissals(store).pairs(kind):
                raise SynapseError(
                    f"dismiss {clean(fact_id)} {KINDS[kind].other} {clean(other_id)}: nothing to change"
                    " (already dismissed)"
                )
        outcome = Triage(store, clock, default_actor()).dismiss(
            [(fact_id, dismissed_entry(kind, o)) for o in others]
        )
    if as_json:
        emit_json(
            {
                "dismissed": [{"kind": kind, "fact": fact_id, KINDS[kind].other: o} for o in others],
                "batch": outcome.batch,
            }
        )
    else:
        named = ", ".join(clean(o) for o in others)
        unsuggested = [clean(o) for o in others if suggested is not None and o not in suggested]
        aside = f" (not suggested now: {', '.join(unsuggested)} never will be)" if unsuggested else ""
        say(
            f"dismissed {counted(len(others), 'suggestion')}: {clean(fact_id)} {KINDS[kind].other} {named}{aside}"
        )
