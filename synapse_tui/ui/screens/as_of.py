"""As of (command palette): ask for another instant to view the store at."""

from __future__ import annotations

import re

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import var
from textual.widgets import Input, Static

from synapse_tui.core.base.clock import format_time, parse_time
from synapse_tui.ui.screens.base import SynapseModalScreen

_RELATIVE = re.compile(r"^([+-]?)(\d+(?:\.\d+)?)\s*(m|min|h|d|w|mo|y)$")
_UNITS = {"m": 60, "min": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "mo": 30 * 86400, "y": 365.25 * 86400}


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_instant(text: str, now: float) -> float:
    """An RFC 3339 time, a date (its midnight UTC), `now`, or a relative offset like -30d,
    +2w, -6h, -1y (a bare `30d` is the past; a later instant shows the scores faded as
    they will be then)."""
    text = text.strip()
    if text.lower() in ("now", ""):
        return now
    m = _RELATIVE.match(text)
    if m:
        sign = 1 if m.group(1) == "+" else -1  # a bare number means the past
        when = now + sign * float(m.group(2)) * _UNITS[m.group(3)]
    else:
        try:
            when = parse_time(f"{text}T00:00:00Z" if _DATE.match(text) else text)
        except ValueError:
            raise ValueError(
                f"not a time: {text!r}; use RFC 3339 (2025-06-01T00:00:00Z), a date or -30d, -6h, +2w"
            ) from None
    return when


class AsOfScreen(SynapseModalScreen[float | str | None]):
    """Dismisses with an instant, "now" to return to now, or None when cancelled."""

    BINDINGS = [Binding("escape", "cancel", "cancel", id="asof.cancel", tooltip="Cancel")]

    error: var[str | None] = var(None, init=False)  # what is wrong with the instant typed

    def __init__(self, now: float, current: float | None) -> None:
        super().__init__()
        self.now = now
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="asof-box") as box:
            box.border_title = "View the store as of…"
            yield Static(
                Text(
                    f"now is {format_time(self.now)}. Type an RFC 3339 time, a date or a relative "
                    "offset (-30d, -6h, +2w) and press enter; empty or now returns to now."
                )
            )
            yield Input(
                value=format_time(self.current) if self.current else "", placeholder="-30d", id="asof-input"
            )
            yield Static(id="asof-error")

    def on_mount(self) -> None:
        self.query_one("#asof-input").focus()

    def watch_error(self, error: str | None) -> None:
        self.set_class(error is not None, "-error")
        self.query_one("#asof-error", Static).update(Text(error or ""))

    @on(Input.Submitted, "#asof-input")
    def _submit(self, event: Input.Submitted) -> None:
        try:
            when = parse_instant(event.value, self.now)
        except ValueError as exc:
            self.error = str(exc)
            return
        self.dismiss("now" if abs(when - self.now) < 1 else when)

    def action_cancel(self) -> None:
        self.dismiss(None)
