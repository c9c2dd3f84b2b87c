"""Calibration (command palette): the store's own histograms of age and B, and the
B0 / s they suggest (SPEC 2.2). Applying writes the config and rescores every fact."""

from __future__ import annotations

from dataclasses import replace

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Sparkline, Static

from synapse_tui.core.base.config import config_path_for, write_config
from synapse_tui.core.trust.calibrate import Calibration, Histogram, calibrate
from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.text import bar, two
from synapse_tui.ui.widgets import explain as xp

HBAR = 30


class CalibrationReady(Message):
    def __init__(self, calibration: Calibration | None, error: str | None = None) -> None:
        self.calibration, self.error = calibration, error
        super().__init__()


class CalibrationApplied(Message):
    def __init__(self, path: str | None, error: str | None = None) -> None:
        self.path, self.error = path, error
        super().__init__()


def _histogram(title: str, h: Histogram, labels: list[str], colour: str, muted: str) -> Text:
    out = Text()
    out.append(title + "\n", style="bold")
    top = max(h.counts or [1]) or 1
    width = max(len(label) for label in labels) if labels else 0
    for label, count in zip(labels, h.counts, strict=False):
        out.append(f"  {label:>{width}} ")
        out.append_text(bar(count / top, HBAR, colour, muted))
        out.append(f" {count}\n")
    return out


def _age_labels(edges: list[float]) -> list[str]:
    def d(x: float) -> str:
        return f"{x:g}d" if x < 731 else "older"

    return [f"{d(a)}–{d(b)}" if b < 731 else f"> {d(a)}" for a, b in zip(edges, edges[1:], strict=False)]


class CalibrationScreen(Screen):
    BINDINGS = [
        Binding("escape", "close", "close", id="calibration.close", tooltip="Close calibration"),
        Binding(
            "w",
            "apply",
            "apply proposed",
            id="calibration.apply",
            tooltip="Write the proposed B0 and s to the config file and rescore every fact",
        ),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.calibration: Calibration | None = None

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with VerticalScroll(id="cal-body"):
            yield Static(id="cal-summary")
            yield Static(Text("B (activation) histogram as a sparkline", style="bold"), id="cal-spark-title")
            yield Sparkline([], id="cal-spark")
            yield Static(id="cal-hists")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.app.subtitle()
        self.query_one("#cal-summary", Static).update("computing…")
        self.query_one("#cal-body").focus()
        self.compute()

    @work(thread=True, exclusive=True, group="calibrate")
    def compute(self) -> None:
        app = self.app
        try:
            with app.db_lock:
                result = calibrate(app.memory)
        except Exception as exc:  # e.g. an empty store
            self.post_message(CalibrationReady(None, str(exc)))
            return
        self.post_message(CalibrationReady(result))

    def on_calibration_ready(self, message: CalibrationReady) -> None:
        colours = xp.palette(self.app.theme_variables)
        if message.calibration is None:
            self.query_one("#cal-summary", Static).update(Text(f"cannot calibrate: {message.error}"))
            return
        cal = self.calibration = message.calibration
        table = Table(box=None, padding=(0, 2), show_edge=False)
        table.add_column("", style="bold")
        table.add_column("current", justify="right")
        table.add_column("proposed", justify="right")
        table.add_row("B0 (freshness.b0)", two(cal.current_b0), two(cal.proposed_b0))
        table.add_row("s (freshness.scale)", two(cal.current_scale), two(cal.proposed_scale))
        table.add_row("", "", "")
        table.add_row(Text("band", style="bold"), Text("before", style="bold"), Text("after", style="bold"))
        for band in BANDS:
            table.add_row(band, str(cal.bands_before[band]), str(cal.bands_after[band]))
        summary = Text()
        summary.append("CALIBRATE FRESHNESS\n", style="bold")
        summary.append(
            f"Proposed from the {cal.heads} head facts (k = 0): B0 = median(B), s = IQR(B) / "
            "(2 ln 3), so the middle half of the store spans freshness 0.25..0.75.\n"
            "Press w to write them to the config and rescore; escape leaves unchanged.\n",
            style="italic",
        )
        self.query_one("#cal-summary", Static).update(self._summary(summary, table))
        self.query_one("#cal-spark", Sparkline).data = [float(c) for c in cal.activations.counts]
        b_labels = [
            f"{a:.1f}..{b:.1f}"
            for a, b in zip(cal.activations.edges, cal.activations.edges[1:], strict=False)
        ]
        hists = Text("\n")
        hists.append_text(
            _histogram(
                "AGE OF FACTS (days since creation)",
                cal.ages,
                _age_labels(cal.ages.edges),
                colours["primary"],
                colours["muted"],
            )
        )
        hists.append("\n")
        hists.append_text(
            _histogram(
                "ACTIVATION B (all facts)", cal.activations, b_labels, colours["secondary"], colours["muted"]
            )
        )
        self.query_one("#cal-hists", Static).update(hists)

    def _summary(self, summary: Text, table: Table):
        from rich.console import Group

        return Group(summary, table)

    def action_apply(self) -> None:
        if self.calibration is None:
            return
        self.apply(self.calibration)

    @work(thread=True, exclusive=True, group="calibrate")
    def apply(self, cal: Calibration) -> None:
        app = self.app
        new = cal.proposed_config(app.config)
        path = app.config.path or config_path_for(app.store.path)
        try:
            write_config(new, path)
        except OSError as exc:
            self.post_message(CalibrationApplied(None, f"cannot write {path}: {exc}"))
            return
        app.browser.set_config(replace(new, path=path))
        self.post_message(CalibrationApplied(str(path)))

    def on_calibration_applied(self, message: CalibrationApplied) -> None:
        if message.error:
            self.app.notify(message.error, severity="error", markup=False)
            return
        self.app.notify(f"wrote {message.path}; every fact rescored", timeout=4, markup=False)
        self.app.memory_changed("config")
        self.compute()

    def action_close(self) -> None:
        self.dismiss()
