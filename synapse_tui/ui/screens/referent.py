"""The "Gone from the repository?" queue (B): facts naming a path git says is gone (SPEC 13,
issue 40). The pane shows the path, the commit that removed it and when, and for a rename
the new path. `y` records it as a contradiction from the repository (audited with actor
`repo:<commit>`, ctrl+z undoes it), `d` dismisses (never suggested again); `space` marks
(`M` all, `u` none), `Y` / `D` act on every marked one. The queue reads the repository a
`claude-code --project` or git Markdown source recorded.
"""

from __future__ import annotations

from rich.text import Text
from textual.notifications import SeverityLevel

from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.review.referent import Broken, NoRepository, queue
from synapse_tui.core.review.suggest_state import dismissals
from synapse_tui.ui.screens.replaced import QueueReady, ReplacedScreen, queue_bindings
from synapse_tui.ui.text import clean, clean_block
from synapse_tui.ui.workers import store_work


class ReferentScreen(ReplacedScreen):
    TITLE = "Gone from the repository?"
    HELP_TITLE = "Gone from the repository? queue"
    HELP_ENTER = "Open the fact full screen (escape comes back here)"
    # its list and pane are styled as the Replaced? queue's: that DEFAULT_CSS applies to a subclass
    BINDINGS = queue_bindings(
        "referent",
        "B",
        queue="Gone?",
        row="one",
        # `contra`, as the triage keys name it: the Footer keeps `? help` at 80 columns
        accept=("contra", "Record it as a contradiction from the repository (undo: ctrl+z)"),
        dismiss="Dismiss: the fact still holds; never suggested again (undo: ctrl+z)",
        accept_marked=(
            "contradict marked",
            "Record every marked one as a contradiction from the repository, as one action"
            " (asks first when more than one; one ctrl+z undoes it)",
        ),
    )
    FOOTER_EXTRAS = ("referent.accept_marked", "referent.dismiss_marked")
    HELP_LATER: dict[str, str] = {}  # one `y`, one meaning: every row is a gone path's
    Y_GONE = "accept"  # its `accept` binding names the contradiction already
    SCORED = False  # every one is 1.00
    GONE = ("  ", "bold red")
    EMPTY = ("nothing gone", "checking the repository…")
    ACCEPT_MARKED = "record {n} contradictions from the repository, as one action (ctrl+z undoes it)?"

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
            app.call_from_thread(self._cannot_check, str(exc), severity)
            return
        self.post_message(QueueReady(found, texts))

    def _cannot_check(self, why: str, severity: SeverityLevel) -> None:
        """Why the referents cannot be checked: in a notice when it is news (this visit's
        first, or other than the pane says already), not again at each reload of the queue
        (every undo and redo finds it again); the pane says it all along."""
        if why != self.failure:
            self.app.notify(f"referents cannot be checked: {why}", severity=severity)
        self._not_found(why)

    def _pane(self) -> None:
        s = self.current()
        if s is None:
            self._pane_empty()
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
