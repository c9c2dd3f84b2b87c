"""The browser's suggestion queues on a real store of about 55,000 facts (R: "Replaced?",
B: "Gone from the repository?"), as a person opens them.

    python benchmarks/bench_queues.py [--db PATH] [--mirror DIR] [--corpus DIR] [--write-results]
    python benchmarks/bench_queues.py --base main [--rounds 3] [--db PATH] [--write-results]

The store (built once into a temporary folder unless --db names one): `import --from
markdown` of a local clone of a real repository's snapshot (ADTrauts/Vssyl: its Markdown
with git history, so the referents have a repository to be checked against), then the
flattened real memory of YanBerdin/rougecardinalcompany from the corpus
(benchmarks/build_real_corpus.py). Cold: no `DB.synapse.suggest` file and an empty
referent cache (SYNAPSE_DATA_DIR is a fresh folder), as on a store just imported.

Measured through the real browser (Textual's pilot, real SQLite, real git):

- R: how long until the screen is shown (its title and a line saying what it is doing),
  until its first rows are listed (the replaced facts, before the repository is read),
  until the queue is listed whole, the first open and a second one; after `d` (a
  dismissal: the median of three in a row) and then after `y` (an accept: a supersede,
  which changes the facts) how long until the queue is listed again, wall and CPU;
- B: how long until it is listed, and how many times the referent finder ran
  (`cached_check`, counted by a wrapper that calls the real one) for one open;
- after R's first open, one full collection of the cyclic collector (CPU): what the finder
  kept alive costs the pause a collection makes, wherever it lands later;
- the baseline in the same run: every record of the store read whole (`Store.records`).
  Figures are printed in seconds and as multiples of it; the first open also as the
  process's CPU time (every thread's), which a machine busy with other work inflates far
  less than wall time. The lines R's pane said while it waited are printed too.

`--base REV` runs the browser's part only, in turn for REV's `synapse_tui` (extracted with
`git archive`) and this tree's, each in a process of its own on a fresh copy of the store
(cold), `--rounds` times alternating which goes first: each figure's median per tree and
the ratio this tree / REV, in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
if "--tree" in sys.argv:  # a child of --base: that tree's synapse_tui (this one's tests/ helpers)
    sys.path.insert(0, sys.argv[sys.argv.index("--tree") + 1])

REPO = "ADTrauts+Vssyl"
D_PRESSES = 3  # dismissals timed in a row (their median)
FLAT = "YanBerdin__rougecardinalcompany"


def build(folder: Path, mirror: Path, corpus: Path) -> Path:
    """The store: a clone's Markdown (with history), then a flattened corpus repository."""
    from synapse_tui.core.ingest.interchange import import_facts, parse_file
    from synapse_tui.core.store.db import Store

    clone = folder / "vssyl"
    subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", "clone", "-q", str(mirror / REPO / "repo"), str(clone)],
        check=True,
        capture_output=True,
    )
    db = folder / "s.db"
    (folder / "memory.synapse.toml").write_text("")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    subprocess.run(
        [sys.executable, "-m", "synapse_tui", "import", "--db", str(db), "--from", "markdown", str(clone)],
        check=True,
        capture_output=True,
        env=env,
    )
    with Store.open(db) as store:
        src = corpus / FLAT / "flat.jsonl"
        import_facts(store, parse_file(src), str(src))
    return db


def copy(db: Path, folder: Path) -> Path:
    """A copy of the store and its side files (the run dismisses a suggestion)."""
    for f in db.parent.glob(db.name + "*"):
        if f.is_file():
            shutil.copy2(f, folder / f.name)
    (folder / "memory.synapse.toml").write_text("")
    return folder / db.name


def cold(db: Path) -> None:
    """No kept suggestions, no checked referents: a store just imported."""
    db.with_name(db.name + ".synapse.suggest").unlink(missing_ok=True)
    data = Path(os.environ["SYNAPSE_DATA_DIR"]) / "referents"
    for f in data.glob("*.json") if data.is_dir() else ():
        f.unlink()


