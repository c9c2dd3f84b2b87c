"""The Verdicts tab's picture of a `VerdictReport` (SPEC 11): the summary, the reliability
diagram (observed rate against mean trust per bin, Wilson intervals, the diagonal), the bin
table, the fit beside the current constants and the groups by factor input. It paints what
it is given; the calibration screen computes it."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from synapse_tui.core.base.limits import counted
from synapse_tui.ui.text import clean, two
from synapse_tui.ui.widgets import explain as xp

FEATURES = {
    "age_days": "days since last reinforcement",
    "reinforcements": "reinforcements",
    "tier": "effective tier",
    "source": "source system",
}


def _num(value: float | None, places: int = 3) -> str:
    return "–" if value is None else f"{value:.{places}f}"


def _rate(value: float | None) -> str:
    return "" if value is None else two(value)


# the fit's decision codes (`FitResult.decision`, the JSON's) as a person reads them
DECISION_WORDS = {
    "adopt": "adopt",
    "keep-current": "keep the current constants",
    "too-few": "too few verdicts to fit",
}


class ReliabilityView(VerticalScroll):
    """The Verdicts tab's body; a terminal under 100x30 hides the diagram (app.tcss)."""

    def compose(self) -> ComposeResult:
        yield Static(id="ver-summary")
        yield from self._plot()
        yield Static(id="ver-table")
        yield Static(id="ver-fit")
        yield Static(id="ver-features")

    def _plot(self) -> ComposeResult:
        try:
            from textual_plot import PlotWidget
        except ImportError:  # the table says it all; the diagram is a picture of it
            return
        yield PlotWidget(id="ver-plot", allow_pan_and_zoom=False)

    def show_report(self, report: Any) -> None:
        """Paint `report`; its fit may still be None (computed after the table is shown)."""
        data = report.to_json()
        colours = xp.palette(self.app.theme_variables)
        summary = Text()
        summary.append("IS THE SCORE RIGHT?\n", style="bold")
        summary.append(
            f"{counted(data['verdicts'], 'verdict')} by people: {data['holds']} holds, {data['wrong']} wrong,"
            f" {data['replaced']} replaced"
            + (f"; {data['skipped']} skipped (no logged score)" if data["skipped"] else "")
            + "\n"
        )
        if data["verdicts"]:
            summary.append(
                f"log loss {_num(data['log_loss'])} (a constant rate: {_num(data['baseline_log_loss'])})"
                f"   Brier {_num(data['brier'])}   AUC {_rate(data['auc']) or '–'}\n",
            )
            summary.append(
                "A bin on the diagonal means what it says: of the facts scored about 0.3, about"
                " 3 in 10 held.\n",
                style="italic",
            )
        else:
            summary.append(
                "No verdicts yet: corroborate, verify, accept, contradict or supersede facts,"
                " and each decision is measured here against the trust the fact had.\n",
                style="italic",
            )
        self.query_one("#ver-summary", Static).update(summary)
        self._paint_plot(data, colours)
        self.query_one("#ver-table", Static).update(self._bins_table(data))
        fit = data["fit"]
        self.query_one("#ver-fit", Static).update(
            Text("\nFITTED CONSTANTS  fitting…", style="bold")
            if fit is None
            else self._fit_table(fit, colours)
        )
        self.query_one("#ver-features", Static).update(self._features(data["by_feature"]))

    def _paint_plot(self, data: dict, colours: dict[str, str]) -> None:
        plots = self.query("#ver-plot")
        if not plots:
            return
        from textual_plot import HiResMode, PlotWidget  # there is a plot: the package is here

        plot = plots.first(PlotWidget)
        plot.set_class(not data["verdicts"], "-empty")
        plot.clear()
        full = [b for b in data["bins"] if b["n"]]

        plot.plot([0.0, 1.0], [0.0, 1.0], line_style=colours["muted"], hires_mode=HiResMode.BRAILLE)
        if full:
            x = [b["mean_trust"] for b in full]
            centre = [(b["ci_low"] + b["ci_high"]) / 2 for b in full]
            half = [(b["ci_high"] - b["ci_low"]) / 2 for b in full]
            plot.errorbar(x, centre, yerr=half, marker_style=colours["secondary"])
            plot.scatter(x, [b["rate"] for b in full], marker="●", marker_style=colours["warning"])
        plot.set_xlimits(0.0, 1.0)
        plot.set_ylimits(-0.02, 1.04)  # a bin at 0 or 1 stays inside the frame
        plot.set_xlabel("mean trust in the bin")
        plot.set_ylabel("observed: held")

    @staticmethod
    def _bins_table(data: dict) -> Table:
        table = Table(title="per trust bin", title_justify="left", box=None, padding=(0, 1), show_edge=False)
        table.add_column("trust", justify="left")
        for name in ("n", "holds", "wrong", "replaced", "mean trust", "held", "95% interval"):
            table.add_column(name, justify="right")
        for b in data["bins"]:
            interval = f"{two(b['ci_low'])}–{two(b['ci_high'])}" if b["n"] else ""
            table.add_row(
                f"{b['lo']:.1f}–{b['hi']:.1f}",
                str(b["n"]),
                str(b["holds"]),
                str(b["wrong"]),
                str(b["replaced"]),
                _rate(b["mean_trust"]),
                _rate(b["rate"]),
                interval,
            )
        return table

    @staticmethod
    def _fit_table(fit: dict, colours: dict[str, str]) -> Group:
        head = Text()
        head.append("\nFITTED CONSTANTS  ", style="bold")
        style = colours["success"] if fit["decision"] == "adopt" else colours["muted"]
        head.append(DECISION_WORDS.get(fit["decision"], fit["decision"]), style=f"bold {style}")
        head.append(f"\n{fit['reason']}\n")
        table = Table(box=None, padding=(0, 2), show_edge=False)
        table.add_column("constant")
        table.add_column("current", justify="right")
        table.add_column("fitted", justify="right")
        for name, value in fit["current"].items():
            fitted = f"{fit['proposed'][name]:.3f}" if name in fit["fitted"] else "not fitted"
            table.add_row(name, f"{value:.3f}", fitted)
        tail = Text()
        if fit["heldout_log_loss_fitted"] is not None:
            tail.append(
                f"held-out log loss: fitted {_num(fit['heldout_log_loss_fitted'], 4)},"
                f" current {_num(fit['heldout_log_loss_current'], 4)},"
                f" a constant rate {_num(fit['heldout_log_loss_baseline'], 4)}\n"
            )
        if fit["decision"] == "adopt":
            tail.append("a adopts them (asks first); ctrl+z here puts the config back\n", style="italic")
        return Group(head, table, tail)

    @staticmethod
    def _features(by_feature: dict) -> Group:
        parts: list[RenderableType] = [
            Text(
                "\nBY FACTOR INPUT (a group whose held rate and mean trust part shows the factor that is off)",
                style="bold",
            )
        ]
        for name, rows in by_feature.items():
            table = Table(
                title=FEATURES[name], title_justify="left", box=None, padding=(0, 1), show_edge=False
            )
            table.add_column("", justify="left")
            table.add_column("n", justify="right")
            table.add_column("mean trust", justify="right")
            table.add_column("held", justify="right")
            for row in rows:
                if row["n"]:
                    # a source's name is data (a fact's x-source): shown, never markup
                    key = Text(clean(str(row["key"])))
                    table.add_row(key, str(row["n"]), _rate(row["mean_trust"]), _rate(row["rate"]))
            parts.append(table)
        return Group(*parts)
