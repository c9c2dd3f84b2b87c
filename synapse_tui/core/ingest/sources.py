"""What a store was imported from (SPEC 9, issue 24): `synapse-tui sync DB` runs them again.

Each `import --from` that lands records its source in `meta` (key `import.sources`, a JSON
list): the system, the source's absolute path (None when only a reader option named the
files, such as Claude Code's `--project`), and the options it was read with. A source is
recorded once; an import that changes nothing writes nothing, this record included.
`sync_recorded` runs them all again, for the browser's "Sync sources".

What a store records is data: a store someone hands over may name any folder or server.
So a recorded source is followed only when this user trusts it for this store, which a
file of the user's own says, never the store (`TrustFile`: platformdirs' user config
folder, `trusted-sources.json`, keyed by the store's location and the exact entry):

- `recorded`: this user's `import --from` recorded it here, on this machine;
- `confirmed`: `sync` listed it and the user said yes (or passed `--yes`).

A server source that was only confirmed connects with no password from the environment
(PGPASSWORD), ~/.pgpass or a pg_service.conf entry (`connect.no_ambient_secrets`): a host
the user did not name on this machine never gets one. An entry of a shape `import --from`
never records is refused in one line (`checked`).
"""

from __future__ import annotations

import inspect
import json
import os
import time
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from synapse_tui.core.base.clock import format_time
from synapse_tui.core.base.config import Config
from synapse_tui.core.base.errors import SynapseError
from synapse_tui.core.base.jsonl import Progress
from synapse_tui.core.base.location import is_server, locate
from synapse_tui.core.base.safefile import UnsafeFile, read_small, write_atomic
from synapse_tui.core.ingest.adapters import READERS, known_facts, reader
from synapse_tui.core.ingest.adapters.sync import SyncResult, read_record_key, sync_snapshot
from synapse_tui.core.store.db import Store
from synapse_tui.core.store.errors import describe
from synapse_tui.core.store.postgres.server import holds_store

KEY = "import.sources"


def recorded(store: Store) -> list[dict[str, Any]]:
    """The sources recorded in the store, in the order they were first imported."""
    value = store.meta(KEY)
    return (
        [s for s in value if isinstance(s, dict) and isinstance(s.get("system"), str)]
        if isinstance(value, list)
        else []
    )


def entry_for(system: str, source: str | None, **options: str | None) -> dict[str, Any]:
    """The entry `import --from` records for a source (its options without the unset ones)."""
    entry: dict[str, Any] = {"system": system, "source": source}
    entry.update({k: v for k, v in sorted(options.items()) if v is not None})
    return entry


def remember(store: Store, system: str, source: str | None, **options: str | None) -> bool:
    """Record a source (its options without the unset ones); whether it was new."""
    entry = entry_for(system, source, **options)
    have = recorded(store)
    if entry in have:
        return False
    store.set_meta(KEY, [*have, entry])
    return True


# -- what `import --from` records, checked ----------------------------------------------

_NOT_OPTIONS = ("source", "known", "progress", "now")  # a reader's parameters that are not options


def options_of(system: str) -> set[str]:
    """The options `import --from SYSTEM` may record (its reader's own keywords)."""
    return set(inspect.signature(reader(system).read).parameters) - set(_NOT_OPTIONS)


def checked(store: Store) -> list[dict[str, Any]]:
    """The recorded sources, each of the shape `import --from` records, or a SynapseError
    naming the first that is not (a store written by hand or by someone else)."""
    value = store.meta(KEY)
    where = locate(store.path).shown
    if value is None:
        return []
    if not isinstance(value, list):
        raise SynapseError(f"{where}: its recorded sources ({KEY}) are not a list; nothing synced")
    for n, entry in enumerate(value, start=1):
        why = _wrong_shape(entry)
        if why:
            raise SynapseError(
                f"{where}: recorded source {n} is not one import --from records ({why}); nothing synced"
            )
    return list(value)


