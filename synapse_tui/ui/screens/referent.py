"""The "Gone from the repository?" queue (B): facts naming a path git says is gone (SPEC 13,
issue 40). The pane shows the path, the commit that removed it and when, and for a rename
the new path. `y` records it as a contradiction from the repository (audited with actor
`repo:<commit>`, ctrl+z undoes it), `d` dismisses (never suggested again); `space` marks
(`M` all, `u` none), `Y` / `D` act on every marked one. The queue reads the repository a
`claude-code --project` or git Markdown source recorded.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding

from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.review.referent import Broken, NoRepository, queue
from synapse_tui.core.review.suggest import Suggestion
from synapse_tui.core.review.suggest_state import dismissals
from synapse_tui.ui.screens.base import pane_bindings
from synapse_tui.ui.screens.replaced import QueueReady, ReplacedScreen, accept_together, path_end, row_text
from synapse_tui.ui.text import clean, clean_block, fit
from synapse_tui.ui.workers import store_work


class ReferentScreen(ReplacedScreen):
    TITLE = "Gone from the repository?"
    HELP_TITLE = "Gone from the repository? queue"
    HELP_ENTER = "Open the fact full screen (escape comes back here)"
    DEFAULT_CSS = """
    ReferentScreen #replaced-list { height: 1fr; text-wrap: nowrap; text-overflow: ellipsis; }
    ReferentScreen #replaced-pane-box {
        height: auto; max-height: 50%; border-top: solid $primary; border-title-align: right;
    }
    ReferentScreen #replaced-pane { height: auto; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,B", "close", "close", id="referent.close", tooltip="Close the Gone? queue"),
        Binding(
            "y",
            "accept",
            "contra",  # as the triage keys name it: the Footer keeps `? help` at 80 columns
            id="referent.accept",
            tooltip="Record it as a contradiction from the repository (undo: ctrl+z)",
        ),
        Binding(
            "d",
            "dismiss_one",
            "dismiss",
            id="referent.dismiss",
            tooltip="Dismiss: the fact still holds; never suggested again (undo: ctrl+z)",
        ),
        Binding(
            "space",
            "mark",
            "mark",
            key_display="␣",
            id="referent.mark",
            tooltip="Mark or unmark the highlighted one and move down (as in the list)",
        ),
        Binding(
            "M",
            "mark_all",
            "mark all",
            show=False,
            id="referent.mark_all",
            tooltip="Mark every one in the queue (as M in the list); Y or D then acts on them",
        ),
        Binding(
            "u", "clear_marks", "unmark", show=False, id="referent.clear_marks", tooltip="Clear every mark"
        ),
        Binding(
            "Y",
            "accept_marked",
            "contradict marked",
            show=False,  # help lists it; the Footer from 120 columns (`FOOTER_EXTRAS`)
            id="referent.accept_marked",
            tooltip="Record every marked one as a contradiction from the repository, as one action"
            " (asks first when more than one; one ctrl+z undoes it)",
        ),
        Binding(
            "D",
            "dismiss_marked",
            "dismiss marked",
            show=False,
            id="referent.dismiss_marked",
            tooltip="Dismiss every marked one as one action (asks first when more than one)",
        ),
        *pane_bindings("referent"),
    ]
    FOOTER_EXTRAS = ("referent.accept_marked", "referent.dismiss_marked")
    ROW_START = 2  # the mark: no score (every one is 1.00)
    GONE_GAP = 2

    def __init__(self) -> None:
        super().__init__()
        self.broken: dict[tuple[str, str], Broken] = {}

    @store_work("Could not check the referents", group="referent", exclusive=True, failed="_not_found")
    def load(self) -> None:
        app = self.app
        try:
            with app.db_lock:
                memory = app.memory
                if memory is None:
                    return
                # one run of the finder: the list and the pane's commits and new paths; no
                # repository recorded raises (said so, not "nothing gone")
                listed, self.broken = queue(memory, dismissals(app.store))
                found = tuple(listed)
                index = memory.index
                known = sorted({s.fact for s in found if s.fact in index})
                texts = dict(zip(known, app.texts([index[i] for i in known]), strict=True))
        except SynapseError as exc:  # no repository recorded (a state: a warning), or git cannot read it
            severity = "warning" if isinstance(exc, NoRepository) else "error"
            app.call_from_thread(app.notify, f"referents cannot be checked: {exc}", severity=severity)
            app.call_from_thread(self._not_found, str(exc))  # the pane says it too
            return
        self.post_message(QueueReady(found, texts))

    def _label(self, s: Suggestion) -> Text:
        """The fact's id, the gone path and the fact's text, in the columns `_measure`
        gives (no score: every one is 1.00)."""
        shape = self._shape
        mark = "● " if s.key in self.marked else "  "
        line = Text(mark)
        line.append(fit(self._row_id(s.fact, shape), shape.older), style="bold")
        line.append("  ")
        line.append(fit(path_end(clean(s.other), shape.path), shape.path), style="bold red")
        line.append("  " + row_text(self.texts.get(s.fact, "")), style="dim")
        return line

    def _pane(self) -> None:
        from textual.widgets import Static

        s = self.current()
        pane = self.query_one("#replaced-pane", Static)
        if s is None:
            pane.update(Text(self._empty("nothing gone", "checking the repository…"), style="italic"))
            return
        b = self.broken.get((s.fact, s.other))
        body = Text()
        body.append(f"FACT  {clean(s.fact)}\n", style="bold")
        body.append(clean_block(self.texts.get(s.fact, "")))
        body.append("\n\nPATH  ", style="bold")
        body.append(clean(s.other))
        if b is not None:
            body.append("\nREMOVED BY  ", style="bold")
            body.append(f"{clean(b.removed_by[:12])} on {clean(b.to_json()['removed_on'])}")
            if b.new_path:
                body.append("\nNEW PATH  ", style="bold")
                body.append(clean(b.new_path), style="bold green")
        body.append("\n\nwhy: ", style="bold")
        body.append(clean(s.why))
        body.append(self.hint("contradicts"), style="dim")
        self._show_pane(body)

    def _pane_empty(self) -> None:
        from textual.widgets import Static

        self.query_one("#replaced-pane", Static).update(
            Text(self._empty("nothing gone", "checking the repository…"), style="italic")
        )

    def action_accept(self) -> None:
        s = self.current()
        if s is None:
            self._none()
        else:
            accept_together(self, [s])

    def action_accept_marked(self) -> None:
        chosen = self._chosen()
        if not chosen:
            self.app.notify("mark suggestions first (space)", severity="warning", timeout=2)
            return

        def go(yes: bool | None) -> None:
            if yes:
                accept_together(self, chosen)
                self.marked.clear()

        self._confirm(
            f"record {len(chosen)} contradictions from the repository, as one action (ctrl+z undoes it)?",
            len(chosen),
            go,
        )
