"""Triage without the browser (SPEC 8): the browser's actions as subcommands.

One verb per `Action`, audited as `user:LOGIN`; each is the browser's transaction, so a
refusal (unknown id, read-only store, a supersession cycle, nothing to undo) changes
nothing. Human output is the browser's notice; `--json` is the `show --json` object.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from synapse_tui.cli.commands import main
from synapse_tui.cli.common import (
    TAKES_IDS,
    config_option,
    db_argument,
    emit_json,
    json_option,
    now_option,
    resolve_config,
    say,
    store_id,
)
from synapse_tui.core.base.clock import Clock
from synapse_tui.core.base.config import Config
from synapse_tui.core.review.memory import Memory
from synapse_tui.core.review.notices import opinion_change, opinion_of
from synapse_tui.core.review.suggestions import explained
from synapse_tui.core.review.triage import Action, Outcome, Triage, default_actor, trust_change
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.spot import spot_scores


def _run(
    db: str, now: str | None, config_path: str | None, as_json: bool, act: Callable[[Triage], Outcome]
) -> None:
    """Open DB for writing, act, then report the facts the action changed."""
    clock = Clock.from_option(now)
    config = resolve_config(db, config_path)
    with Store.open(db) as store:
        # a pinned clock (--now, SYNAPSE_NOW) must not date a change before its fact
        pinned = clock.pinned is not None
        outcome = act(Triage(store, clock, default_actor(store), config=config, in_order=pinned))
        changed = list(dict.fromkeys(outcome.fact_ids))
        if as_json:
            memory = Memory(store, config, clock.now())
            for fid in _reported(outcome, changed):
                info = memory.explain(fid)
                if info is not None:  # as `show --json`
                    emit_json(explained(memory, info))
            return
        after = spot_scores(store, config, clock.now(), changed)
    say(_describe(outcome, changed, outcome.scores_before, after, config))


def _reported(outcome: Outcome, changed: list[str]) -> list[str]:
    """The facts whose trust an action is about: the replaced one for a supersession
    (its k moved), every changed fact for an undo, else the fact acted on."""
    old = _superseded(outcome)
    if old is not None and not outcome.action.startswith(("undo", "redo")):
        return [old]
    return changed


def _superseded(outcome: Outcome) -> str | None:
    return next((c.fact_id for c in outcome.changes if "superseded_by" in (c.before | c.after)), None)


def _describe(outcome: Outcome, changed: list[str], before: dict, after: dict, config: Config) -> str:
    """The browser's notice: 'corroborate f-00046: trust 0.13 -> 0.81 (very low -> very high)',
    and what it did to d, u and the guidance; an undo also names the action it undid, who
    made it and when."""

    def change(fid: str) -> str:
        was, now = before[fid], after[fid]
        opinion = opinion_change(
            opinion_of(was["r"], was["s"], config), opinion_of(now["r"], now["s"], config), config.guidance
        )
        return trust_change(was, now) + opinion

    old = _superseded(outcome)
    if old is not None:
        new = next(f for f in changed if f != old)
        moves = [(f"{old} by {new}", change(old))]
    else:
        moves = [(fid, change(fid)) for fid in changed]
        if outcome.action == "contradict" and len(moves) == 1:
            moves = [(moves[0][0], "contradiction recorded; " + moves[0][1])]
    head, by = outcome.action, ""
    if outcome.undone_actor is not None:
        verb, _, action = outcome.action.partition(" ")
        head = f"{'undid' if verb == 'undo' else 'redid'} {action}"
        by = f" (by {outcome.undone_actor} at {outcome.undone_at})"
    if len(moves) == 1:
        return f"{head} {moves[0][0]}{by}: {moves[0][1]}"
    return f"{head} {len(moves)} facts{by}" + "".join(f"\n  {who}: {change}" for who, change in moves)


def _single(action: Action) -> click.Command:
    @db_argument
    @click.argument("fact_id")
    @now_option
    @json_option
    @config_option
    def command(db: str, fact_id: str, now: str | None, as_json: bool, config_path: str | None) -> None:
        _run(db, now, config_path, as_json, lambda t: t.apply(action, [store_id(t.store, fact_id)]))

    command.__doc__ = f"{action.value.capitalize()} a fact: {action.summary}."
    return main.command(action.value, context_settings=TAKES_IDS)(command)


for _action in Action:
    if _action not in (Action.SUPERSEDE, Action.DISMISS, Action.CONTRADICT):  # each has its own command
        _single(_action)


@main.command(Action.CONTRADICT.value, context_settings=TAKES_IDS)
@db_argument
@click.argument("fact_id")
@click.option(
    "--referent",
    metavar="PATH",
    help="Accept the broken-referent suggestion naming PATH: the repository's contradiction, "
    "audited as repo:SHA (SPEC 13).",
)
@click.option("--repo", metavar="DIR", help="With --referent: the repository (default: the recorded one).")
@now_option
@json_option
@config_option
def contradict_cmd(
    db: str,
    fact_id: str,
    referent: str | None,
    repo: str | None,
    now: str | None,
    as_json: bool,
    config_path: str | None,
) -> None:
    """Contradict a fact: one more contradiction (s + 1). With --referent, the contradiction
    comes from the repository that no longer holds PATH."""
    if referent is None:
        if repo is not None:
            raise click.UsageError("--repo goes with --referent")
        _run(
            db, now, config_path, as_json, lambda t: t.apply(Action.CONTRADICT, [store_id(t.store, fact_id)])
        )
        return
    _accept_referent(db, fact_id, referent, repo, now, config_path, as_json)


def _accept_referent(
    db: str, typed: str, path: str, repo: str | None, now: str | None, config_path: str | None, as_json: bool
) -> None:
    """The Gone-from-the-repository queue's `y`, from the command line."""
    from synapse_tui.cli.suggest import repo_hint
    from synapse_tui.core.review.referent import accept
    from synapse_tui.core.review.suggest_state import Options

    clock = Clock.from_option(now)
    config = resolve_config(db, config_path)
    with Store.open(db) as store:
        fid = store_id(store, typed)
        before = spot_scores(store, config, clock.now(), [fid])
        with repo_hint():
            accept(store, clock, fid, path, Options(repo=repo))
        if as_json:
            memory = Memory(store, config, clock.now())
            info = memory.explain(fid)
            if info is not None:
                emit_json(explained(memory, info))
            return
        after = spot_scores(store, config, clock.now(), [fid])
    say(
        f"contradict {fid}: the repository no longer holds {path}: "
        f"{trust_change(before[fid], after[fid])} (synapse-tui undo takes it back)"
    )


@main.command(Action.SUPERSEDE.value, context_settings=TAKES_IDS)
@db_argument
@click.argument("old_id")
@click.argument("new_id")
@now_option
@json_option
@config_option
def supersede_cmd(
    db: str, old_id: str, new_id: str, now: str | None, as_json: bool, config_path: str | None
) -> None:
    """NEW_ID replaces OLD_ID: NEW_ID names it in `supersedes` (a cycle is refused)."""
    _run(
        db,
        now,
        config_path,
        as_json,
        lambda t: t.apply(Action.SUPERSEDE, [store_id(t.store, old_id)], store_id(t.store, new_id)),
    )


@main.command("undo")
@db_argument
@now_option
@json_option
@config_option
def undo_cmd(db: str, now: str | None, as_json: bool, config_path: str | None) -> None:
    """Undo the last triage action not yet undone, whoever made it, and say what it was.

    The undo is itself an audited action: run it again for the one before."""
    _run(db, now, config_path, as_json, lambda t: t.undo())
