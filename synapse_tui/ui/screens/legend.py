"""The legend: what the colours, strike-through, dim text and flags of the browser mean.

The band chips are the fact list's own styles (`nav.band_style`, from the one definition
`text.BAND_CHIPS`), so the legend shows the colours the list shows, in any theme.
Help (?) shows the same legend under the keys.
"""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from synapse_tui.core.trust.score import BANDS, GUIDANCE_ADVICE, TIERS
from synapse_tui.ui.screens.base import ScrolledModalScreen
from synapse_tui.ui.screens.nav import band_style, colours
from synapse_tui.ui.widgets.fact_list import BAND_SHORT, TIER_SHORT

FLAGS = (
    ("clock_skew", "an event of the fact lies after now (its age is floored at one minute)"),
    ("signature_invalid", "it claims a signature that is missing or does not verify: scored as unsigned"),
    ("signature_untrusted", "a good signature by a key that is not a trusted signer: scored as unsigned"),
    ("deleted", "deleted at the source: the system it came from deleted it; its history is kept"),
    ("invalidated", "its source marked it no longer valid without naming what replaced it"),
    ("expired", "its source's time-to-live ran out (not deleted by the agent); its history is kept"),
)
GUIDANCE_COLOURS = {"disputed": "error", "uncertain": "warning", "supported": "success"}


def legend_text(app: App[Any], edges: tuple[float, ...]) -> Table:
    palette = colours(app)
    table = Table(box=None, show_header=False, padding=(0, 1), expand=True)
    table.add_column("mark", no_wrap=True, width=22)
    table.add_column("means", ratio=1)

    def section(title: str) -> None:
        table.add_row(Text(""), Text(""))
        table.add_row(Text(title, style="bold"), Text(""))

    section("TRUST BANDS")
    bounds = (0.0, *edges, 1.0)
    for i, band in enumerate(BANDS):
        chip = Text(f" {band:<9} ", style=band_style(app, i))
        upper = "]" if i == len(BANDS) - 1 else ")"
        short = f"; {BAND_SHORT[i]} below 96 columns" if BAND_SHORT[i] != band else ""
        table.add_row(chip, Text(f"trust in [{bounds[i]:.1f}, {bounds[i + 1]:.1f}{upper}{short}"))
    section("TIERS")
    for tier, short in zip(TIERS, TIER_SHORT, strict=True):
        if short != tier:
            table.add_row(Text(short, style="bold"), Text(f"{tier} (the tier column below 96 columns)"))
    section("ROWS")
    table.add_row(
        Text("struck through", style="strike"),
        Text("superseded: a newer fact replaces it (k ≥ 1, trust × γ^k); kept as history"),
    )
    table.add_row(
        Text("dim row", style=palette["muted"]),
        Text(
            "deleted or expired at the source: `deleted` / `expired` where the guidance goes"
            " (`deleted ·` before the text in the neighbour and path views); only in the All"
            " queue; kept as history"
        ),
    )
    table.add_row(
        Text("dim", style="dim"), Text("secondary detail: id, age and tier columns, a link two hops away")
    )
    table.add_row(Text("●", style="bold"), Text("marked for bulk triage (space marks, u clears)"))
    table.add_row(Text("…", style="bold"), Text("the fact's text is still being read"))
    table.add_row(
        Text("why", style="italic"),
        Text("Suspect and Signature queues: why the fact is there (g goes to its duplicate)"),
    )
    section("GUIDANCE")
    for name, colour in GUIDANCE_COLOURS.items():
        table.add_row(Text(name, style=f"bold {palette[colour]}"), Text(GUIDANCE_ADVICE[name]))
    section("FLAGS")
    for name, meaning in FLAGS:
        table.add_row(Text(name, style=palette["warning"]), Text(meaning))
    section("NEIGHBOURS, PATHS")
    for mark, meaning in (
        ("semantic", "mutual nearest neighbours by meaning; weight above the fact's own baseline"),
        (
            "shares",
            "names the same entities; weight = the strength of the links through them (rarer shared entities weigh more)",
        ),
        ("2 hops", "a semantic neighbour's semantic neighbour; weight = the product of both links"),
        ("entity · mentions", "an entity it names; weight = how few facts name it (specificity)"),
        ("npmi", "entities named together in notes more often than chance (NPMI)"),
        ("path strength", "the product of a chain's weights: the strongest chain is shown"),
    ):
        table.add_row(Text(mark, style="bold"), Text(meaning))
    return table


class LegendScreen(ScrolledModalScreen):
    DEFAULT_CSS = """
    LegendScreen { align: center middle; background: $background 60%; }
    LegendScreen #legend-box {
        width: 90%; max-width: 100; height: 90%;
        border: round $primary; background: $panel; padding: 0 1;
    }
    """

    BINDINGS = [
        Binding("escape,q,L", "close", "close", id="legend.close", tooltip="Close the legend"),
    ]

    def compose(self) -> ComposeResult:
        edges = tuple(self.app.config.bands.edges)  # lower bounds, inclusive (SPEC 2.5)
        with VerticalScroll(id="legend-box", classes="scrolled", can_focus=False) as box:
            box.border_title = "Legend"
            box.border_subtitle = "escape closes"
            yield Static(legend_text(self.app, edges))
