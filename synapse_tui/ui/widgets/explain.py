"""The detail view's content: `Memory.explain()` turned into labelled bars and plain reasons.

Pure functions from the explain dict (and a palette of theme colours) to Rich Text, so
the detail screen stays a thin shell and the wording is easy to test.
"""

from __future__ import annotations

import re

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from synapse_tui.core.base.clock import parse_time
from synapse_tui.core.base.config import GuidanceConfig
from synapse_tui.core.review.notices import opinion_why
from synapse_tui.core.trust.explanation import Explanation
from synapse_tui.core.trust.score import BANDS
from synapse_tui.ui.text import (
    age_label,
    band_chip_style,
    bar,
    clean,
    clean_block,
    due_label,
    stacked_bar,
    two,
)

BAR = 20


def palette(variables: dict[str, str]) -> dict[str, str]:
    """Theme colours by role, with fallbacks for themes that lack one."""
    from rich.color import Color, ColorParseError

    def get(name: str, fallback: str) -> str:
        value = variables.get(name, fallback)
        try:
            Color.parse(value)
        except ColorParseError:
            return fallback
        return value

    return {
        **{f"band-{i}": str(band_chip_style(i, variables)) for i in range(len(BANDS))},
        "primary": get("primary", "blue"),
        "error": get("error", "red"),
        "warning": get("warning", "yellow"),
        "success": get("success", "green"),
        "secondary": get("secondary", "cyan"),
        "muted": "dim",
        "accent": get("accent", "magenta"),
        "panel": get("panel", "grey23"),
    }


def band_chip(band: str, trust: float, colours: dict[str, str]) -> Text:
    """The band as the list paints it (`text.band_chip_style`), then the trust."""
    return Text.assemble((f" {band} ", colours[f"band-{BANDS.index(band)}"]), " ", (two(trust), "bold"))


def _last_event_days(ex: Explanation, now: float) -> float:
    times = [ex.created_at, *ex.reinforced_at]
    latest = max(parse_time(t) for t in times)
    return max(0.0, (now - latest) / 86400)


def _ago(days: float) -> str:
    """'3mo ago', or 'just now' (never 'now ago')."""
    label = age_label(days)
    return "just now" if label == "now" else f"{label} ago"


def reasons(ex: Explanation, threshold: float, now: float) -> dict[str, str]:
    """One plain-language line per factor: why it has the value it has."""
    r, s = ex.corroborations, ex.contradictions
    out: dict[str, str] = {}
    if ex.guidance == "disputed":
        out["confidence"] = f"contradictions weigh heavily: d = {two(ex.d)} of the opinion"
    elif ex.guidance == "uncertain":
        out["confidence"] = (
            f"little evidence yet ({_n(r, 'corroboration')}): the prior still holds u = {two(ex.u)}"
        )
    else:
        out["confidence"] = f"{_n(r, 'corroboration')} against {_n(s, 'contradiction')}"
    f = ex.freshness
    if ex.freshness_form == "o1":
        since = f"{_n(ex.reinforcement_count or 1, 'reinforcement')} since first seen {_ago(ex.age_days)}"
    else:
        since = f"last reinforced {_ago(_last_event_days(ex, now))}"
    if "clock_skew" in ex.flags:
        out["freshness"] = "an event is dated in the future (clock skew): its age is floored"
    elif f < threshold and ex.freshness_form == "o1":  # a verify adds one to the count: little
        out["freshness"] = (
            f"stale: {since}; below the review threshold {two(threshold)}. This form counts"
            " reinforcements since first seen, so one more moves it little"
        )
    elif f < threshold:
        out["freshness"] = f"stale: {since}; below the review threshold {two(threshold)}"
    elif f < 0.75:
        out["freshness"] = f"fading: {since}"
    else:
        out["freshness"] = f"fresh: {since}"
    k = ex.k
    if k == 0:
        out["supersession"] = "the current version: nothing supersedes it"
    else:
        newer = ", ".join(ex.superseded_by) or "?"
        out["supersession"] = f"superseded {k} step{'s' * (k != 1)} deep: replaced by {newer}"
    tier = ex.tier
    if tier == "signed":
        out["gate"] = "signed: the signature verifies under a trusted key"
    elif tier == "human":
        out["gate"] = "a person accepted it; not verified-signed"
    else:
        out["gate"] = "machine-written: nobody accepted or signed it"
    if "signature_invalid" in ex.flags:
        out["gate"] += "; its signature claim does not verify"
    elif "signature_untrusted" in ex.flags:
        out["gate"] += "; signed, but by a key that is not a trusted signer"
    return out


