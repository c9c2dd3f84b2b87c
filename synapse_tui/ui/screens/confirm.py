"""A yes/no question before something large (a bulk action on many marked facts).

The box has a definite width (a box sized by its content, whose text is sized by the
box, collapses to its border: the dialog used to be invisible), and the question wraps.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from synapse_tui.core.base.textsafe import clean_block
from synapse_tui.ui.screens.base import SynapseModalScreen


class ConfirmScreen(SynapseModalScreen[bool]):
    BINDINGS = [
        Binding("y,enter", "answer(True)", "yes", id="confirm.yes", tooltip="Yes, do it"),
        Binding("n,escape", "answer(False)", "no", id="confirm.no", tooltip="No, change nothing"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = "Confirm"
            yield Static(Text(clean_block(self.question)), id="confirm-question")  # names paths, ids
            yield Static(Text("y / enter: yes    n / escape: no", style="bold"), id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
