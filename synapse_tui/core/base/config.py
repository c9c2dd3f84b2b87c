"""Every constant of the arithmetic, with the defaults of SPEC, overridable per store.

A store `memory.db` reads `memory.synapse.toml` beside it when that exists (or the file
named by `--config` / SYNAPSE_CONFIG). Only the keys a user sets need to be there.

A config beside a store came with the store, from whoever handed it over: it is read as a
regular file of at most `MAX_CONFIG_BYTES` (a FIFO, a device such as /dev/zero or a huge
file is refused in one line, at once), every value is checked against the range the
arithmetic needs (`_check`: the bands ordered inside (0, 1), each constant in its range),
and every view says when the constants are not the defaults (`non_defaults`). It is
written through `safefile.write_atomic`: a random temporary name created exclusively, no
link followed, one atomic rename.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from synapse_tui.core.base.errors import ConfigError
from synapse_tui.core.base.location import is_server
from synapse_tui.core.base.safefile import UnsafeFile, read_small, write_atomic

# a config holds a few dozen lines: a megabyte is far past any real one
MAX_CONFIG_BYTES = 1 << 20


@dataclass(frozen=True)
class ConfidenceConfig:
    prior_weight: float = 2.0
    base_rate_auto: float = 0.60
    base_rate_human: float = 0.85
    base_rate_signed: float = 0.95


# a kind's own freshness constants: (kind, b0, scale), sorted by kind (SPEC 14)
KindConstants = tuple[str, float, float]


@dataclass(frozen=True)
class FreshnessConfig:
    decay: float = 0.5
    b0: float = -1.7
    scale: float = 1.0
    min_age_days: float = 1.0 / 1440.0
    # `[freshness.kind.NAME]` b0 / scale: a kind of fact (core/trust/kinds.py) scored with its
    # own B0 and s; a fact of any other kind, or of none, with b0 and scale above
    kind: tuple[KindConstants, ...] = ()

    def constants_for(self, kind: str | None) -> tuple[float, float, bool]:
        """(b0, scale, own): the freshness constants a fact of `kind` is scored with, and
        whether they are the kind's own (else the global ones)."""
        for name, b0, scale in self.kind:
            if name == kind:
                return b0, scale, True
        return self.b0, self.scale, False


@dataclass(frozen=True)
class SupersessionConfig:
    gamma: float = 0.5


@dataclass(frozen=True)
class ProvenanceConfig:
    gate_auto: float = 0.8
    gate_human: float = 0.9
    gate_signed: float = 1.0


@dataclass(frozen=True)
class GuidanceConfig:
    disputed_d: float = 0.25
    uncertain_u: float = 0.5


@dataclass(frozen=True)
class ReviewConfig:
    threshold: float = 0.5


@dataclass(frozen=True)
class TrustConfig:
    signers: tuple[str, ...] = ()


@dataclass(frozen=True)
class BandsConfig:
    # lower bounds of low, moderate, high, very high (very low starts at 0)
    edges: tuple[float, ...] = (0.2, 0.4, 0.6, 0.8)


@dataclass(frozen=True)
class GraphConfig:
    k: int = 10
    npmi_min_count: int = 2
    near_duplicate_weight: float = 0.9
    unsupported_age_days: float = 90.0
    # Above this many facts in one embedding space the kNN lists come from an approximate
    # index (the `[scale]` extra), never below 50,000 by default (SPEC 3.1); a huge value
    # keeps every graph exact. Each approximate build measures its recall@10 against the
    # exact lists of `recall_sample` seeded random facts and stores it with the graph.
    approximate_above: int = 50_000
    recall_sample: int = 1000
    # the search widens (efSearch doubling, at most 16x) until a separate tuning sample
    # reaches this recall@10; 0 searches once with hnsw_ef_search
    target_recall: float = 0.99
    # faiss HNSW: links per node, and the candidate lists while building and searching
    hnsw_m: int = 16
    hnsw_ef_construction: int = 64
    hnsw_ef_search: int = 48
    # pynndescent (preferred when installed): list length per fact, self included; the
    # k best of each list are re-ranked exactly
    nndescent_neighbors: int = 15
    # above approximate_above: "cheapest" prices each route on the store and this machine
    # and never takes one priced over exact; "approximate" takes it whatever; "exact"
    route: str = "cheapest"
    # "how is this connected to that?": links followed at most, and strongest links read
    # per node when widening the search (a hub entity is never read whole)
    path_max_hops: int = 6
    path_fanout: int = 25