_DOING = re.compile(r"(finding|reading|comparing|checking|catching)[^…]*…")
SAID: list[str] = []
FIGURES: list[
    tuple[str, float, str]
] = []  # (figure, value, its baseline: "cpu", "wall" or "")  # the lines an empty queue said while it waited, in order


async def until(pilot, seen, timeout: float = 120.0) -> float:
    from tests.ui.helpers import screen_text

    t0 = time.perf_counter()
    while not seen():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("the queue did not show what was awaited")
        said = next((line.strip() for line in screen_text(pilot.app).splitlines() if _DOING.search(line)), "")
        if said and (not SAID or SAID[-1] != said):
            SAID.append(said)
        await pilot.pause(0.05)
    return time.perf_counter() - t0


async def drive(db: Path) -> dict[str, float]:
    from synapse_tui.core.review import referent
    from synapse_tui.ui.screens.referent import ReferentScreen
    from synapse_tui.ui.screens.replaced import ReplacedScreen
    from tests.ui.helpers import make_app, screen_text, settle

    runs = {"n": 0}
    real = referent.cached_check

    def counted(*a, **k):
        runs["n"] += 1
        return real(*a, **k)

    referent.cached_check = counted
    referent._CACHE.clear()  # nothing checked in this process either (`core` ran first)
    from synapse_tui.core.review import suggestions

    suggestions._KEPT.clear()  # nor a finder `core` kept alive (every collection would walk it)
    gc.collect()
    out: dict[str, float] = {}
    app = make_app(db)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)

        def listed() -> bool:
            s = app.screen
            return isinstance(s, ReplacedScreen) and s.loaded and bool(s.found)

        def shown(kind: type) -> bool:
            return isinstance(app.screen, kind) and "…" in screen_text(app)

        for name in ("R first", "R again"):
            t0, cpu = time.perf_counter(), time.process_time()
            await pilot.press("R")
            out[f"{name}: shown"] = await until(pilot, lambda: shown(ReplacedScreen) or listed())
            await until(pilot, lambda: isinstance(app.screen, ReplacedScreen) and bool(app.screen.found))
            out[f"{name}: first listed"] = time.perf_counter() - t0
            out[f"{name}: first listed, CPU"] = time.process_time() - cpu
            await until(pilot, listed)
            out[f"{name}: listed"] = time.perf_counter() - t0
            out[f"{name}: listed, CPU"] = time.process_time() - cpu  # every thread's
            if name == "R first":
                out["R rows"] = len(app.screen.found)
            await settle(pilot)
            if name == "R first":  # what a full collection costs once the finder is kept
                cpu = time.process_time()
                gc.collect()
                out["full collection after R first, CPU"] = time.process_time() - cpu
            if name == "R again":  # a few triage keys, each timed until the queue is listed again
                walls, cpus = [], []
                for _ in range(D_PRESSES):
                    before = len(app.screen.found)
                    app.screen.loaded = False  # the next listing is the one after the dismissal
                    t0, cpu = time.perf_counter(), time.process_time()
                    await pilot.press("d")
                    await until(pilot, lambda n=before: listed() and len(app.screen.found) == n - 1)
                    walls.append(time.perf_counter() - t0)
                    cpus.append(time.process_time() - cpu)
                    await settle(pilot)
                out["R after d: listed"] = statistics.median(walls)
                out["R after d: listed, CPU"] = statistics.median(cpus)
                accepted = app.screen.current()
                app.screen.loaded = False
                t0, cpu = time.perf_counter(), time.process_time()
                await pilot.press("y")  # the facts change (a supersede): the deletions are counted again
                await until(pilot, lambda s=accepted: listed() and s not in app.screen.found)
                out["R after y: listed"] = time.perf_counter() - t0
                out["R after y: listed, CPU"] = time.process_time() - cpu
                await settle(pilot)
            await pilot.press("escape")
            await settle(pilot)
        runs["n"] = 0
        t0 = time.perf_counter()
        await pilot.press("B")
        await until(pilot, lambda: isinstance(app.screen, ReferentScreen) and app.screen.loaded)
        out["B: listed"] = time.perf_counter() - t0
        await settle(pilot)
        out["B finder runs"] = runs["n"]
        out["B rows"] = len(app.screen.found)
    referent.cached_check = real
    return out


