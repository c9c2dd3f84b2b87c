"""Turning fact data into terminal text safely, and the small visual vocabulary
(bars, ages, band names) every view shares.

Fact text is data, never markup: it only ever reaches the screen through `Text(...)` or
`Segment`, and control characters are replaced by their visible Unicode pictures, so an
escape sequence in a fact shows as `␛[31m` instead of colouring the terminal.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.color import Color as RichColor
from rich.style import Style
from rich.text import Text

from synapse_tui.core.base.textsafe import clean, clean_block
from synapse_tui.core.trust.score import FLAG_DELETED, FLAG_EXPIRED

__all__ = [
    "BAND_CHIPS",
    "BAND_VARIABLES",
    "band_chip_style",
    "contrast",
    "readable",
    "clean",
    "clean_block",
    "fit",
    "gone_word",
    "age_label",
    "bar",
    "stacked_bar",
    "two",
]

# The chip of each trust band (very low .. very high): a theme colour (opaque, so a chip
# looks the same on any background; dark enough that white reads on it at 4.5:1) and
# whether it is bold. The one definition the list's
# chips (FactList's component classes), the detail's chips and the legend all use.
BAND_CHIPS = (
    ("error", False),
    ("warning", False),
    ("secondary", False),
    ("success-darken-3", False),
    ("success", True),
)
BAND_VARIABLES = tuple(name for name, _ in BAND_CHIPS)
_FALLBACK = ("red", "yellow", "cyan", "green", "green")


def band_chip_style(band: int, variables: dict[str, str]) -> Style:
    """The chip style of `band` in a theme (`App.theme_variables`): the colours the fact
    list's CSS (`background: $NAME; color: auto 100%`) resolves to."""
    from textual.color import Color, ColorParseError

    name, bold = BAND_CHIPS[band]
    try:
        background = Color.parse(variables.get(name, _FALLBACK[band]))
    except ColorParseError:
        background = Color.parse(_FALLBACK[band])
    text = background + background.get_contrast_text(1.0)  # "auto 100%": black or white
    return Style(bgcolor=background.rich_color, color=text.rich_color, bold=bold)


def _luminance(colour: tuple[int, int, int]) -> float:
    """WCAG 2's relative luminance of an sRGB colour."""

    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = colour
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2's contrast ratio of two colours, 1 to 21."""
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(colour: RichColor | None, background: RichColor | None, ratio: float = 4.5) -> RichColor | None:
    """`colour`, lightened on a dark background (darkened on a light one) until it reads
    at `ratio` (WCAG AA for text: 4.5) on `background`: the band and guidance colours
    on the cursor row."""
    if colour is None or background is None:
        return colour
    from textual.color import Color

    true = background.get_truecolor()
    bg = (true.red, true.green, true.blue)
    towards = Color(255, 255, 255) if _luminance(bg) < 0.18 else Color(0, 0, 0)
    start = Color.from_rich_color(colour)
    for step in range(21):
        shade = start.blend(towards, step / 20)
        if contrast(shade.rgb, bg) >= ratio:
            return shade.rich_color
    return towards.rich_color


def fit(text: str, width: int) -> str:
    """Exactly `width` cells: padded, or cut with an ellipsis."""
    if width <= 0:
        return ""
    if cell_len(text) <= width:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + "…"


def age_label(days: float) -> str:
    """A short human age: 5h, 12d, 8mo, 2.4y."""
    if days < 1 / 24:
        return "now"
    if days < 1:
        return f"{int(days * 24)}h"
    if days < 90:
        return f"{int(days)}d"
    if days < 730:
        return f"{int(days / 30.44)}mo"
    return f"{days / 365.25:.1f}y"


def bar(value: float, width: int, style: str | Style, empty_style: str | Style = "dim") -> Text:
    """A horizontal bar for a value in [0, 1]."""
    value = min(max(float(value), 0.0), 1.0)
    filled = int(round(value * width))
    out = Text()
    out.append("█" * filled, style=style)
    out.append("░" * (width - filled), style=empty_style)
    return out


def stacked_bar(parts: list[tuple[float, str | Style, str]], width: int) -> Text:
    """Several shares of a whole (b, d, u) side by side, each at least visible when > 0."""
    cells = [int(round(v * width)) for v, _, _ in parts]
    for i, (v, _, _) in enumerate(parts):
        if v > 0 and cells[i] == 0:
            cells[i] = 1
    while sum(cells) > width:
        cells[cells.index(max(cells))] -= 1
    while sum(cells) < width:
        cells[cells.index(max(cells))] += 1
    out = Text()
    for n, (_, style, char) in zip(cells, parts, strict=False):
        out.append(char * n, style=style)
    return out


def two(x: float) -> str:
    """Humans see at most two decimals (SPEC 2.5)."""
    return f"{x:.2f}"


CENTURY_S = 100 * 365.25 * 86400


def due_label(due: str, now: float | None) -> str:
    """A review date as a person reads it: 'not within a century' for one decades past any
    horizon (a fact reinforced hundreds of times: 2170), else the date."""
    from synapse_tui.core.base.clock import parse_time

    try:
        when = parse_time(due)
    except ValueError:
        return due
    if now is not None and when - now > CENTURY_S:
        return "not within a century"
    return due


def gone_word(flags: int) -> str:
    """`deleted` or `expired` for a fact its source deleted (or its TTL expired), else '':
    what every list says of it in words, as well as dimming it (a terminal without colours
    shows no dim)."""
    if flags & FLAG_EXPIRED:
        return "expired"
    return "deleted" if flags & FLAG_DELETED else ""
