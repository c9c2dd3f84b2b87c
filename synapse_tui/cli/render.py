"""Human output of the CLI: band-coloured tables and explanations (rich, never core)."""

from __future__ import annotations

import json
import shlex
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from synapse_tui.core.base.config import Config, describe_non_defaults
from synapse_tui.core.base.limits import counted
from synapse_tui.core.base.textsafe import clean
from synapse_tui.core.graph.read import GraphInfo
from synapse_tui.core.review.suggest import REFERENT, REPLACED
from synapse_tui.core.trust.calibrate import ONE_AGE, Calibration, Histogram
from synapse_tui.core.trust.score import BANDS, FLAG_DELETED, FLAG_EXPIRED, GUIDANCE, TIERS


def _t(text: str, style: str = "") -> Text:
    """Every string the CLI prints goes through here: fact data is never interpreted."""
    return Text(clean(text), style=style)


BAND_STYLES = ("bold red", "red", "yellow", "green", "bold green")


def band_style(band: int) -> str:
    return BAND_STYLES[band]


def _console() -> Console:
    """Terminal width on a terminal (or COLUMNS, when set); wide when piped, so text is not
    cut for grep."""
    import os
    import sys

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        width: int | None = int(columns)
    else:
        width = None if sys.stdout.isatty() else 240
    return Console(highlight=False, soft_wrap=False, width=width)


# the score table's secondary columns, dropped from the end of this tuple first when the
# terminal is narrow; band, trust, id and text always show (the text shrinks, then the id
# folds onto a second line rather than lose a character)
SECONDARY = ("guidance", "tier", "conf", "fresh", "sup", "gate")
_WIDTHS = {"band": 9, "trust": 5, "conf": 5, "fresh": 5, "sup": 5, "gate": 5, "guidance": 9, "tier": 6}
TEXT_MIN = 16  # cells the text keeps before a secondary column is dropped for it
TEXT_MAX = 60
_GAP = 2  # cells between two columns


def score_columns(width: int, id_width: int) -> tuple[list[str], int, int]:
    """The score table's columns at `width` for ids up to `id_width` long, in their order,
    the id column's width and the text's. The secondary columns are kept most useful first
    while the whole id and TEXT_MIN cells of text fit; an id longer than that gets what is
    left and folds."""
    fixed = _WIDTHS["band"] + _WIDTHS["trust"] + 3 * _GAP
    ident = max(8, min(id_width, width - fixed - TEXT_MIN))
    used = fixed + ident + TEXT_MIN
    kept = set()
    for name in SECONDARY:
        if used + _WIDTHS[name] + _GAP > width:
            break
        used += _WIDTHS[name] + _GAP
        kept.add(name)
    order = ["band", "trust", "conf", "fresh", "sup", "gate", "guidance", "tier"]
    names = [n for n in order if n in ("band", "trust") or n in kept] + ["id", "text"]
    text = max(1, min(TEXT_MAX, width - (used - TEXT_MIN)))
    return names, ident, text