def core(db: Path, base: float) -> None:
    """The queues' work without the screen, the way the queues did it before this change
    and the way they do it now, in one process, as CPU time (a busy machine inflates wall
    time): R's first open (no file beside the store, no referent checked), R after one
    dismissal, one B open after R (referents checked)."""
    from synapse_tui.core.base.clock import Clock
    from synapse_tui.core.base.config import Config
    from synapse_tui.core.review import referent, suggestions
    from synapse_tui.core.review.memory import Memory
    from synapse_tui.core.review.suggest import REFERENT
    from synapse_tui.core.review.suggest_state import dismissals, dismissed_entry, items
    from synapse_tui.core.review.triage import Triage
    from synapse_tui.core.store.db import Store

    def timed(what: str, work) -> float:
        t0 = time.process_time()
        work()
        took = time.process_time() - t0
        print(f"  {what:46} {took:6.2f} s CPU  {took / base:5.1f}x baseline")
        FIGURES.append((f"{what} (CPU)", took, "cpu"))
        return took

    def fresh() -> None:
        cold(db)
        referent._CACHE.clear()
        suggestions._KEPT.clear()

    def old_b(store: Store) -> None:  # standing([REFERENT]), then broken_of: two runs
        suggestions.standing(store, [REFERENT])
        repo = referent.repository(store, None)
        referent.cached_check(repo, referent.as_facts(items(store)), "HEAD")

    with Store.open(db) as store:
        clock = Clock(time.time())
        memory = Memory(store, Config(), clock.now())
        for _ in range(2):  # each twice, in turn: the machine is shared
            fresh()
            timed("before: R first open (standing)", lambda: suggestions.standing(store))
            fresh()
            timed("after:  R first open (the kept finder built)", lambda: suggestions.of_memory(memory))
        top = suggestions.of_memory(memory).found[0]
        Triage(store, clock, config=Config()).dismiss([(top.fact, dismissed_entry(top.kind, top.other))])
        timed("before: R after one dismissal (standing)", lambda: suggestions.standing(store))
        timed("after:  R after one dismissal (caught up)", lambda: suggestions.of_memory(memory))
        timed("before: B (the finder run twice)", lambda: old_b(store))
        timed("after:  B (one run)", lambda: referent.queue(memory, dismissals(store)))
        texts = [f.text for f in referent.as_facts(items(store))]
        timed("before: the referent tokenizer, every fact", lambda: [_every_token(t) for t in texts])
        timed("after:  the referent tokenizer, every fact", lambda: [referent.candidates(t) for t in texts])


def _every_token(text: str) -> list[str]:
    """`referent.candidates` as it was: every token normalised, even one with neither a
    slash nor a dot (which names no path)."""
    from synapse_tui.core.review import referent

    raw = [m.group(1) for m in referent._TICKED.finditer(text)]
    raw += [m.group(1) for m in referent._LINK.finditer(text)]
    raw += [m.group(1) for m in referent._CALL.finditer(text)]
    raw += referent._SPLIT.split(text)
    out: dict[str, None] = {}
    for token in raw:
        path = referent.normalize(token)
        if path is not None:
            out.setdefault(path)
    return list(out)


def baseline(db: Path) -> tuple[float, float]:
    """Every record of the store read whole: the same work whatever the finders read."""
    from synapse_tui.core.store.db import Store

    with Store.open(db, readonly=True) as store:
        t0, cpu = time.perf_counter(), time.process_time()
        n = len(list(store.records()))
        took, cpu = time.perf_counter() - t0, time.process_time() - cpu
    print(f"store {db}: {n:,} facts; baseline (every record read whole) {took:.2f} s, {cpu:.2f} s CPU")
    return took, cpu