def _n(n: int, noun: str) -> str:
    """`1 reinforcement`, `2 reinforcements`: a count and its noun, agreeing."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _events(n: int) -> str:
    return _n(n, "event")


def factor_lines(
    ex: Explanation, colours: dict[str, str], threshold: float, now: float, compact: bool = False
) -> Group:
    """`compact`: for the pane beside the list: short bars, reasons indented less. Each
    reason is padded, not prefixed with spaces, so a reason that wraps keeps its indent."""
    why = reasons(ex, threshold, now)
    form = "O(1) form" if ex.freshness_form == "o1" else "exact form"
    events = (
        f"n = {ex.reinforcement_count}" if ex.freshness_form == "o1" else _events(1 + len(ex.reinforced_at))
    )
    rows = [
        (
            "Confidence",
            ex.confidence,
            "confidence",
            f"r={ex.corroborations} s={ex.contradictions} a={two(ex.base_rate)} W={ex.prior_weight:g}",
        ),
        (
            "Freshness",
            ex.freshness,
            "freshness",
            f"B={two(ex.B)} ({form}, {events}), age {age_label(ex.age_days)}"
            + (f"; {ex.kind_constants}" if ex.kind_constants else ""),
        ),
        ("Supersession", ex.supersession, "supersession", f"k={ex.k}"),
        ("Gate", ex.gate, "gate", f"tier {ex.tier} (declared {ex.declared_tier})"),
    ]
    parts: list[Text | Padding] = []
    out = Text()
    if not compact:  # narrow, `glance_lines` says the trust and its product above
        out.append("TRUST ", style="bold")
        out.append_text(band_chip(ex.band, ex.trust, colours))
        out.append("  ")
        out.append_text(product(ex, colours))  # every factor's value in sight, whatever fits below
        out.append("\n")
        out.append("OPINION ", style="bold")  # the guidance, in sight with the factors
        out.append_text(opinion_glance(ex, colours))
        out.append("\n")
    for label, value, key, inputs in rows:
        colour = level_colour(value, colours)
        out.append(f"  {label:<13}", style="bold")
        out.append(f"{two(value)} ")
        out.append_text(bar(value, BAR // 2 if compact else BAR, colour, colours["muted"]))
        if compact:  # the pane: inputs and reason each on their own line, under the bar
            out.append(f"\n    {inputs}", style=colours["muted"])
        else:
            out.append(f"  {inputs}")
        parts.append(out)
        parts.append(Padding(Text(why[key], style="italic"), (0, 0, 0, 4 if compact else 20)))
        out = Text()
    return Group(*parts)


def level_colour(value: float, colours: dict[str, str]) -> str:
    """A factor's colour: good from 0.75, fair from 0.4, else poor."""
    return colours["success"] if value >= 0.75 else colours["warning"] if value >= 0.4 else colours["error"]