def print_score_table(memory, positions: np.ndarray, total: int) -> None:
    """Band, trust, the id and the text at any width: band, trust and the id whole, the text
    cut to what is left; the secondary columns (SECONDARY) as far as they fit, dropped least
    useful first (as the browser does at 80 columns)."""
    sc = memory.scores
    console = _console()
    ids = [clean(memory.ids[i]) for i in positions.tolist()]
    names, id_width, text_width = score_columns(console.width, max([2, *map(len, ids)]))
    table = Table(show_edge=False, pad_edge=False, header_style="bold", box=None, padding=(0, _GAP // 2))
    for name in names:
        right = name in ("trust", "conf", "fresh", "sup", "gate")
        width = id_width if name == "id" else text_width if name == "text" else _WIDTHS[name]
        table.add_column(
            name,
            justify="right" if right else "left",
            width=width,
            no_wrap=name != "id",
            overflow="fold" if name == "id" else "ellipsis",
        )
    texts = memory.store.texts(positions)
    for i, ident, text in zip(positions.tolist(), ids, texts, strict=True):
        gone = _gone(int(sc.flags[i]))
        # a fact deleted at its source shows dim, as in the browser, its band's colour too
        # (that colour would say "live"), and says so in words for a pipe or a plain terminal
        style = "dim" if gone else band_style(sc.band[i])
        shown = _t(text) if not gone else Text.assemble(Text(f"({gone}) ", style="italic"), _t(text))
        values: dict[str, Text | str] = {
            "band": Text(BANDS[sc.band[i]], style=style),
            "trust": Text(f"{sc.trust[i]:.2f}", style=style),
            "conf": f"{sc.confidence[i]:.2f}",
            "fresh": f"{sc.freshness[i]:.2f}",
            "sup": f"{sc.supersession[i]:.2f}",
            "gate": f"{sc.gate[i]:.2f}",
            "guidance": GUIDANCE[sc.guidance[i]],
            "tier": TIERS[sc.tier[i]],
            "id": Text(ident),
            "text": shown,
        }
        table.add_row(*(values[n] for n in names), style="dim" if gone else None)
    console.print(table)
    if len(positions) < total:
        console.print(f"[dim]{len(positions):,} of {counted(total, 'fact')}; --limit 0 shows all[/]")
    else:
        console.print(f"[dim]{counted(total, 'fact')}[/]")


def _gone(flags: int) -> str:
    """'deleted' or 'expired' for a fact its source no longer holds (the browser dims both),
    else ''."""
    if flags & FLAG_EXPIRED:
        return "expired"
    return "deleted" if flags & FLAG_DELETED else ""


def _due(due: str, now: float | None) -> str:
    """'not within a century' for a review date decades past any horizon (2170), else it."""
    from synapse_tui.core.base.clock import parse_time

    try:
        late = now is not None and parse_time(due) - now > 100 * 365.25 * 86400
    except ValueError:
        return due
    return "not within a century" if late else due


def _pct(x: float) -> str:
    return f"{x:.2f}"


def _b0_s(info: dict, f) -> str:
    """The B0 and s that scored the fact: a kind's own say so (SPEC 14)."""
    fc = info.get("freshness_constants") or {"b0": f.b0, "scale": f.scale, "kind": None}
    shown = f"B0={fc['b0']:g} s={fc['scale']:g}"
    if fc.get("kind") is not None:
        shown += (
            f" (kind {fc['kind']}: " + ("its own" if fc.get("from") == "kind" else "the global ones") + ")"
        )
    return shown


def _form(info: dict[str, Any]) -> str:
    """Which form of B was used, and over what."""
    if info["freshness_form"] == "o1":
        return f"O(1) form, n={info['reinforcement_count']}"
    return f"exact form, {counted(1 + len(info.get('reinforced_at') or []), 'event')}"


def print_explain(
    info: dict[str, Any], config: Config, roles: dict[int, str] | None = None, now: float | None = None
) -> None:
    """`show` for a person; `roles`: the database role of each history entry that has one
    (a server's), by seq, named beside its actor (never in the JSON)."""
    console = _console()
    band = BANDS.index(info["band"])
    console.print(
        _t(info["id"], style="bold"), _t(f"  {info['band']} {info['trust']:.2f}", style=band_style(band))
    )
    console.print(_t(info["text"]))
    console.print()
    _print_components(console, info, config)
    console.print()
    _print_advice(console, info, now)
    _print_links(console, info)
    if info["note"]:
        console.print(_t(f"  note: {info['note']}"))
    _print_origin(console, info)
    for h in info["history"]:
        role = (roles or {}).get(h["seq"])
        by = f"{h['actor']} (role {role})" if role else h["actor"]
        console.print(_t(f"  {h['at']}  {h['action']}  by {by}", style="dim"))


def _print_components(console: Console, info: dict[str, Any], config: Config) -> None:
    """The four factors of the trust score, each with the inputs it was computed from."""
    c, f = config.confidence, config.freshness
    lines = [
        (
            "Confidence",
            info["confidence"],
            f"r={info['corroborations']} s={info['contradictions']} a={info['base_rate']:.2f} "
            f"W={c.prior_weight:g}  (r + aW) / (r + s + W)",
        ),
        (
            "Freshness",
            info["freshness"],
            f"B={info['B']:.2f} ({_form(info)}), {_b0_s(info, f)}, age {info['age_days']:.1f} d",
        ),
        ("Supersession", info["supersession"], f"k={info['k']} (gamma^k)"),
        (
            "Gate",
            info["gate"],
            f"declared {info['declared_tier']}, effective {info['tier']}, "
            f"signature: {info['signature_check']}",
        ),
    ]
    for name, value, why in lines:
        console.print(_t(f"  {name:<13}{_pct(value):>5}  "), _t(why, style="dim"), sep="")
    if changed := describe_non_defaults(config):  # the score is not the one SPEC documents
        console.print(_t(f"  {changed}", style="yellow"))


def _print_advice(console: Console, info: dict[str, Any], now: float | None) -> None:
    """The opinion and its guidance, the review date, the flags and what would move it."""
    console.print(
        _t(f"  opinion  b={info['b']:.2f} d={info['d']:.2f} u={info['u']:.2f}  -> {info['guidance_advice']}")
    )
    overdue = " (overdue)" if info["review_overdue"] else ""
    console.print(_t(f"  review due {_due(info['review_due'], now)}{overdue}"))
    if info["flags"]:
        console.print(_t("  flags: " + ", ".join(info["flags"]), style="yellow"))
    for said, act in _suggested(info):
        console.print(_t(f"  suggested: {said}", style="yellow"))
        console.print(_t(f"    {act}", style="dim"))
    moves = ", ".join(f"{k} -> {v:.2f}" for k, v in info["what_if"].items())
    console.print(_t(f"  what would move it: {moves}"))


def suggestion_commands(fact_id: str, kind: str, other: str) -> tuple[str, str]:
    """The commands that accept and dismiss one suggestion about `fact_id` (`other`: the
    newer fact, or the gone path), as `suggest --help` spells them."""
    fact, by = shlex.quote(fact_id), shlex.quote(other)
    if kind == REFERENT:
        return (
            f"synapse-tui contradict DB {fact} --referent {by}",
            f"synapse-tui dismiss DB {fact} {by} --kind referent",
        )
    return f"synapse-tui supersede DB {fact} {by}", f"synapse-tui dismiss DB {fact} {by}"


def _suggested(info: dict[str, Any]) -> list[tuple[str, str]]:
    """Each standing suggestion about the fact (`show --json`'s `suggestions`): what it says
    and the commands that accept or dismiss it. The flag alone (`suggested_replaced`,
    `broken_referent`) named neither the newer fact nor the path gone."""
    out = []
    for s in info.get("suggestions", []):
        if s["kind"] == REPLACED:
            said, other = f"replaced by {s['by']} ({s['why']})", s["by"]
        elif s["kind"] == REFERENT:
            said, other = f"names {s['referent']}, gone from the repository ({s['why']})", s["referent"]
        else:
            continue
        accept, dismiss = suggestion_commands(info["id"], s["kind"], other)
        out.append((said, f"accept: {accept}; dismiss: {dismiss}"))
    return out


def _print_links(console: Console, info: dict[str, Any]) -> None:
    """The supersession chain, the entities and where the neighbours come from."""
    if info["chain_older"] or info["superseded_by"]:
        console.print(
            _t(
                f"  supersedes: {' -> '.join(info['chain_older']) or '-'};"
                f" superseded by: {', '.join(info['superseded_by']) or '-'}"
            )
        )
    if info["supersedes"] and not info["supersedes_known"]:
        console.print(_t(f"  supersedes unknown id {info['supersedes']} (ignored)", style="yellow"))
    if info["entities"]:
        console.print(_t("  entities: " + ", ".join(info["entities"])))
    if info["embedding"]:
        embedder = (
            "its own model embedding" if info["embedding"] == "model" else "the built-in lexical embedder"
        )
        console.print(_t(f"  neighbours from {embedder}", style="dim"))
        graph = GraphInfo.from_json(info["graph"])
        if graph.approximate:
            console.print(_t(f"  {graph.describe()}", style="dim"))


def _print_origin(console: Console, info: dict[str, Any]) -> None:
    """The record the fact was imported from, and its provenance."""
    source = info.get("source")
    if source:
        version = f" version {source['version']}" if source["version"] is not None else ""
        author = f", written by {source['author']}" if source["author"] else ""
        console.print(_t(f"  from {source['system']}: record {source['record']}{version}{author}"))
        if source["unrecorded"]:
            console.print(
                _t(
                    f"  {source['system']} does not record {', '.join(source['unrecorded'])}:"
                    " a 0 there means not recorded, not none",
                    style="dim",
                )
            )
    for key, value in (info["provenance"] or {}).items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        console.print(_t(f"  {key}: {shown}", style="dim"))


def _bars(h: Histogram, label: str, fmt: str) -> list[str]:
    if not h.counts:
        return [f"{label}: no facts"]
    peak = max(h.counts) or 1
    out = [label]
    for lo, hi, count in zip(h.edges, h.edges[1:], h.counts, strict=False):
        bar = "#" * round(40 * count / peak)
        out.append(f"  {format(lo, fmt):>8} .. {format(hi, fmt):<8} {count:>7}  {bar}")
    return out


def print_calibration(cal: Calibration) -> None:
    console = _console()
    for line in (
        _bars(cal.ages, "fact age (days)", ".0f") + [""] + _bars(cal.activations, "activation B", ".2f")
    ):
        console.print(_t(line))
    console.print()
    console.print(_t(f"head facts: {cal.heads}"))
    console.print(_t(f"B0:    {cal.current_b0:.2f} -> {cal.proposed_b0:.2f}"))
    console.print(_t(f"scale: {cal.current_scale:.2f} -> {cal.proposed_scale:.2f}"))
    if cal.one_age:
        console.print(_t(ONE_AGE))
    console.print(_t("bands        before   after"))
    for band in BANDS:
        console.print(
            _t(
                f"  {band:<10} {cal.bands_before[band]:>7} {cal.bands_after[band]:>7}",
                style=band_style(BANDS.index(band)),
            )
        )


def print_neighbours(memory, found) -> None:
    console = _console()
    sc = memory.scores
    console.print(_t(f"semantic neighbours of {found.id}", style="bold"))
    if not found.semantic:
        console.print(_t("  none (no mutual nearest neighbours)", style="dim"))
    texts = memory.store.texts([memory.index[n.id] for n in found.semantic])
    for n, text in zip(found.semantic, texts, strict=True):
        i = memory.index[n.id]
        bar = "#" * max(1, round(10 * n.weight))
        space = " lexical" if n.lexical else ""
        console.print(
            _t(f"  {n.weight:.2f} {bar:<10} "),
            _t(f"{BANDS[sc.band[i]]:<9}", style=band_style(sc.band[i])),
            _t(f" {n.id}  {text}{space}"),
            sep="",
        )
    console.print()
    console.print(_t("entities", style="bold"))
    for e in found.entities:
        console.print(_t(f"  {e.name}  (importance {100 * e.pagerank:.1f}% of all entities)"))
        for link in e.npmi[:8]:
            console.print(_t(f"      {link.weight:.2f}  {link.name}  ({link.n_ab} notes)", style="dim"))