@dataclass(frozen=True)
class Config:
    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    freshness: FreshnessConfig = field(default_factory=FreshnessConfig)
    supersession: SupersessionConfig = field(default_factory=SupersessionConfig)
    provenance: ProvenanceConfig = field(default_factory=ProvenanceConfig)
    guidance: GuidanceConfig = field(default_factory=GuidanceConfig)
    review: ReviewConfig = field(default_factory=ReviewConfig)
    trust: TrustConfig = field(default_factory=TrustConfig)
    bands: BandsConfig = field(default_factory=BandsConfig)
    graph: GraphConfig = field(default_factory=GraphConfig)
    path: Path | None = field(default=None, compare=False)

    def with_values(self, section: str, **values: Any) -> Config:
        return replace(self, **{section: replace(getattr(self, section), **values)})


def config_path_for(db_path: str | os.PathLike[str]) -> Path | None:
    """The config file that belongs to a store: `memory.db` -> `memory.synapse.toml`. A
    store on a server has none beside it (None): read as a path, its location would name a
    file in the working folder (`postgresql:/host/memory.synapse.toml`)."""
    return None if is_server(db_path) else config_beside(Path(db_path))


def config_beside(db_file: Path) -> Path:
    """The config file beside a store's file: `memory.db` -> `memory.synapse.toml`."""
    return db_file.with_name(db_file.stem + ".synapse.toml")


def config_for(
    db_path: str | os.PathLike[str], explicit: str | os.PathLike[str] | None = None, must_exist: bool = True
) -> Config:
    """The config a store is scored with: `explicit` (--config), else SYNAPSE_CONFIG, else
    the file beside the store (absent, or a store on a server: the defaults).

    A file named explicitly must exist: a typo there would otherwise score with the
    defaults, silently. `calibrate --write` names the file it is about to create."""
    named = explicit or os.environ.get("SYNAPSE_CONFIG")
    if named and must_exist and not Path(named).is_file():
        source = "--config" if explicit else "SYNAPSE_CONFIG"
        raise ConfigError(f"{named}: no such config file ({source})")
    if not named:
        _misnamed(db_path)
    return load_config(named or config_path_for(db_path))


def _misnamed(db_path: str | os.PathLike[str]) -> None:
    """A config written as `memory.db.synapse.toml` (the store's whole name, as the files
    the store keeps beside it are: `memory.db.synapse.suggest`) where none is named
    `memory.synapse.toml`: refused in one line, where it was passed over and the store
    scored with the defaults, silently."""
    beside = config_path_for(db_path)
    if beside is None or beside.exists():
        return
    whole = Path(db_path).with_name(Path(db_path).name + ".synapse.toml")
    if whole != beside and whole.is_file():
        raise ConfigError(
            f"{whole}: not read: the config of {Path(db_path).name} is {beside.name} beside it;"
            f" rename it, or pass --config {whole}"
        )