def glance_lines(ex: Explanation, colours: dict[str, str], more: str = "") -> Table:
    """The trust's four factors and the opinion (b, d, u) with its guidance, two lines at
    80 columns, for a narrow pane, under the fact's title: the factors' rows (three lines
    each) after the text left the opinion and all but one factor below the fold of a
    24-line terminal. `more`: a last line saying what the rest holds and how to reach it.
    A label's values wrap beside it."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True, style="bold")
    grid.add_column()
    grid.add_row("TRUST", product(ex, colours))
    grid.add_row("OPINION", opinion_glance(ex, colours))
    if more:
        grid.add_row("", Text(more, style=f"italic {colours['muted']}"))
    return grid


def product(ex: Explanation, colours: dict[str, str]) -> Text:
    """`= Confidence 0.95 × Freshness 0.89 × Supersession 1.00 × Gate 0.90`: the trust's
    product with each factor's value, coloured as its bar."""
    out = Text("= ")
    factors = [
        ("Confidence", ex.confidence),
        ("Freshness", ex.freshness),
        ("Supersession", ex.supersession),
        ("Gate", ex.gate),
    ]
    for i, (label, value) in enumerate(factors):
        out.append(f"{' × ' if i else ''}{label} ")
        out.append(two(value), style=f"bold {level_colour(value, colours)}")
    return out


def opinion_glance(ex: Explanation, colours: dict[str, str]) -> Text:
    """The opinion in one line: b, d and u and the guidance they give."""
    out = Text()
    out.append(f"b {two(ex.b)}", style=colours["success"])
    out.append("  ")
    out.append(f"d {two(ex.d)}", style=colours["error"])
    out.append("  ")
    out.append(f"u {two(ex.u)}", style=colours["muted"])
    out.append("  ")
    out.append(ex.guidance_advice, style=f"bold {_guidance_colour(ex, colours)}")
    return out


def _guidance_colour(ex: Explanation, colours: dict[str, str]) -> str:
    return {"disputed": colours["error"], "uncertain": colours["warning"]}.get(
        ex.guidance, colours["success"]
    )


def opinion_lines(
    ex: Explanation, colours: dict[str, str], compact: bool = False, lines: GuidanceConfig | None = None
) -> Text:
    """The opinion's bar and guidance; with `lines` (the guidance's thresholds), why the
    guidance reads as it does, as the triage notice says it."""
    out = Text()
    out.append("OPINION  ", style="bold")
    out.append(f"belief b {two(ex.b)}", style=colours["success"])
    out.append("  ")
    out.append(f"disbelief d {two(ex.d)}", style=colours["error"])
    out.append("\n         " if compact else "  ")
    out.append(f"uncertainty u {two(ex.u)}\n", style=colours["muted"])
    out.append("  ")
    out.append_text(
        stacked_bar(
            [
                (ex.b, colours["success"], "█"),
                (ex.d, colours["error"], "█"),
                (ex.u, colours["muted"], "░"),
            ],
            BAR if compact else 2 * BAR,
        )
    )
    out.append("  ")
    out.append(ex.guidance_advice, style=f"bold {_guidance_colour(ex, colours)}")
    out.append("\n")
    if lines is not None:  # one line: SPEC 2.1's rule with the numbers
        why = opinion_why(ex.d, ex.u, ex.guidance, lines)
        if ex.guidance == "supported" and ex.contradictions and not compact:
            why += f"; {_n(ex.contradictions, 'contradiction')} lowered u too: evidence either way"
        out.append(f"  {why}\n", style=f"italic {colours['muted']}")
    return out


def review_lines(ex: Explanation, threshold: float, now: float | None = None) -> Text:
    out = Text()
    out.append("REVIEW DUE  ", style="bold")
    due = re.sub(r"\.\d+Z$", "Z", ex.review_due)
    out.append(due_label(due, now))
    if now is not None and parse_time(due) <= now:
        out.append("  overdue", style="bold")
    out.append(f"  (when freshness falls below {two(threshold)} if nothing reinforces it)\n")
    return out


def what_if_lines(ex: Explanation, colours: dict[str, str]) -> Text:
    out = Text()
    out.append("WHAT WOULD MOVE IT\n", style="bold")
    verbs = {
        "corroborate": "corroborate (c)",
        "verify": "verify (v)",
        "contradict": "contradict (x)",
        "accept": "accept (a)",
        "sign": "sign it",
    }
    for move, value in ex.what_if.items():
        delta = value - ex.trust
        colour = (
            colours["success"] if delta > 0.005 else colours["error"] if delta < -0.005 else colours["muted"]
        )
        out.append(f"  {verbs.get(move, move):<17} → {two(value)} ")
        out.append(f"({'+' if delta >= 0 else '−'}{two(abs(delta))})\n", style=colour)
    return out