def against(rev: str, db: Path, rounds: int, tmp: Path) -> list[tuple[str, float, float]]:
    """The browser's figures of REV's tree and this one's, each run in a process of its own
    on a fresh copy of the store, alternating: (figure, REV's median, this tree's median)."""
    base = tmp / "base-tree"
    base.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "synapse_tui"], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    got: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
    for k in range(rounds):
        order = [("base", base), ("this", ROOT)]
        for name, tree in order if k % 2 == 0 else order[::-1]:
            folder = tmp / f"{name}-{k}"
            folder.mkdir()
            copied = copy(db, folder)
            out = folder / "figures.json"
            env = {**os.environ, "SYNAPSE_DATA_DIR": str(folder / "data")}
            subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--drive-only",
                    str(out),
                    "--tree",
                    str(tree),
                    "--db",
                    str(copied),
                ],
                check=True,
                env=env,
            )
            got[name].append(json.loads(out.read_text(encoding="utf-8")))
            print(
                f"  round {k + 1}, {name}: R first listed {got[name][-1]['R first: listed']:.2f} s",
                flush=True,
            )
    rows = []
    for figure in got["this"][0]:
        rows.append(
            (
                figure,
                statistics.median(r[figure] for r in got["base"]),
                statistics.median(r[figure] for r in got["this"]),
            )
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", type=Path)
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("SYNAPSE_CORPUS", "/work/corpus")))
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--base", help="compare the browser's figures with this revision's, in the same run")
    ap.add_argument("--rounds", type=int, default=3, help="with --base: runs of each tree")
    ap.add_argument("--drive-only", type=Path, help=argparse.SUPPRESS)  # a child of --base
    ap.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.drive_only:  # the store is a fresh copy and SYNAPSE_DATA_DIR a fresh folder
        cold(args.db)
        got = asyncio.run(drive(args.db))
        args.drive_only.write_text(json.dumps(got), encoding="utf-8")
        return
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SYNAPSE_DATA_DIR"] = str(Path(tmp) / "data")
        db = copy(args.db, Path(tmp)) if args.db else build(Path(tmp), args.mirror, args.corpus)
        cold(db)
        base, cpu = baseline(db)
        if args.base:
            rows = against(args.base, db, args.rounds, Path(tmp))
            print(f"  {'figure':40} {args.base:>9} {'this':>9}  ratio")
            for figure, before, after in rows:
                ratio = after / before if before else float("nan")
                print(f"  {figure:40} {before:9.3f} {after:9.3f}  {ratio:5.2f}x")
                FIGURES.append((figure, after, f"={before}"))
        else:
            (Path(tmp) / "core").mkdir()
            core(copy(db, Path(tmp) / "core"), cpu)
            cold(db)
            got = asyncio.run(drive(db))
            for line in SAID:
                print(f"  seen while R waited: {line}")
            for k, v in got.items():
                if k.endswith(("runs", "rows")):
                    print(f"  {k:36} {int(v):>8,}")
                    FIGURES.append((k, v, ""))
                else:
                    per = cpu if k.endswith("CPU") else base
                    print(f"  {k:36} {v:8.2f} s  {v / per:6.1f}x baseline")
                    FIGURES.append((f"browser: {k}", v, "cpu" if k.endswith("CPU") else "wall"))
    if args.write_results:
        from results import Results

        results = Results("bench_queues.py")
        for figure, value, per in FIGURES:
            unit = "" if figure.endswith(("runs", "rows")) else "s"
            if per == "cpu":
                results.add(figure, value, baseline="every record read whole, CPU", against=cpu)
            elif per == "wall":
                results.add(figure, value, baseline="every record read whole", against=base)
            elif per.startswith("="):
                median = f"{args.base}, same run (medians of {args.rounds} runs each)"
                results.add(figure, value, baseline=median, against=float(per[1:]), unit=unit)
            else:
                results.add(figure, value, unit="")
        results.save()


if __name__ == "__main__":
    main()