def _wrong_shape(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return f"a {type(entry).__name__}, not an object"
    system = entry.get("system")
    if not isinstance(system, str) or system not in READERS:
        return f"system {str(system)[:40]!r} is not one of {', '.join(READERS)}"
    source = entry.get("source", None)
    if source is not None and (not isinstance(source, str) or not source or "\x00" in source):
        return "source is not a path or a server's location"
    allowed = options_of(system)
    for key, value in entry.items():
        if key in ("system", "source"):
            continue
        if key not in allowed:
            return f"{str(key)[:40]!r} is not an option of --from {system}"
        if not isinstance(value, str) or "\x00" in value:
            return f"{key} is not text"
    if source is None and not any(isinstance(entry.get(k), str) for k in ("project",)):
        return "it names no source"
    return None


# -- which recorded sources this user trusts --------------------------------------------

TRUST_FILE = "trusted-sources.json"
MAX_TRUST_BYTES = 16 << 20
RECORDED, CONFIRMED = "recorded", "confirmed"


def trust_path() -> Path:
    """The user's own file of trusted sources, in platformdirs' user config folder (which
    honours XDG_CONFIG_HOME): never anything the store holds."""
    import platformdirs

    return Path(platformdirs.user_config_dir("synapse-tui", appauthor=False)) / TRUST_FILE


def store_key(db: str | os.PathLike[str]) -> str:
    """A store's identity in the trust file: a file's real path, a server's location
    without its password."""
    where = locate(db)
    return f"server:{where.shown}" if where.is_server else f"file:{os.path.realpath(where.target)}"


def _entry_key(entry: dict[str, Any]) -> str:
    return json.dumps(entry, sort_keys=True, ensure_ascii=True)


def _read_trust(path: Path) -> dict[str, dict[str, str]]:
    """store key -> {entry key -> how}; a file that cannot be read is a one-line error."""
    try:
        data = json.loads(read_small(path, MAX_TRUST_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except UnsafeFile as exc:
        raise SynapseError(f"{path}: {exc.strerror}") from None
    except (OSError, ValueError) as exc:
        raise SynapseError(f"{path}: cannot read the sources you trust ({exc}); fix or remove it") from None
    stores = data.get("stores") if isinstance(data, dict) else None
    if not isinstance(stores, dict):
        raise SynapseError(f"{path}: not a file of trusted sources; fix or remove it")
    out: dict[str, dict[str, str]] = {}
    for key, items in stores.items():
        if isinstance(items, list):
            out[key] = {
                _entry_key(i["entry"]): i.get("how", CONFIRMED)
                for i in items
                if isinstance(i, dict) and isinstance(i.get("entry"), dict)
            }
    return out


def trusted(db: str | os.PathLike[str], entry: dict[str, Any]) -> str | None:
    """How this user trusts `entry` for the store `db` (`recorded`, `confirmed`), or None."""
    return _read_trust(trust_path()).get(store_key(db), {}).get(_entry_key(entry))


def trust(
    db: str | os.PathLike[str], entries: list[dict[str, Any]], how: str, at: float | None = None
) -> None:
    """Remember that this user trusts `entries` for the store `db` (`recorded` is never
    lowered to `confirmed`)."""
    path = trust_path()
    try:
        data = json.loads(read_small(path, MAX_TRUST_BYTES).decode("utf-8"))
    except FileNotFoundError:
        data = {}
    except (OSError, ValueError) as exc:
        raise SynapseError(f"{path}: cannot read the sources you trust ({exc}); fix or remove it") from None
    if not isinstance(data, dict) or not isinstance(data.get("stores", {}), dict):
        raise SynapseError(f"{path}: not a file of trusted sources; fix or remove it")
    stores = data.setdefault("stores", {})
    items = [
        i for i in stores.get(store_key(db), []) if isinstance(i, dict) and isinstance(i.get("entry"), dict)
    ]
    have = {_entry_key(i["entry"]): i for i in items}
    for entry in entries:
        old = have.get(_entry_key(entry))
        if old is None:
            item = {"entry": entry, "how": how}
            if at is not None:
                item["at"] = format_time(at)
            items.append(item)
            have[_entry_key(entry)] = item
        elif how == RECORDED:
            old["how"] = RECORDED
    stores[store_key(db)] = items
    data["version"] = 1
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode("utf-8"))
        os.chmod(path, 0o600)
    except OSError as exc:
        raise SynapseError(f"{path}: cannot record the sources you trust: {exc.strerror or exc}") from None


def split_by_trust(
    db: str | os.PathLike[str], entries: list[dict[str, Any]]
) -> tuple[list[tuple[dict[str, Any], str]], list[dict[str, Any]]]:
    """(the entries this user trusts for `db`, each with how), (the ones it does not)."""
    known = _read_trust(trust_path()).get(store_key(db), {})
    ok, unknown = [], []
    for entry in entries:
        how = known.get(_entry_key(entry))
        if how is None:
            unknown.append(entry)
        else:
            ok.append((entry, how))
    return ok, unknown


def describe_entry(entry: dict[str, Any]) -> str:
    """One line a person confirms: what is read, and how a server is reached."""
    source = entry.get("source")
    parts = [entry["system"], str(source) if source is not None else "(no source)"]
    parts += [f"--{k} {v}" for k, v in entry.items() if k not in ("system", "source")]
    line = " ".join(parts)
    if isinstance(source, str) and is_server(source):
        line += "  (a server: reached without your PGPASSWORD, ~/.pgpass or service passwords)"
    return line


# -- running them again -----------------------------------------------------------------


def sync_recorded(db: str | Path, config: Config) -> list[tuple[dict[str, Any], SyncResult | str]]:
    """Import again every source recorded in the store at `db` that this user trusts for
    it, each on a connection of its own (a browser open on the store sees the writes as
    another writer's). Each source's result, or what went wrong with it: one failing
    source does not stop the others; one not trusted is not read and says so."""
    with Store.open(db, readonly=True) as store:
        entries = checked(store)
    ok, unknown = split_by_trust(db, entries)
    how = {_entry_key(e): h for e, h in ok}
    out: list[tuple[dict[str, Any], SyncResult | str]] = []
    for entry in entries:
        if entry in unknown:
            out.append(
                (
                    entry,
                    f"not read: not recorded or confirmed by you here; `synapse-tui sync {locate(db).shown}` asks",
                )
            )
            continue
        try:
            out.append((entry, sync_entry(db, entry, config, how[_entry_key(entry)])))
        except SynapseError as exc:
            out.append((entry, describe(exc)))
    return out


def sync_entry(db: str | Path, entry: dict[str, Any], config: Config, how: str = CONFIRMED) -> SyncResult:
    """One recorded source, read and synced by `import_source`, as `import --from` does.
    `how` this user trusts it: a server source only confirmed is reached with no ambient
    password."""
    named = entry.get("source")
    ambient = how == RECORDED or not isinstance(named, str) or not is_server(named)
    own = {k: v for k, v in entry.items() if k not in ("system", "source", "vectors")}
    with nullcontext() if ambient else _no_ambient_secrets():
        return import_source(
            entry["system"], named, db, config, vectors=entry.get("vectors"), record=False, **own
        ).result


# -- the one import pipeline ------------------------------------------------------------


@dataclass(frozen=True)
class Imported:
    """What `import_source` did: the sync's result, and the source as it was recorded."""

    result: SyncResult
    recorded: str | None  # the source's absolute path, a server's location without its password
    options: dict[str, str]  # the reader's options named, as recorded


def reader_module(system: str) -> ModuleType:
    """`system`'s reader, or a one-line refusal naming the systems (or saying this version
    lacks the library it needs)."""
    try:
        return reader(system)  # an unknown system: `unknown_system`'s refusal
    except ModuleNotFoundError as exc:
        if exc.name != f"{reader.__module__}.{READERS[system]}":
            raise  # the adapter exists but a library it needs is missing
        raise SynapseError(f"--from {system}: not available in this version of synapse-tui") from None


def _own_options(
    system: str, takes: Mapping[str, Any], own: dict[str, str | None], hint: str = ""
) -> dict[str, Any]:
    """The reader options given (`--project` as a path), each one the reader takes; `hint`:
    where a project's files are read instead, for a reader that takes none."""
    options: dict[str, Any] = {}
    for name, value in own.items():
        if value is None:
            continue
        if name not in takes:
            said = f"; {hint}" if name == "project" and hint else ""
            raise SynapseError(f"--{name} does not apply to --from {system}{said}")
        options[name] = Path(value) if name == "project" else value
    return options


def _where(
    system: str, module: ModuleType, source: str | None, only_project: bool
) -> tuple[str | Path | None, str | None]:
    """What the reader reads (a path, a server's URL, or None for only a project's files)
    and how the source is recorded: a file's absolute path, a server's location without
    its password (`sync` then gets it from libpq, ~/.pgpass)."""
    if source is None and only_project:
        return None, None
    if source is None:
        default = getattr(module, "default_source", None)
        if default is None:
            needs = getattr(module, "NEEDS", "SOURCE (the files to read)")
            raise SynapseError(f"--from {system} needs {needs}")
        path = Path(default())
        return path, str(path.resolve())
    if is_server(source):  # a database server (LangGraph's on PostgreSQL)
        return source, locate(source).shown
    return Path(source), str(Path(source).resolve())


def import_source(
    system: str,
    source: str | None,
    db: str | os.PathLike[str],
    config: Config,
    *,
    vectors: str | None = None,
    record: bool = True,
    progress: Callable[[str], Progress | None] | None = None,
    **own: str | None,
) -> Imported:
    """Read `system`'s `source` and sync the store at `db` with it (created when missing),
    recording the source: what `import --from`, `sync` and the browser's "Sync sources"
    all run. `own`: the reader's own options (`project`, `model`), None when not given.
    `record`: this user named the source here (`import --from`, not `sync`), so this
    machine's trust file says they recorded it. `progress(label)`: a bar for each stage, or
    None. The source is read before the store is created: a refused source leaves no store."""
    bar = progress or (lambda label: None)
    module = reader_module(system)
    if vectors is not None and system != "mem0":
        raise SynapseError(f"--vectors applies only to --from mem0, not --from {system}")
    takes = inspect.signature(module.read).parameters
    options = _own_options(system, takes, own, getattr(module, "PROJECT_HINT", ""))
    read_from, shown = _where(system, module, source, only_project="project" in options)
    if "known" in takes:
        options["known"] = []
        if "read_before" in takes:
            options["read_before"] = {}  # a store to come: nothing read before
        if holds_store(str(db)) if is_server(db) else Path(db).exists():
            with Store.open(db) as store:  # a reader may read for another system too (`markdown` in git)
                systems = getattr(module, "KNOWN_SYSTEMS", (system,))
                options["known"] = [k for name in systems for k in known_facts(store, name)]
                if "read_before" in takes:  # what the reader recorded of the files it read
                    options["read_before"] = _read_before(store, systems)
    if vectors is not None:
        options["vectors"] = Path(vectors)
    if "progress" in takes:
        options["progress"] = bar(f"reading {system}")
    snapshot = module.read(read_from, **options)
    with Store.open(db, create=True) as store:
        result = sync_snapshot(
            store,
            snapshot,
            config,
            progress=bar("importing"),
            graph_progress=bar("graph"),
            recorded_as=shown,
        )
        store.warm(config)
        named = {
            k: str(Path(v).resolve()) if k in ("project", "vectors") else str(v)
            for k, v in options.items()
            if k in own or k == "vectors"
        }
        remember(store, system, shown, **named)
    if record:
        trust(db, [entry_for(system, shown, **named)], RECORDED, time.time())
    return Imported(result, shown, named)


def _read_before(store: Store, systems: tuple[str, ...]) -> dict[str, Any]:
    """The reader's record of the roots it read (meta `read.<system>`), of each system it
    reads for (`markdown` in git reads as `git-notes`, which keeps the record), by root."""
    out: dict[str, Any] = {}
    for name in systems:
        record = store.meta(read_record_key(name))
        out.update(record if isinstance(record, dict) else {})
    return out


def _no_ambient_secrets():
    from synapse_tui.core.store.postgres.connect import no_ambient_secrets

    return no_ambient_secrets()
