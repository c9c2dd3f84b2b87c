"""What a sync reads first of the store, the facts of its source already there
(`known_facts`: each one's columns and provenance JSON), alone and inside a whole sync with
nothing changed, on real folders: the code before (REV, default `main`) against this
tree's, in the same run.

    python benchmarks/bench_known_facts.py [--mirrors DIR] [--before REV] [--rounds N]
        [--repeat N] [--only NAME ...] [--write-results]

For each real folder (a `fetch` snapshot under DIR, default /work/.mirror: its files
extracted with `git archive HEAD | tar -x`, those whose blobs the snapshot lacks left out;
or, for a git history, the snapshot cloned whole; nothing of either is run), each code
imports it into a store of its own (`import --from SYSTEM`, in a child process with
PYTHONPATH at this tree or at REV extracted with `git archive`), then times, in children
alternating before/after for `--rounds` rounds of `--repeat` each, the best of:

- the load alone: `known_facts(store, system)` for each system the reader reads
  (`KNOWN_SYSTEMS`, as a sync asks: `markdown` also reads `git-notes`), the store open;
- a whole sync with nothing changed (`sync DB --json --yes`, the CLI in-process).

Times are CPU seconds of the child and its own children (git, for a history): the machine
is shared (2 cores, load 4 to 10), and wall time wanders with the load; wall times are
printed beside. `--server URL` (a PostgreSQL server whose login may create databases):
each code's store is copied (`copy`, by that code) into a new database there, and read and
synced there; the figures are then wall times (the server's process does part of the work). Each child also says what it loaded (every KnownFact's fields, provenance
whole, hashed) and what each sync counted: before and after must agree, or the script says
so and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

from samerun import TREE, before_tree, cli, cli_json, clone, counted, cpu, extract, run_child

# (snapshot, how it is read: a folder extracted, or a clone with its history; --from)
FOLDERS = [
    ("astral-sh+ruff", "folder", "markdown"),
    ("RooCodeInc+Roo-Code", "clone", "git-notes"),
    ("TanStack+router", "folder", "markdown"),
]
# what a sync's JSON says of where it read (each code its own store)
NOT_COMPARED = ("db", "source")


# -- in the child ------------------------------------------------------------------------


def child_import(source: str, system: str, db: str) -> dict:
    c0, wall = cpu(), time.perf_counter()
    counts = cli_json("import", "--from", system, source, "--db", db, "--json")
    return {"import_cpu": cpu() - c0, "import_wall": time.perf_counter() - wall, "imported": counts}


def _ruleless(provenance: dict) -> dict:
    """A fact's provenance without the rules its stamp names (`x-<system>-stamp`: size, time
    and a digest of the Markdown readers' code, gitkept.RULES): two codes that differ there
    wrote the same stamp but for it."""
    return {
        k: v.rsplit(":", 1)[0] if k.endswith("-stamp") and isinstance(v, str) and v.count(":") == 2 else v
        for k, v in provenance.items()
    }


def child_time(system: str, db: str, repeat: int) -> dict:
    from synapse_tui.core.ingest.adapters import known_facts, reader
    from synapse_tui.core.store.db import Store

    systems = getattr(reader(system), "KNOWN_SYSTEMS", (system,))
    load_cpu, load_wall, digest, n = [], [], "", 0
    with Store.open(db, readonly=True) as store:
        for _ in range(repeat):
            c0, wall = cpu(), time.perf_counter()
            known = [k for name in systems for k in known_facts(store, name)]
            load_cpu.append(cpu() - c0)
            load_wall.append(time.perf_counter() - wall)
    rows = [
        [k.id, k.record, k.version, k.text, k.note, k.head, k.deleted, _ruleless(k.provenance)] for k in known
    ]
    digest, n = hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest(), len(rows)
    sync_cpu, sync_wall, counts = [], [], []
    for _ in range(repeat):
        c0, wall = cpu(), time.perf_counter()
        got = cli_json("sync", db, "--json", "--yes")
        sync_cpu.append(cpu() - c0)
        sync_wall.append(time.perf_counter() - wall)
        counts.append(counted(got, NOT_COMPARED))
    return {
        "load_cpu": min(load_cpu), "load_wall": min(load_wall), "sync_cpu": min(sync_cpu),
        "sync_wall": min(sync_wall), "known": n, "digest": digest, "counts": counts,
    }  # fmt: skip


def child_copy(db: str, url: str) -> dict:
    cli("copy", db, url)
    return {"db": url}


def new_database(server: str, name: str) -> str:
    """`name`, made anew on the server at `server` (a libpq URL whose login may create
    databases), as a URL."""
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    head, _, tail = server.partition("?")
    return head.rsplit("/", 1)[0] + f"/{name}" + (f"?{tail}" if tail else "")


def child(tree: str, *args: str) -> dict:
    return run_child(__file__, tree, "--child", *args)


# -- the parent --------------------------------------------------------------------------


def bench_one(
    args: argparse.Namespace, name: str, how: str, system: str, trees: dict, tmp: Path, results
) -> bool:
    """One folder, both codes; whether they agreed."""
    snapshot = Path(args.mirrors) / name / "repo"
    if not snapshot.exists():
        print(f"{name:24} (no snapshot)")
        return True
    source = tmp / name / "source"
    (extract if how == "folder" else clone)(snapshot, source)
    dbs = {label: str(tmp / name / f"{label}.db") for label in trees}
    imported = {
        label: child(tree, "import", str(source), system, dbs[label]) for label, tree in trees.items()
    }
    where = "file"
    if args.server:  # each store copied by its own code to a new database there, and read there
        where = "server"
        for label, tree in trees.items():
            dbs[label] = child(tree, "copy", dbs[label], new_database(args.server, f"bkf_{label}"))["db"]
    best: dict[str, dict] = {}
    same = True
    for _ in range(args.rounds):
        for label, tree in trees.items():
            got = child(tree, "time", system, dbs[label], str(args.repeat))
            if label in best:
                same &= got["digest"] == best[label]["digest"] and got["counts"] == best[label]["counts"]
                for key in ("load_cpu", "load_wall", "sync_cpu", "sync_wall"):
                    best[label][key] = min(best[label][key], got[key])
            else:
                best[label] = got
    b, a = best["before"], best["after"]
    same &= b["digest"] == a["digest"] and b["known"] == a["known"] and b["counts"] == a["counts"]
    same &= imported["before"]["imported"] | {"db": ""} == imported["after"]["imported"] | {"db": ""}
    print(
        f"{name:24} {system:9} {a['known']:>6} {b['load_cpu']:>8.3f} {a['load_cpu']:>8.3f}"
        f" {a['load_cpu'] / b['load_cpu']:>6.2f}x {b['sync_cpu']:>8.3f} {a['sync_cpu']:>8.3f}"
        f" {a['sync_cpu'] / b['sync_cpu']:>6.2f}x   wall load {b['load_wall']:.3f} -> {a['load_wall']:.3f},"
        f" sync {b['sync_wall']:.3f} -> {a['sync_wall']:.3f}; import CPU {imported['before']['import_cpu']:.1f}"
        f" -> {imported['after']['import_cpu']:.1f} s" + ("" if same else "   DIFFERS")
    )
    base = f"code at {args.before}"
    # on a server the work is split with the server's own process: its wall time is the figure
    load, sync, clock = ("load_wall", "sync_wall", "wall") if args.server else ("load_cpu", "sync_cpu", "CPU")
    results.add(
        f"{name} (--from {system}, {a['known']} facts, {where}): load of the source's facts ({clock})",
        a[load], baseline=base, against=b[load],
    )  # fmt: skip
    results.add(f"{name}: whole sync, nothing changed ({clock})", a[sync], baseline=base, against=b[sync])
    results.add(
        f"{name}: first import (one run each, CPU: the index's cost)", imported["after"]["import_cpu"],
        baseline=base, against=imported["before"]["import_cpu"],
    )  # fmt: skip
    results.add(
        f"{name}: same KnownFact values and sync counts", float(same), baseline=base, against=1.0, unit=""
    )
    return same


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        mode, rest = sys.argv[2], sys.argv[3:]
        if mode == "import":
            out = child_import(*rest)
        elif mode == "copy":
            out = child_copy(*rest)
        else:
            out = child_time(rest[0], rest[1], int(rest[2]))
        print(json.dumps(out))
        return
    from results import Results

    ap = argparse.ArgumentParser()
    ap.add_argument("--mirrors", default="/work/.mirror")
    ap.add_argument("--before", default="main")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--server", help="a PostgreSQL server (libpq URL): read and sync each store copied there")
    args = ap.parse_args()
    results = Results("bench_known_facts.py" + (", PostgreSQL" if args.server else ""))
    print(
        f"{'folder':24} {'--from':9} {'facts':>6} {'load bef':>8} {'after':>8} {'ratio':>7}"
        f" {'sync bef':>8} {'after':>8} {'ratio':>7}   (CPU s, best)"
    )
    same = True
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"before": before_tree(args.before, Path(tmp) / "before"), "after": str(TREE)}
        for name, how, system in FOLDERS:
            if args.only and name not in args.only:
                continue
            same &= bench_one(args, name, how, system, trees, Path(tmp), results)
    if args.write_results:
        results.save()
    if not same:
        print("the two codes' loads or syncs differ")
        sys.exit(1)


if __name__ == "__main__":
    main()
