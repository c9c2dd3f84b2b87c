"""Calibration (command palette), three tabs.

Freshness: the store's own histograms of age and B, and the B0 / s they suggest (SPEC 2.2).
Verdicts: the score against what people decided (SPEC 11): the reliability diagram
(observed rate against mean trust per bin, Wilson intervals, the diagonal), the table, the
groups by factor input, and the constants fitted to the verdicts beside the current ones.
History: the score against what happened next in the store's own history (SPEC 14): the
survival table, AUC before and after, the history fit and its decision; `a` adopts it as on
Verdicts, and when no freshness beats a constant rate `f` offers to flatten freshness.

Either proposal is written to the config only when asked (`w`, `a`; `a` asks first and
shows the bands before and after), every fact is rescored, and ctrl+z here takes the
config write back (the file as it was). Triage's undo is not offered in this view: its
ctrl+z would take back an old triage action the user cannot see from here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Sparkline, Static, TabbedContent, TabPane

from synapse_tui.core.base.config import Config, config_path_for
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.browser import Loaded
from synapse_tui.core.store.db import Store
from synapse_tui.core.trust.calibrate import (
    ONE_AGE,
    Calibration,
    ConfigWrite,
    Histogram,
    bands_under,
    calibrate,
    undo_write,
    write_undoable,
)
from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.text import bar, two
from synapse_tui.ui.widgets import explain as xp
from synapse_tui.ui.widgets.reliability import ReliabilityView
from synapse_tui.ui.workers import store_work

if TYPE_CHECKING:
    from synapse_tui.core.trust.history_fit import HistoryFit
    from synapse_tui.ui.app import SynapseApp

HBAR = 30


@dataclass
class CalibrationReady(Message):
    calibration: Calibration | None
    error: str | None = None


@dataclass
class VerdictsReady(Message):
    report: Any  # VerdictReport (core.review.verdicts loads when the tab is first read)
    error: str | None = None


@dataclass
class HistoryReady(Message):
    report: dict[str, Any] | None  # calibrate --backtest --fit's JSON object
    error: str | None = None
    fit: HistoryFit | None = None


@dataclass
class AdoptPreview(Message):
    """The bands now and under the fitted constants: what the question shows."""

    config: Config
    before: dict[str, int]
    after: dict[str, int]
    names: tuple[str, ...] = ()
    what: str = "the fitted constants"
    fitted: bool = True  # fitted to verdicts: the store records it
    # fitted to the history: the constants recorded (FIT_META) with the samples, else None
    history: tuple[dict[str, float], int] | None = None


@dataclass
class CalibrationApplied(Message):
    change: ConfigWrite | None
    what: str
    error: str | None = None
    loaded: Loaded | None = None  # every fact rescored under the config written


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
    TABS = ("freshness", "verdicts", "history")
    BINDINGS = [
        Binding("escape", "close", "close", id="calibration.close", tooltip="Close calibration"),
        Binding(
            "tab",
            "next_tab",
            "next tab",
            key_display="⇥",
            priority=True,
            id="calibration.next_tab",
            tooltip="The next tab (shift+tab: the previous one; 1, 2 and 3 go to each)",
        ),
        Binding(
            "shift+tab",
            "next_tab(-1)",
            "previous tab",
            show=False,
            priority=True,
            id="calibration.previous_tab",
            tooltip="The previous tab",
        ),
        Binding(
            "1", "tab('freshness')", "Freshness", show=False, id="calibration.tab_1", tooltip="Freshness tab"
        ),
        Binding(
            "2", "tab('verdicts')", "Verdicts", show=False, id="calibration.tab_2", tooltip="Verdicts tab"
        ),
        Binding("3", "tab('history')", "History", show=False, id="calibration.tab_3", tooltip="History tab"),
        Binding(
            "f",
            "flatten",
            "flatten freshness",
            id="calibration.flatten",
            tooltip="Age does not predict revision here: make freshness flat instead of calling old facts stale",
        ),
        Binding(
            "pagedown",
            "scroll('page_down')",
            "page down",
            show=False,
            id="calibration.pagedown",
            tooltip="Scroll the tab down one screen",
        ),
        Binding(
            "pageup",
            "scroll('page_up')",
            "page up",
            show=False,
            id="calibration.pageup",
            tooltip="Scroll the tab up one screen",
        ),
        Binding("home", "scroll('home')", "top", show=False, id="calibration.home", tooltip="The tab's top"),
        Binding("end", "scroll('end')", "end", show=False, id="calibration.end", tooltip="The tab's end"),
        Binding(
            "w",
            "apply",
            "apply B0/s",
            id="calibration.apply",
            tooltip="Write the proposed B0 and s to the config file and rescore every fact",
        ),
        Binding(
            "a",
            "adopt",
            "adopt fit",
            id="calibration.adopt",
            tooltip="Write the constants fitted to the verdicts (or the history) to the config (asks first)",
        ),
        Binding(
            "ctrl+z",
            "undo_write",
            "undo write",
            key_display="^z",
            id="calibration.undo",
            tooltip="Put the config file back as it was before the last write here, and rescore",
        ),
    ]

    def __init__(self, tab: str = "freshness") -> None:
        super().__init__()
        self.tab = tab
        self.calibration: Calibration | None = None
        self.report = None  # VerdictReport, once computed
        self.history: dict[str, Any] | None = None  # the history fit's report, once computed
        self.history_fit: HistoryFit | None = None
        self.writes: list[ConfigWrite] = []  # this view's config writes, newest last
        self._later: list = []  # work that waits for the first tab to be painted
        self.table_painted_at: float | None = None

    # the app asks this before its own ctrl+z (triage undo): not here, see the module doc
    OWNS_UNDO = True

    @property
    def synapse(self) -> SynapseApp:
        return cast("SynapseApp", self.app)

    def compose(self) -> ComposeResult:
        yield Header(icon="◆")
        with TabbedContent(initial=self.tab, id="cal-tabs"):
            with TabPane("Freshness", id="freshness"), VerticalScroll(id="cal-body"):
                yield Static(id="cal-summary")
                yield Static(
                    Text("B (activation) histogram as a sparkline", style="bold"), id="cal-spark-title"
                )
                yield Sparkline([], id="cal-spark")
                yield Static(id="cal-hists")
            with TabPane("Verdicts", id="verdicts"):
                yield ReliabilityView(id="ver-body")
            with TabPane("History", id="history"), VerticalScroll(id="his-body"):
                yield Static(id="his-summary")
        yield Footer(compact=True, show_command_palette=False)

    def on_mount(self) -> None:
        self.sub_title = self.synapse.subtitle()
        self.query_one("#cal-summary", Static).update("computing…")
        self.query_one("#ver-summary", Static).update("reading the verdicts…")
        # the tab in front first; the other one, and the fit, once it is on screen: on two
        # busy cores a worker computing beside the paint slows the paint more than itself
        self.query_one("#his-summary", Static).update("reading the history…")
        first = {"verdicts": self.compute_verdicts, "history": self.compute_history}.get(
            self.tab, self.compute
        )
        self._later = [w for w in (self.compute, self.compute_verdicts, self.compute_history) if w != first]
        first()

    def _next(self) -> None:
        if self._later:
            self.call_after_refresh(self._later.pop(0))

    def on_resize(self) -> None:
        # below ~100x30 the diagram has no room to say anything: the table stays
        self.set_class(self.size.width < 100 or self.size.height < 30, "-cramped")

    # -- tabs: tab / shift+tab / 1 / 2 / 3; each tab's keys only on it ----------------------------
    @property
    def active_tab(self) -> str:
        return self.query_one("#cal-tabs", TabbedContent).active or self.tab

    def action_tab(self, tab: str) -> None:
        self.query_one("#cal-tabs", TabbedContent).active = tab

    def action_next_tab(self, step: int = 1) -> None:
        i = self.TABS.index(self.active_tab) if self.active_tab in self.TABS else 0
        self.action_tab(self.TABS[(i + step) % len(self.TABS)])

    def _body(self):
        return self.query_one(
            {"freshness": "#cal-body", "verdicts": "#ver-body"}.get(self.active_tab, "#his-body")
        )

    def action_scroll(self, how: str) -> None:
        """pagedown / pageup / home / end scroll the tab in front, wherever the focus is."""
        body = self._body()
        {
            "page_down": body.scroll_page_down,
            "page_up": body.scroll_page_up,
            "home": body.scroll_home,
            "end": body.scroll_end,
        }[how](animate=False)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.refresh_bindings()  # w belongs to Freshness, a to Verdicts
        self.call_after_refresh(self._body().focus)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "apply":  # the Freshness tab's proposal: not offered on Verdicts
            return self.calibration is not None and self.active_tab == "freshness"
        if action == "adopt":
            if self.active_tab == "history":
                return self.history_fit is not None and self.history_fit.adopts
            return (
                self.active_tab == "verdicts"
                and self.report is not None
                and self.report.fit is not None
                and self.report.fit.decision == "adopt"
            )
        if action == "flatten":
            return (
                self.active_tab == "history"
                and self.history is not None
                and self.history["fit"].get("flatten") is not None
            )
        if action == "undo_write":
            return bool(self.writes)
        return True

    # -- freshness -----------------------------------------------------------------------
    @store_work("Could not calibrate", group="calibrate", exclusive=True)
    def compute(self) -> None:
        app = self.synapse
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
        self.refresh_bindings()
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
        if cal.one_age:
            summary.append(f"{ONE_AGE}\n", style="bold italic")
        self.query_one("#cal-summary", Static).update(Group(summary, table))
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
        self._next()

    def action_apply(self) -> None:
        if self.check_action("apply", ()) and self.calibration is not None:
            self.write(self.calibration.proposed_config(self.synapse.config), "B0 and s")

    # -- verdicts ------------------------------------------------------------------------
    @store_work("Could not read the verdicts", group="verdicts", exclusive=True)
    def compute_verdicts(self) -> None:
        from synapse_tui.core.review.verdicts import verdict_report

        app = self.synapse
        try:  # its own read connection: the browser's (and its lock) stay free meanwhile
            with Store.open(app.store.path, readonly=True) as store, store.snapshot():
                report = verdict_report(store, app.config, fitted=False)
        except Exception as exc:
            self.post_message(VerdictsReady(None, str(exc)))
            return
        self.post_message(VerdictsReady(report))  # the table and diagram now, the fit after

    @store_work("Could not fit the verdicts", group="verdicts", exclusive=True)
    def fit_verdicts(self, report) -> None:
        try:
            self.post_message(VerdictsReady(report.with_fit(self.synapse.config)))
        except Exception as exc:
            self.post_message(VerdictsReady(None, f"cannot fit: {exc}"))

    def on_verdicts_ready(self, message: VerdictsReady) -> None:
        if message.report is None:
            self.query_one("#ver-summary", Static).update(Text(f"cannot read the verdicts: {message.error}"))
            return
        self.report = report = message.report
        self.refresh_bindings()
        self.query_one(ReliabilityView).show_report(report)
        if report.fit is None:
            self._later.insert(0, lambda: self.fit_verdicts(report))
            self.call_after_refresh(self._painted)
        self._next()

    def _painted(self) -> None:
        self.table_painted_at = time.perf_counter()  # benchmarks/bench_calibrate.py reads it

    # -- history (SPEC 14) ----------------------------------------------------------------
    @store_work("Could not read the history", group="history", exclusive=True)
    def compute_history(self) -> None:
        from synapse_tui.core.review.backtest import history_report
        from synapse_tui.core.review.memory import Memory

        app = self.synapse
        if app.memory is None:
            self.post_message(HistoryReady(None, "the store is still loading"))
            return
        now = app.memory.scores.now
        try:  # its own read connection: the browser's (and its lock) stay free meanwhile
            with Store.open(app.store.path, readonly=True) as store, store.snapshot():
                report, fit = history_report(Memory(store, app.config, now))
        except Exception as exc:
            self.post_message(HistoryReady(None, str(exc)))
            return
        self.post_message(HistoryReady(report, fit=fit))

    def on_history_ready(self, message: HistoryReady) -> None:
        summary = self.query_one("#his-summary", Static)
        if message.report is None:
            summary.update(Text(f"cannot read the history: {message.error}"))
            self._next()
            return
        self.history, self.history_fit = message.report, message.fit
        self.refresh_bindings()
        summary.update(history_view(message.report))
        self._next()

    def action_flatten(self) -> None:
        if self.history is not None and self.check_action("flatten", ()):
            flat = self.history["fit"]["flatten"]
            self.preview(flat, tuple(flat), "flat freshness", False)

    def action_adopt(self) -> None:
        if not self.check_action("adopt", ()):
            return
        if self.active_tab == "history" and self.history is not None and self.history_fit is not None:
            from synapse_tui.core.trust.history_fit import adopted_config

            new, written = adopted_config(self.history_fit, self.synapse.config)
            record = (written, int(self.history["samples"]))
            self.preview(written, tuple(written), "the constants fitted to the history", False, new, record)
        elif self.report is not None and self.report.fit is not None:
            self.preview(self.report.fit.proposed, tuple(self.report.fit.fitted))

    @store_work("Could not preview the change", group="calibrate", exclusive=True)
    def preview(
        self,
        values: dict[str, float],
        names: tuple[str, ...],
        what: str = "the fitted constants",
        fitted: bool = True,
        config: Config | None = None,
        history: tuple[dict[str, float], int] | None = None,
    ) -> None:
        """`config`: the config to write, when more than `values` change (a kind's own)."""
        from synapse_tui.core.trust.fit import with_constants

        app = self.synapse
        new = config if config is not None else with_constants(app.config, values)
        with app.db_lock:
            before, after = bands_under(app.memory, app.config), bands_under(app.memory, new)
        self.post_message(AdoptPreview(new, before, after, names, what, fitted, history))

    def on_adopt_preview(self, message: AdoptPreview) -> None:
        from synapse_tui.ui.screens.confirm import ConfirmScreen

        lines = [f"Write {', '.join(message.names)} to the config and rescore every fact?", ""]
        lines += [f"{band:>9}  {message.before[band]:>7} -> {message.after[band]}" for band in BANDS]
        lines += ["", "ctrl+z here puts the config back."]

        def answered(yes: bool | None) -> None:
            if yes:
                self.write(message.config, message.what, fitted=message.fitted, history=message.history)

        self.synapse.push_screen(ConfirmScreen("\n".join(lines)), answered)

    # -- writing and taking back -----------------------------------------------------------
    @store_work(lambda _, new, what, *a, **k: f"Could not apply {what}", group="calibrate", exclusive=True)
    def write(
        self,
        new: Config,
        what: str,
        fitted: bool = False,
        history: tuple[dict[str, float], int] | None = None,
    ) -> None:
        app = self.synapse
        path = app.config.path or config_path_for(app.store.path)
        if path is None:  # a store on a server: no file beside it
            why = "a server has no config file beside it; open the browser with --config FILE"
            self.post_message(CalibrationApplied(None, what, f"{what} not written: {why}"))
            return
        try:
            if fitted and self.report is not None and self.report.fit is not None and not app.store.readonly:
                from synapse_tui.core.review.verdicts import record_fit

                with app.db_lock:  # what an agent is told over MCP: fitted, on how many verdicts
                    record_fit(app.store, self.report.fit, self.report.verdicts, app.clock.now())
            if history is not None and not app.store.readonly:
                from synapse_tui.core.review.verdicts import record_history_fit

                with app.db_lock:  # fitted to the history, on how many samples (SPEC 14)
                    record_history_fit(app.store, history[0], history[1], app.clock.now())
            change = write_undoable(new, path)
        except (OSError, SynapseError) as exc:
            self.post_message(CalibrationApplied(None, what, f"cannot write {path}: {exc}"))
            return
        self.post_message(
            CalibrationApplied(change, what, loaded=app.browser.set_config(replace(new, path=path)))
        )

    def action_undo_write(self) -> None:
        if self.writes:
            self.take_back(self.writes[-1])

    @store_work("Could not put the config back", group="calibrate", exclusive=True)
    def take_back(self, change: ConfigWrite) -> None:
        try:
            config = undo_write(change)
        except Exception as exc:  # unreadable now, or the folder went read-only
            self.post_message(CalibrationApplied(None, "undo", f"cannot put {change.path} back: {exc}"))
            return
        loaded = self.synapse.browser.set_config(replace(config, path=change.path))
        self.post_message(CalibrationApplied(None, "undo", loaded=loaded))

    def on_calibration_applied(self, message: CalibrationApplied) -> None:
        if message.error:
            self.app.notify(message.error, severity="error", markup=False)
            return
        if message.what == "undo":
            self.writes.pop()
            self.app.notify("config put back as it was; every fact rescored", timeout=4, markup=False)
        elif message.change is not None:
            self.writes.append(message.change)
            self.app.notify(
                f"wrote {message.what} to {message.change.path}; every fact rescored (ctrl+z puts it back)",
                timeout=4,
                markup=False,
            )
        self.refresh_bindings()
        self.synapse.install(message.loaded, "config")
        self._later = [self.compute, self.compute_history]
        self.compute_verdicts()

    def action_close(self) -> None:
        self.dismiss()


def _two(value: float | None) -> str:
    return "" if value is None else two(value)


def _num(value: float | None, places: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{places}f}"


def history_view(data: dict[str, Any]) -> Group:
    """The History tab: survival by trust bin, AUC before and after, the fit and its decision."""
    fit = data["fit"]
    head = Text()
    head.append("DID THE SCORE FORESEE WHAT HAPPENED NEXT?\n", style="bold")
    head.append(
        f"{data['samples']} (fact, instant) samples at {data['instants']} instants, each fact scored as of"
        f" the instant and followed {data['horizon_days']} days: survived {data['survived']}, replaced"
        f" {data['replaced']}, deleted at the source {data['deleted']}, contradicted {data['contradicted']}.\n"
    )
    if not fit["age_predicts"]:
        head.append("On this memory, age does not predict revision.", style="bold")
        head.append(" Press f to flatten freshness instead of calling old facts stale.\n")
    bins = Table(
        box=None, padding=(0, 2), show_edge=False, title="survival per trust bin", title_justify="left"
    )
    for col in ("trust", "n", "survived", "mean trust", "survival rate", "95% interval"):
        bins.add_column(col, justify="right")
    for b in data["bins"]:
        interval = f"{b['ci_low']:.2f}-{b['ci_high']:.2f}" if b["n"] else ""
        bins.add_row(
            f"{b['lo']:.1f}-{b['hi']:.1f}",
            str(b["n"]),
            str(b["holds"]),
            _two(b["mean_trust"]),
            _two(b["rate"]),
            interval,
        )
    fitted = Text()
    fitted.append(f"\nHISTORY FIT  {fit['decision']}\n", style="bold")
    fitted.append(fit["reason"] + "\n", style="italic")
    for note in fit.get("notes", []):
        fitted.append(f"  {note}\n")
    fitted.append(
        f"AUC: current {_num(fit.get('auc_current'), 2)}, proposed {_num(fit.get('auc_proposed'), 2)}"
        f"   log loss {_num(data['log_loss'])} (a constant rate {_num(data['baseline_log_loss'])})\n"
    )
    from synapse_tui.core.review.backtest import history_caveats  # beside history_report's import

    caveats = history_caveats(data)
    if caveats:
        fitted.append("not a judgement of the score:\n", style="bold")
        for why in caveats:
            fitted.append(f"  - {why}\n")
    if fit["heldout_log_loss_fitted"] is not None:
        fitted.append(
            f"held-out log loss: current {_num(fit['heldout_log_loss_current'])}, fitted"
            f" {_num(fit['heldout_log_loss_fitted'])}, constant rate {_num(fit['heldout_log_loss_baseline'])};"
            f" won {fit['heldout_blocks_won']} of {fit['heldout_blocks']} blocks\n"
        )
    consts = Table(box=None, padding=(0, 2), show_edge=False)
    consts.add_column("constant")
    consts.add_column("current", justify="right")
    consts.add_column("proposed", justify="right")
    for name, value in fit["current"].items():
        mark = "" if name in fit["fitted"] else " (not fitted)"
        consts.add_row(name + mark, f"{value:.3f}", f"{fit['proposed'][name]:.3f}")
    kinds = _kinds_view(fit.get("kinds"))
    adopts = fit["decision"] == "adopt" or any(
        k["decision"] == "adopt" for k in (fit.get("kinds") or {}).get("kinds", [])
    )
    tail = Text("\na adopts the fit (asks first; ctrl+z puts the config back)" if adopts else "")
    return Group(head, bins, fitted, consts, *kinds, tail)


def _kinds_view(kinds: dict[str, Any] | None) -> list[Text | Table]:
    """Each kind's own B0 and s (SPEC 14): the decision, and which constants score it."""
    if not kinds or not kinds["kinds"]:
        return []
    head = Text()
    head.append("\nPER KIND\n", style="bold")
    head.append(
        f"a kind's own B0 and s from {kinds['min_samples']} samples, adopted when they win held out;"
        f" {kinds['without_kind']} samples of facts with no kind use the global ones\n",
        style="italic",
    )
    if kinds["heldout_log_loss_per_kind"] is not None:
        head.append(
            f"held-out log loss: per kind {_num(kinds['heldout_log_loss_per_kind'])},"
            f" global {_num(kinds['heldout_log_loss_global'])}\n"
        )
    table = Table(box=None, padding=(0, 2), show_edge=False)
    for col in ("kind", "samples", "decision", "B0", "s", "scored by"):
        table.add_column(col, justify="right" if col in ("samples", "B0", "s") else "left")
    for k in kinds["kinds"]:
        c = k["constants"]
        table.add_row(
            k["kind"],
            str(k["samples"]),
            k["decision"],
            f"{c['freshness.b0']:.2f}",
            f"{c['freshness.scale']:.2f}",
            "its own" if k["from"] == "kind" else "the global constants",
        )
    why = Text("".join(f"  {k['kind']}: {k['reason']}\n" for k in kinds["kinds"]), style="dim")
    return [head, table, why]