def _coerce(section: str, name: str, default: Any, value: Any, path: Path) -> Any:
    where = f"{path}: [{section}] {name}"
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        if default == () or isinstance(default[0], str):
            return tuple(str(v).strip().lower() for v in value)
        return tuple(float(v) for v in value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return value.strip().lower()
    if isinstance(default, bool) or not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ConfigError(f"{where}: expected a number, got {value!r}")
    if isinstance(default, int) and not isinstance(default, bool):
        if int(value) != value or value < 1:
            raise ConfigError(f"{where}: expected a whole number >= 1, got {value!r}")
        return int(value)
    if not math.isfinite(value):
        raise ConfigError(f"{where}: expected a finite number, got {value!r}")
    return float(value)


def read_config_text(p: Path) -> str | None:
    """The file's text, None when there is none; a FIFO, a device, a huge file or bytes that
    are not UTF-8 are refused in one line (`ConfigError`)."""
    try:
        return read_small(p, MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        return None
    except UnsafeFile as exc:
        raise ConfigError(f"{p}: config {exc.strerror}") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read config: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: cannot read config: not UTF-8 text (byte {exc.start})") from None


def load_config(path: str | os.PathLike[str] | None) -> Config:
    """Defaults overlaid with the file's values; a missing file means defaults."""
    if path is None:
        return Config()
    p = Path(path)
    text = read_config_text(p)
    if text is None:
        return Config(path=p)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: cannot read config: {exc}") from None
    cfg = Config(path=p)
    sections = {f.name: f for f in fields(Config) if f.name != "path"}
    for section, values in data.items():
        if section not in sections or not isinstance(values, dict):
            raise ConfigError(f"{p}: unknown config section [{section}]")
        current = getattr(cfg, section)
        known = {f.name: getattr(current, f.name) for f in fields(current)}
        updates = {}
        for name, value in values.items():
            if name not in known:
                raise ConfigError(f"{p}: [{section}] has no key '{name}' (known: {', '.join(known)})")
            if section == "freshness" and name == "kind":
                updates[name] = _kinds(value, p)
                continue
            updates[name] = _coerce(section, name, known[name], value, p)
        cfg = cfg.with_values(section, **updates)
    _check(cfg, p)
    return cfg


_KIND_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")  # kinds.kind_name's names


def _kinds(value: Any, p: Path) -> tuple[KindConstants, ...]:
    """`[freshness.kind.NAME]` tables: each NAME's b0 and scale, both required."""
    if not isinstance(value, dict):
        raise ConfigError(f"{p}: [freshness] kind must be tables [freshness.kind.NAME], got {value!r}")
    out = []
    for name, table in value.items():
        where = f"{p}: [freshness.kind.{name}]"
        if not _KIND_NAME.match(name):
            raise ConfigError(
                f"{where}: a kind's name is lower case letters, digits, '-' and '_' (at most 40)"
            )
        if not isinstance(table, dict) or set(table) != {"b0", "scale"}:
            got = sorted(table) if isinstance(table, dict) else table
            raise ConfigError(f"{where}: expected exactly b0 and scale, got {got!r}")
        b0 = _coerce(f"freshness.kind.{name}", "b0", 0.0, table["b0"], p)
        scale = _coerce(f"freshness.kind.{name}", "scale", 0.0, table["scale"], p)
        out.append((name, b0, scale))
    return tuple(sorted(out))


# the routes of graph.route (graph/ann.py's ROUTES; core.base cannot import the graph)
_ROUTES = ("cheapest", "approximate", "exact")


def _check(cfg: Config, p: Path) -> None:
    """Values that would break the arithmetic's guarantees (factors in (0, 1]), bands out of
    order (0.24 shown as "very high"), or a graph setting that would exhaust the machine."""
    g, edges = cfg.graph, cfg.bands.edges
    checks = [
        (0 < cfg.confidence.prior_weight <= 1e6, "[confidence] prior_weight must lie in (0, 1e6]"),
        (0 < cfg.freshness.decay < 1, "[freshness] decay must lie in (0, 1)"),
        (-50 <= cfg.freshness.b0 <= 50, "[freshness] b0 must lie in [-50, 50]"),
        (0 < cfg.freshness.scale <= 100, "[freshness] scale must lie in (0, 100]"),
        (0 < cfg.freshness.min_age_days <= 1, "[freshness] min_age_days must lie in (0, 1]"),
        (0 < cfg.supersession.gamma <= 1, "[supersession] gamma must lie in (0, 1]"),
        (0 < cfg.review.threshold < 1, "[review] threshold must lie in (0, 1)"),
        (0 < cfg.guidance.disputed_d < 1, "[guidance] disputed_d must lie in (0, 1)"),
        (0 < cfg.guidance.uncertain_u < 1, "[guidance] uncertain_u must lie in (0, 1)"),
        (
            len(edges) == 4
            and all(0 < e < 1 for e in edges)
            and all(a < b for a, b in zip(edges, edges[1:], strict=False)),
            "[bands] edges must be 4 numbers rising strictly inside (0, 1)"
            f" (low, moderate, high, very high), got {list(edges)}",
        ),
        (0 <= g.target_recall <= 1, "[graph] target_recall must lie in [0, 1]"),
        (g.k <= 200, "[graph] k must lie in [1, 200]"),
        (g.npmi_min_count <= 1_000_000, "[graph] npmi_min_count must lie in [1, 1000000]"),
        (0 < g.near_duplicate_weight <= 1, "[graph] near_duplicate_weight must lie in (0, 1]"),
        (0 < g.unsupported_age_days <= 1e6, "[graph] unsupported_age_days must lie in (0, 1e6]"),
        (g.recall_sample <= 100_000, "[graph] recall_sample must lie in [1, 100000]"),
        (g.hnsw_m <= 256, "[graph] hnsw_m must lie in [1, 256]"),
        (g.hnsw_ef_construction <= 4096, "[graph] hnsw_ef_construction must lie in [1, 4096]"),
        (g.hnsw_ef_search <= 4096, "[graph] hnsw_ef_search must lie in [1, 4096]"),
        (g.nndescent_neighbors <= 256, "[graph] nndescent_neighbors must lie in [1, 256]"),
        (g.route in _ROUTES, f"[graph] route must be one of {', '.join(_ROUTES)}, got {g.route!r}"),
        (g.path_max_hops <= 64, "[graph] path_max_hops must lie in [1, 64]"),
        (g.path_fanout <= 10_000, "[graph] path_fanout must lie in [1, 10000]"),
    ]

    for name, b0, scale in cfg.freshness.kind:
        checks.append((-50 <= b0 <= 50, f"[freshness.kind.{name}] b0 must lie in [-50, 50]"))
        checks.append((0 < scale <= 100, f"[freshness.kind.{name}] scale must lie in (0, 100]"))
    for name in ("base_rate_auto", "base_rate_human", "base_rate_signed"):
        checks.append((0 < getattr(cfg.confidence, name) <= 1, f"[confidence] {name} must lie in (0, 1]"))
    for name in ("gate_auto", "gate_human", "gate_signed"):
        checks.append((0 < getattr(cfg.provenance, name) <= 1, f"[provenance] {name} must lie in (0, 1]"))
    for ok, message in checks:
        if not ok:
            raise ConfigError(f"{p}: {message}")


def _toml_value(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def non_defaults(cfg: Config) -> dict[str, tuple[Any, Any]]:
    """Every constant whose value is not the default of SPEC: `section.key` -> (value,
    default). What a view says so a reader knows the score is not the documented one."""
    out: dict[str, tuple[Any, Any]] = {}
    defaults = asdict(Config())
    for section, values in asdict(cfg).items():
        if section in ("path", "trust"):  # the signers a store trusts are not a constant
            continue
        for key, value in values.items():
            if section == "freshness" and key == "kind":  # a kind's constants, each by name
                for name, b0, scale in value:
                    out[f"freshness.kind.{name}.b0"] = (b0, None)
                    out[f"freshness.kind.{name}.scale"] = (scale, None)
            elif value != defaults[section][key]:
                out[f"{section}.{key}"] = (value, defaults[section][key])
    return out


def describe_non_defaults(cfg: Config, limit: int = 4) -> str | None:
    """One line naming the constants that are not the defaults (None: all are), e.g.
    'constants not the defaults (memory.synapse.toml): freshness.b0 -1.25 (default -1.7)'."""
    changed = non_defaults(cfg)
    if not changed:
        return None
    parts = [
        f"{name} {_shown(v)}" + (" (a kind's own)" if d is None else f" (default {_shown(d)})")
        for name, (v, d) in list(changed.items())[:limit]
    ]
    if len(changed) > limit:
        parts.append(f"and {len(changed) - limit} more")
    where = f" ({cfg.path.name})" if cfg.path is not None else ""
    return f"constants not the defaults{where}: " + ", ".join(parts)


def _shown(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]" if len(value) <= 4 else f"{len(value)} values"
    return f"{value:g}" if isinstance(value, float) else str(value)


def write_config(cfg: Config, path: str | os.PathLike[str]) -> None:
    """Write `cfg` to its file atomically, changing only the lines of values that differ
    from what the file holds: a person's comments, order and other keys stay as written.
    A new file gets the values that differ from the defaults. No link is followed: a
    config that is a link is refused, and the temporary file has a random name
    (`safefile.write_atomic`)."""
    p = Path(path)
    if p.is_symlink():
        raise ConfigError(
            f"{p} is a symbolic link: the constants are not written through it; nothing written"
        )
    text = read_config_text(p)
    old = load_config(p) if text is not None else Config()
    lines = text.splitlines() if text is not None else [_HEADER]
    old_values = asdict(old)
    for section, values in asdict(cfg).items():
        if section == "path":
            continue
        for key, value in values.items():
            if section == "freshness" and key == "kind":
                lines = _set_kinds(lines, old.freshness.kind, cfg.freshness.kind)
            elif value != old_values[section][key]:
                lines = _set_line(lines, section, key, _toml_value(value))
    try:
        write_atomic(p, ("\n".join(lines) + "\n").encode("utf-8"))
    except UnsafeFile as exc:
        raise ConfigError(f"{exc.strerror}; nothing written") from None


_HEADER = "# synapse-tui config: values here override the defaults of SPEC"
_SECTION = re.compile(r"^\s*\[([A-Za-z0-9_.-]+)\]\s*(#.*)?$")


def _set_kinds(lines: list[str], old: tuple[KindConstants, ...], new: tuple[KindConstants, ...]) -> list[str]:
    """The `[freshness.kind.NAME]` tables as `new` holds them: a changed value's line
    rewritten, a new kind's table added, a kind no longer held dropped with its table."""
    before = {name: (b0, scale) for name, b0, scale in old}
    for name, b0, scale in new:
        section = f"freshness.kind.{name}"
        if before.get(name, (None, None))[0] != b0:
            lines = _set_line(lines, section, "b0", repr(float(b0)))
        if before.get(name, (None, None))[1] != scale:
            lines = _set_line(lines, section, "scale", repr(float(scale)))
    kept = {name for name, _, _ in new}
    for name in before:
        if name not in kept:
            lines = _drop_section(lines, f"freshness.kind.{name}")
    return lines


def _drop_section(lines: list[str], section: str) -> list[str]:
    """`lines` without the table `[section]` (its header and lines up to the next table)."""
    out: list[str] = []
    dropping = False
    for line in lines:
        m = _SECTION.match(line)
        if m:
            dropping = m.group(1) == section
        if not dropping:
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out


def _set_line(lines: list[str], section: str, key: str, value: str) -> list[str]:
    """`key = value` in `[section]`: the existing line rewritten (its comment kept), else
    a line added at the end of the section, else a new section at the end of the file."""
    out = list(lines)
    start = end = None
    for i, line in enumerate(out):
        m = _SECTION.match(line)
        if m and start is None and m.group(1) == section:
            start = i + 1
        elif m and start is not None:
            end = i
            break
    if start is None:
        return [*out, "", f"[{section}]", f"{key} = {value}"]
    end = len(out) if end is None else end
    pattern = re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)(.*)$")
    for i in range(start, end):
        m = pattern.match(out[i])
        if not m:
            continue
        stop = i
        if m.group(2).lstrip().startswith("[") and "]" not in m.group(2):  # a list over lines
            while stop + 1 < end and "]" not in out[stop]:
                stop += 1
        comment = _trailing_comment(out[stop] if stop > i else m.group(2))
        out[i : stop + 1] = [f"{m.group(1)}{value}{comment}"]
        return out
    last = start  # after the section's last value (not after a comment that ends it)
    for i in range(start, end):
        if out[i].strip() and not out[i].lstrip().startswith("#"):
            last = i + 1
    out.insert(last, f"{key} = {value}")
    return out


def _trailing_comment(text: str) -> str:
    """The `  # ...` after a value (outside quotes), or ''."""
    quoted = False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif ch == "#" and not quoted:
            return "  " + text[i:].strip()
    return ""
