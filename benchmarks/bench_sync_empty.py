"""A second sync of a real folder, nothing changed, where some files hold no fact (front
matter, headings or imports only): the reader given its record of the files it read (meta
`read.<system>`, as `import --from` and `sync` give it), so such a file is not read (in git,
not replayed) again, against the same reader without it (each such file read, or replayed,
at every sync: the code before the record), in the same run.

    python benchmarks/bench_sync_empty.py [--mirrors DIR] [--repeat N] [--only NAME ...]
        [--write-results]

For each real folder (a `fetch` snapshot under DIR, default /work/.mirror, its files
extracted with `git archive HEAD | tar -x`: nothing of it is run; in git, committed once
into a repository of our own), two stores are made by a first import (`import_source`, the
pipeline `import --from` runs); then each is synced again, `--repeat` times alternately, the
best CPU time of this process taken (the machine is shared: wall time wanders with the load): one by the reader given the store's record, one by the reader given none. The
files read and replayed are counted, and the two stores must agree (every fact's id, text,
deleted flag, provenance), and the `left out` lines of a sync given the record must be the
first import's (without it, a file not read again says nothing), or the script says so and
exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from results import Results  # noqa: E402
from samerun import extract  # noqa: E402

from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.adapters import known_facts, mdfolder, mdhistory, reader  # noqa: E402
from synapse_tui.core.ingest.adapters.sync import read_record_key, sync_snapshot  # noqa: E402
from synapse_tui.core.ingest.sources import import_source  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402

# (snapshot, reader, in git: a repository of our own)
FOLDERS = [
    ("TanStack+router", "markdown", False),
    ("astral-sh+ruff", "markdown", False),
    ("arbgjr+smart-alarm", "markdown", False),
    ("Charlie85270+Dorothy", "markdown", False),
    ("7Spade+Twilight-Hub", "cursor", True),
    ("7Spade+ng-alain-master", "cursor", True),
]


class Counted:
    """The files a read opens (mdfolder's file_text) and replays (mdhistory's _replay_file)."""

    def __init__(self) -> None:
        self.read = self.replayed = 0
        self._text, self._replay = mdfolder.file_text, mdhistory._replay_file

        def text(*args, **kwargs):
            self.read += 1
            return self._text(*args, **kwargs)

        def replay(*args, **kwargs):
            self.replayed += 1
            return self._replay(*args, **kwargs)

        mdfolder.file_text, mdhistory._replay_file = text, replay


def second_sync(system: str, folder: Path, db: Path, recorded: bool) -> tuple[float, list[str]]:
    """One sync of `folder` into `db`, timed: read (given the store's record, or none) and synced."""
    module = reader(system)
    t = time.process_time()  # this process's CPU: the machine is shared, wall time wanders
    with Store.open(db) as store:
        known = known_facts(store, system)
        before = (store.meta(read_record_key(system)) or {}) if recorded else None
        snap = module.read(folder, known=known, read_before=before)
        result = sync_snapshot(store, snap, Config())
    took = time.process_time() - t
    if (result.added, result.newly_deleted) != (0, 0):
        raise SystemExit(f"{folder.name}: a sync of an unchanged folder changed the store: {result}")
    return took, result.left_out


def facts(db: Path, system: str) -> list[tuple]:
    with Store.open(db) as store:
        return sorted(
            (k.id, k.text, k.deleted, json.dumps(k.provenance, sort_keys=True))
            for k in known_facts(store, system)
        )


def measure(snapshot: Path, system: str, in_git: bool, repeat: int, work: Path, counted: Counted) -> dict:
    folder = work / snapshot.name
    extract(snapshot / "repo", folder, commit=in_git)
    dbs = {True: work / f"{snapshot.name}-record.db", False: work / f"{snapshot.name}-none.db"}
    first = {
        k: import_source(system, str(folder), db, Config(), record=False).result for k, db in dbs.items()
    }
    with Store.open(dbs[True]) as store:  # the files the record says hold no fact
        record = store.meta(read_record_key(system)) or {}
    empty = sum(bool(note.get("empty")) for files in record.values() for note in files.values())
    times: dict[bool, list[float]] = {True: [], False: []}
    files: dict[bool, tuple[int, int]] = {}
    lines: dict[bool, list[str]] = {}
    for _ in range(repeat):
        for recorded in (False, True):
            counted.read = counted.replayed = 0
            took, lines[recorded] = second_sync(system, folder, dbs[recorded], recorded)
            times[recorded].append(took)
            files[recorded] = (counted.read, counted.replayed)
    if facts(dbs[True], system) != facts(dbs[False], system):
        raise SystemExit(f"{snapshot.name}: the stores differ")
    if sorted(lines[True]) != sorted(first[True].left_out):  # without it: only what was read
        raise SystemExit(f"{snapshot.name}: the left-out lines differ from the first import's")
    return {
        "empty": empty,
        "facts": len(facts(dbs[True], system)),
        "record": min(times[True]),
        "none": min(times[False]),
        "files_record": files[True],
        "files_none": files[False],
        "lines_missed": len(set(first[True].left_out) - set(lines[False])),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mirrors", default="/work/.mirror")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    results = Results("bench_sync_empty.py")
    counted = Counted()
    with tempfile.TemporaryDirectory(prefix="bench-sync-empty-") as tmp:
        for name, system, in_git in FOLDERS:
            if args.only and name not in args.only:
                continue
            snapshot = Path(args.mirrors) / name
            if not (snapshot / "repo").is_dir():
                print(f"{name}: no snapshot under {args.mirrors}; skipped")
                continue
            m = measure(snapshot, system, in_git, args.repeat, Path(tmp), counted)
            where = f"{name} ({system}{', in git' if in_git else ''}; {m['empty']} of its files hold no fact)"
            print(
                f"{where}: {m['facts']} facts; second sync {m['record']:.3f}s with the record,"
                f" {m['none']:.3f}s without ({m['none'] / m['record']:.2f}x); files read / replayed"
                f" {m['files_record']} against {m['files_none']}; left-out lines the sync without the"
                f" record does not say: {m['lines_missed']}"
            )
            results.add(
                f"second sync, unchanged: {where}",
                m["record"],
                baseline="no record (each file without a fact read again)",
                against=m["none"],
            )
            fr, fn = m["files_record"], m["files_none"]
            results.add(
                f"files read + replayed: {name}",
                fr[0] + fr[1],
                baseline="no record",
                against=fn[0] + fn[1],
                unit="",
            )
    if args.write_results:
        results.save()


if __name__ == "__main__":
    main()
