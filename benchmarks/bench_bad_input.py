"""Figures for bad input. Run: python benchmarks/bench_bad_input.py [--quick] [--write-results]

1. `synapse-tui show` of a fact with the longest text allowed (limits.MAX_TEXT_CHARS)
   against a 100-character fact, whole process, and what a 10x longer text would cost
   (rendered in-process: it cannot be imported any more);
2. the import-time limit checks (`_check_sizes`) against the whole of `parse_file`,
   on synthetic facts, and `parse_file` against the same on the `main` branch (its
   sources unpacked with `git archive`), interleaved in the same run;
3. loading a store inside `Store.snapshot()` against the same load without one.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from results import Results  # noqa: E402
from synth import write_synthetic_jsonl  # noqa: E402

from synapse_tui.core.base import limits  # noqa: E402
from synapse_tui.core.base.config import Config  # noqa: E402
from synapse_tui.core.ingest.interchange import _check_sizes, parse_file, read_jsonl  # noqa: E402
from synapse_tui.core.store.db import Store  # noqa: E402
from synapse_tui.core.trust.explanation import Explanation  # noqa: E402

NOW = "2026-12-01T00:00:00Z"
EXE = [sys.executable, "-m", "synapse_tui"]
FIGURES = Results("bench_bad_input.py")


def best(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def show_figures(folder: Path) -> None:
    words = "the deploy pipeline runs integration tests before release "
    facts = {
        "short": (words * 2)[:100],
        "longest": (words * (limits.MAX_TEXT_CHARS // len(words) + 1))[: limits.MAX_TEXT_CHARS],
    }
    src = folder / "long.jsonl"
    src.write_text(
        "".join(
            json.dumps({"id": k, "text": v, "created_at": "2026-11-01T00:00:00Z"}) + "\n"
            for k, v in facts.items()
        )
    )
    db = folder / "long.db"
    subprocess.run([*EXE, "import", str(src), "--db", str(db)], check=True, capture_output=True)
    timings = {}
    for fid in facts:
        cmd = [*EXE, "show", str(db), fid, "--now", NOW]
        timings[fid] = best(lambda cmd=cmd: subprocess.run(cmd, check=True, capture_output=True), 7)
    print(
        f"show, whole process: 100 chars {timings['short']:.2f} s, {limits.MAX_TEXT_CHARS:,} chars "
        f"{timings['longest']:.2f} s (ratio {timings['longest'] / timings['short']:.2f})"
    )
    FIGURES.add(
        f"show of a {limits.MAX_TEXT_CHARS:,}-char fact, whole process",
        timings["longest"],
        baseline="a 100-char fact",
        against=timings["short"],
    )
    from synapse_tui.cli.render import print_explain
    from synapse_tui.core.review.memory import Memory

    with Store.open(db, readonly=True) as store:
        info = Memory(store, Config(), 1_796_000_000.0).explain("longest")

    def render(one: dict) -> None:
        with redirect_stdout(io.StringIO()):
            print_explain(one, Config())

    rendered = {f: best(lambda f=f: render(dict(info, text=info["text"] * f)), 1) for f in (1, 10)}
    from rich.console import Console

    from synapse_tui.ui.widgets import explain as xp

    def detail(one: dict) -> None:
        Console(file=io.StringIO(), width=120).print(
            xp.header_lines(Explanation.from_show(one), xp.palette({}))
        )

    browser = {f: best(lambda f=f: detail(dict(info, text=info["text"] * f)), 1) for f in (1, 10)}
    print(
        f"the browser's detail text, rendered at 120 columns: {limits.MAX_TEXT_CHARS:,} chars "
        f"{browser[1]:.2f} s, {10 * limits.MAX_TEXT_CHARS:,} chars {browser[10]:.2f} s "
        f"(ratio {browser[10] / browser[1]:.1f})"
    )
    print(
        f"show's rendering in-process: {limits.MAX_TEXT_CHARS:,} chars {rendered[1]:.2f} s, "
        f"{10 * limits.MAX_TEXT_CHARS:,} chars {rendered[10]:.2f} s (ratio {rendered[10] / rendered[1]:.1f}: "
        "the rendering grows faster than the text, hence the limit)"
    )


def check_figures(folder: Path, n: int) -> None:
    src = write_synthetic_jsonl(folder / "synth.jsonl", n)
    whole = best(lambda: parse_file(src), 2)
    objs = [obj for _, obj in read_jsonl(src)]

    def checks() -> None:
        for obj in objs:
            _check_sizes(obj, lambda field, msg: ValueError(msg))

    part = best(checks, 2)
    print(
        f"parse_file of {n:,} facts: {whole:.2f} s, of which the limit checks {part:.2f} s "
        f"({100 * part / whole:.0f}%)"
    )
    FIGURES.add(f"the limit checks of {n:,} facts", part, baseline="all of parse_file", against=whole)


PARSE = """
import sys, time
from synapse_tui.core.ingest.interchange import parse_file
t0 = time.perf_counter(); parse_file(sys.argv[1]); print(time.perf_counter() - t0)
"""


def baseline_figures(folder: Path, n: int) -> None:
    """parse_file here against parse_file on main: what the limit checks cost an import."""
    repo = Path(__file__).resolve().parents[1]
    base = folder / "main-src"
    base.mkdir()
    archive = subprocess.run(["git", "-C", str(repo), "archive", "main", "synapse_tui"], capture_output=True)
    if archive.returncode != 0:
        print("parse_file against main: skipped (no git branch 'main' here)")
        return
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    src = write_synthetic_jsonl(folder / "base.jsonl", n, id_prefix="m")
    times: dict[str, list[float]] = {"main": [], "this branch": []}
    for _ in range(3):
        for name, path in (("main", base), ("this branch", repo)):
            env = dict(os.environ, PYTHONPATH=str(path))
            out = subprocess.run(
                [sys.executable, "-c", PARSE, str(src)], env=env, capture_output=True, text=True
            )
            times[name].append(float(out.stdout))
    main_s, here_s = min(times["main"]), min(times["this branch"])
    print(
        f"parse_file of {n:,} facts: main {main_s:.2f} s, this branch {here_s:.2f} s "
        f"(ratio {here_s / main_s:.2f}, best of 3, interleaved)"
    )
    FIGURES.add(f"parse_file of {n:,} facts", here_s, baseline="main, interleaved", against=main_s)


def snapshot_figures(folder: Path, n: int) -> None:
    src = write_synthetic_jsonl(folder / "snap.jsonl", n, id_prefix="p")
    db = folder / "snap.db"
    subprocess.run([*EXE, "import", str(src), "--db", str(db)], check=True, capture_output=True)
    cfg = Config()
    with Store.open(db, readonly=True) as store:
        plain = best(lambda: store.load(cfg))

        def in_snapshot() -> None:
            with store.snapshot():
                store.load(cfg)

        snap = best(in_snapshot)
    print(
        f"load of {n:,} facts: {plain * 1000:.0f} ms plain, {snap * 1000:.0f} ms in a snapshot (ratio {snap / plain:.2f})"
    )
    FIGURES.add(f"load of {n:,} facts in a snapshot", snap, baseline="without one", against=plain)


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        show_figures(folder)
        check_figures(folder, 20_000 if quick else 100_000)
        baseline_figures(folder, 20_000 if quick else 100_000)
        snapshot_figures(folder, 20_000 if quick else 100_000)
    if "--write-results" in sys.argv:
        FIGURES.save()


if __name__ == "__main__":
    main()
