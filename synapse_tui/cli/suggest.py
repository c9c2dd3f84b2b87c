"""`suggest` and `dismiss` (SPEC 13): evidence the store finds itself, and a person's no.

`suggest` prints the standing suggestions, best first, one JSON object a line, the same
bytes for the same store. `dismiss` is an audited triage action (`undo` takes it back);
a dismissed suggestion never comes back. Accepting is the kind's own action
(`supersede DB OLD NEW` for `replaced`, `contradict DB ID --referent PATH` for `referent`).
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
from synapse_tui.cli.render import suggestion_commands
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.errors import SynapseError, missing_fact
from synapse_tui.core.base.limits import counted
from synapse_tui.core.base.location import locate
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.review.referent import NoRepository, normalize, repository
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

    \b
    Accept or dismiss one (a dismissed suggestion never comes back):
      replaced:  synapse-tui supersede DB OLD NEW
                 synapse-tui dismiss DB OLD NEW
      referent:  synapse-tui contradict DB ID --referent PATH
                 synapse-tui dismiss DB ID PATH --kind referent"""
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
    undone by `synapse-tui undo`, and it never comes back. With `--kind referent` OTHER_ID is
    the path, as `suggest` shows it or as the fact writes it (`./src/a.py:12`)."""
    clock = Clock.from_option(now)
    with Store.open(db) as store:
        fact_id = store_id(store, fact_id)  # an id as the list or `suggest` shows it
        if not store.review.exists(fact_id):
            raise SynapseError(missing_fact(fact_id, locate(db).shown))
        if other_id is not None:
            other_id = store_id(store, other_id) if kind == REPLACED else _referent_path(kind, other_id)
        suggested: set[str] | None = None  # what stands about the fact now, when OTHER_ID is given
        if other_id is None:
            others = _standing_others(store, fact_id, kind)
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


def _referent_path(kind: str, typed: str) -> str:
    """OTHER_ID as the referent finder names it: a path copied from the fact as written
    (`./src/a.py:12`, `src/a.py#L3`, `src/a.py.`) dismisses the suggestion naming `src/a.py`."""
    if kind != REFERENT:
        return typed
    path = normalize(typed)
    if path is None:
        raise SynapseError(
            f"dismiss --kind referent {clean(typed)}: not a repository path (a URL, a glob, a name"
            " with neither a / nor a file extension); give the path as `suggest` shows it"
        )
    return path


def _standing_others(store: Store, fact_id: str, kind: str) -> list[str]:
    """The other sides of the `kind` suggestions standing about the fact now; a refusal that
    says what to type instead when there are none (another kind stands, or no repository)."""
    if kind not in FINDERS:
        raise SynapseError(f"dismiss --kind {kind} needs the other side (OTHER_ID)")
    if kind == REFERENT and repository(store, None) is None:
        raise SynapseError(
            f"dismiss {clean(fact_id)} --kind referent: this store records no repository, so no"
            f" referent stands to take; name the path: {clean(suggestion_commands(fact_id, kind, 'PATH')[1])}"
        )
    mine = standing(store, [kind]).of(fact_id)
    if mine:
        return [s.other for s in mine]
    said = f"no standing {kind} suggestion about {fact_id!r}: nothing to dismiss"
    rest = standing(store, [k for k in FINDERS if k != kind]).of(fact_id)  # the other kinds
    if rest:
        kinds = sorted({s.kind for s in rest})
        lines = "; ".join(clean(suggestion_commands(fact_id, s.kind, s.other)[1]) for s in rest)
        said += f" (it has a {' and a '.join(kinds)} one: {lines})"
    raise SynapseError(said)
