"""The list of palette commands, built from the app's current state."""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.binding import Binding
from textual.command import CommandPalette
from textual.widgets import Footer

from synapse_tui.core.ingest.sources import sync_recorded
from synapse_tui.core.review.queues import QUEUES, SORTS
from synapse_tui.ui.triage_actions import TRIAGE_BINDINGS
from synapse_tui.ui.widgets.fact_list import HIDEABLE
from synapse_tui.ui.workers import run_store_worker

if TYPE_CHECKING:
    from textual.screen import Screen

    from synapse_tui.ui.app import SynapseApp

Command = tuple[str, str, Callable[[], object]]


class KeysPalette(CommandPalette):
    """Textual's command palette with a Footer of its own keys: over the list, the list's
    Footer showed through naming keys (`/ find`, `n nbr`) that are typed into the
    palette's box while it is open (as a modal screen of ours has its own, base.py). Its
    box takes the arrows and enter (move, run), so the Footer names the way out."""

    BINDINGS = [
        Binding(
            "escape", "escape", "close", id="palette.close", tooltip="Close the palette, running nothing"
        ),
    ]

    @on(events.Mount)
    def _own_footer(self) -> None:
        self.mount(Footer(compact=True, show_command_palette=False))


def commands_for(app: SynapseApp, screen: Screen[Any] | None = None) -> list[Command]:
    main = app.main
    out: list[Command] = []

    def on_main(fn: Callable[[], object]) -> Callable[[], object]:
        def run() -> None:
            while app.screen is not main and len(app.screen_stack) > 1:
                app.pop_screen()
            fn()

        return run

    def calibration() -> None:
        from synapse_tui.ui.screens.calibration import CalibrationScreen

        if app.memory is not None:
            app.push_screen(CalibrationScreen("verdicts"))

    def sync_sources() -> None:
        """Import again what the store was imported from, in a thread; the browser sees the
        writes as another writer's and reloads (core/browser/)."""

        def work() -> None:
            app.browser.syncing = True  # its writes are this browser's: the reload says "your sync"
            try:
                results = sync_recorded(os.fspath(app.store.path), app.config)  # a server's too
            except Exception:
                app.browser.syncing = False  # nothing of the sync's to announce
                raise  # the worker's guard says why (ui/workers.py)
            lines = [
                f"{e['system']}: {r.added} added, {r.newly_deleted} deleted"
                if not isinstance(r, str)
                else f"{e['system']}: {r}"
                for e, r in results
            ]
            app.call_from_thread(app.notify, "\n".join(lines) or "this store records no sources")

        run_store_worker(app, work, "Could not sync the sources", group="sync-sources", exclusive=True)

    def copy_score_command() -> None:
        """The search shown, as the command that lists (or saves) the same facts:
        `synapse-tui score DB --where QUERY --limit 0` (add --json to keep them)."""
        import shlex

        from synapse_tui.core.base.location import locate

        query = app.browser.view.search.source.strip()
        where = f" --where {shlex.quote(query)}" if query else ""
        command = f"synapse-tui score {shlex.quote(locate(app.store.path).shown)}{where} --limit 0"
        app.copy_to_clipboard(command)
        app.notify(f"copied: {command}", timeout=6, markup=False)

    for i, q in enumerate(QUEUES):
        out.append((f"Queue: {q.title}", f"{q.why} (key {i + 1})", on_main(partial(main.action_queue, i))))
    for name, label in SORTS:
        out.append(
            (
                f"Sort by {label}",
                "ascending (o cycles, O reverses)",
                on_main(partial(main.set_sort, name, False)),
            )
        )
        out.append((f"Sort by {label}, reversed", "descending", on_main(partial(main.set_sort, name, True))))
    out += [
        (
            "Search",
            "full text and filters, e.g. trust<0.3 tier:auto payments (key /)",
            on_main(main.action_search),
        ),
        (
            "Open the selected fact",
            "factors, opinion, review date, provenance, history (enter)",
            on_main(main.action_open),
        ),
        (
            "Neighbours of the selected fact",
            "semantic neighbours and entities (n)",
            on_main(main.action_neighbours),
        ),
        (
            "How is this connected to that? (from the fact shown)",
            "the strongest chain of links to another fact, step by step; type its id",
            app.action_path,
        ),
        (
            "How is this connected to that? (the two marked facts)",
            "the strongest chain of links between the two facts marked with space",
            lambda: app.action_path(from_marks=True),
        ),
        ("Session log", "this session's triage by anyone; jump to a fact, undo (l)", app.action_session_log),
        (
            "Replaced? queue",
            "facts a newer fact probably replaces: accept (y) or dismiss (d) (R)",
            app.action_replaced,
        ),
        (
            "Gone from the repository? queue",
            "facts naming a path git says is gone: contradict (y) or dismiss (d) (B)",
            app.action_referents,
        ),
        ("Legend", "what the band colours, strike-through, dim rows and flags mean (L)", app.action_legend),
        (
            "Mark / unmark the selected fact",
            "c x v a then act on every marked fact as one action (space)",
            on_main(main.action_toggle_mark),
        ),
        (
            "Mark every fact in this queue",
            "for a bulk verify / accept / contradict (M)",
            on_main(main.action_mark_queue),
        ),
        ("Clear the marks", "unmark every fact (u)", on_main(main.action_clear_marks)),
        ("Calibrate freshness", "histograms of age and B; propose and apply B0 and s", app.action_calibrate),
        (
            "Calibration: is the score right?",
            "the score against people's verdicts; fitted constants",
            calibration,
        ),
        (
            "Copy this list as a score command",
            "synapse-tui score DB --where QUERY: the same facts on the command line (--json saves them)",
            copy_score_command,
        ),
        ("Sync sources", "import again what this store was imported from (import --from)", sync_sources),
        ("As of another time…", "view the store as of an RFC 3339 instant or -30d", app.action_as_of),
        ("Help", "every key, and what the colours, strike-through and dim rows mean (?)", app.action_help),
        ("Show / hide the detail pane", "beside or under the list (p)", on_main(main.action_toggle_pane)),
    ]
    for column in HIDEABLE:
        out.append(
            (
                f"Columns: hide / show {column}",
                "a hidden column gives its room to the fact's text (< > narrow and widen the ids)",
                on_main(partial(main.toggle_column, column)),
            )
        )
    out += [
        ("Columns: widen the ids", "up to the whole ids (>)", on_main(partial(main.action_id_column, 8))),
        (
            "Columns: narrow the ids",
            "the fact's text takes the room (<)",
            on_main(partial(main.action_id_column, -8)),
        ),
        (
            "Count the list by note, tier, source or agent",
            "a frequency view of the facts listed; enter lists one value's (F)",
            on_main(main.action_frequency),
        ),
    ]
    if app.as_of is not None:
        out.append(("Back to now", "leave the as-of view", lambda: app.set_as_of(None)))
    # triage acts on the fact of the view the palette was opened from (list, detail, neighbours)
    for binding in TRIAGE_BINDINGS:
        move = binding.action.split("'")[1]
        out.append(
            (
                f"Triage: {move}",
                f"{binding.tooltip} ({binding.key})",
                partial(app.action_triage, move),
            )
        )
    return out