def provenance_lines(ex: Explanation, colours: dict[str, str]) -> Text:
    out = Text()
    out.append("PROVENANCE\n", style="bold")
    prov = ex.provenance or {}
    if not prov:
        out.append("  none recorded\n", style=colours["muted"])
    for key, value in prov.items():
        out.append(f"  {clean(str(key))}: ", style="bold")
        out.append(clean(value if isinstance(value, str) else repr(value)) + "\n")
    out.append("  signature: ", style="bold")
    check = ex.signature_check
    colour = (
        colours["success"]
        if check.startswith("valid, trusted")
        else (colours["muted"] if check == "none" else colours["error"])
    )
    out.append(check, style=colour)
    sig = ex.signature or {}
    if sig.get("key"):
        out.append(f"  (key {clean(str(sig['key']))[:16]}…)")
    out.append("\n")
    if ex.entities:
        out.append("  entities: ", style="bold")
        out.append(", ".join(clean(e) for e in ex.entities) + "\n")
    if ex.note:
        out.append("  note: ", style="bold")
        out.append(clean(ex.note) + "\n")
    out.append("  created: ", style="bold")
    out.append(ex.created_at + "\n")
    return out


def history_lines(ex: Explanation, colours: dict[str, str]) -> Text:
    out = Text()
    out.append("HISTORY\n", style="bold")
    if not ex.history:
        out.append("  no audit entries\n", style=colours["muted"])
    for h in ex.history:
        out.append(f"  {clean(str(h.at))}  ")
        out.append(clean(str(h.action)), style="bold")
        out.append(f"  by {clean(str(h.actor or '?'))}")
        if h.undoes:  # a redo applies batch #n again: it does not undo it
            out.append(f"  ({'redoes' if h.action == 'redo' else 'undoes'} #{h.undoes})")
        out.append("\n")
    return out


def header_lines(ex: Explanation, colours: dict[str, str]) -> Text:
    return title_line(ex, colours).append("\n").append_text(body_lines(ex, colours))


def title_line(ex: Explanation, colours: dict[str, str]) -> Text:
    """The id, the band and trust, and the flags."""
    out = Text()
    out.append(clean(ex.id), style=f"bold {colours['primary']}")
    out.append("  ")
    out.append_text(band_chip(ex.band, ex.trust, colours))
    if ex.flags:
        flags = ("deleted at the source" if f == "deleted" else f for f in ex.flags)
        out.append("  " + " ".join(flags), style=f"bold {colours['error']}")
    return out


def body_lines(ex: Explanation, colours: dict[str, str]) -> Text:
    """Why the fact is suspect, if it is, and its text."""
    out = Text()
    if ex.suspect:
        out.append(f"suspect: {clean(ex.suspect)}\n", style=f"italic {colours['warning']}")
    out.append(clean_block(ex.text))
    out.append("\n")
    return out


def source_lines(ex: Explanation, colours: dict[str, str]) -> Text:
    """Where the fact came from, when an adapter read it from another memory system: the
    system, record, version and author, and what that system never records."""
    src = ex.source
    out = Text()
    if src is None:
        return out
    system = clean(src.system)
    out.append("source: ", style="bold")  # the caller pads it: a wrapped line keeps the indent
    parts = [f"from {system}"]
    if src.record is not None:
        parts.append(f"record {clean(src.record)}")
    if src.version is not None:
        parts.append(f"version {clean(src.version)}")
    if src.author:
        parts.append(f"by {clean(src.author)}")
    out.append(", ".join(parts))
    if src.unrecorded:
        out.append(f"; {system} never records: ", style=colours["muted"])
        out.append(", ".join(clean(u) for u in src.unrecorded), style=colours["muted"])
    out.append("\n")
    return out
