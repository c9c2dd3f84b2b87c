"""Whether the corpus builder reads a memory file's blocks as the product does (issue 39: the
truth must count as facts what the product counts as facts).

    python benchmarks/check_builder_blocks.py [--corpus DIR ...] [--head] [--show N] [--e2e]

For every repository of each corpus (`DIR/manifest.json`: its snapshot's `git_dir`), every
distinct version of every memory file in the history the builder reads (`--head`: the files
at HEAD only), read with git plumbing (build_real_corpus.history and blobs). Each is parsed
by the builder (`build_real_corpus.parse_blocks`) and by the product's Markdown reader
(`markdown_memory.front` then `blocks`); the two lists of texts (white space runs as one
space) are compared as multisets. Every block one side has and the other lacks is counted by
why (the product's `junk` kind, a comment's marks in a code span, front matter pasted
mid-file, ...), with examples; a path the builder reads that `memory_path` refuses is named.
`--e2e`: the files at HEAD are also copied into a one-commit repository and read by the
`git-notes` importer, and each note's facts are compared with `front` + `blocks`.
Exit status 1 when any file differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import build_real_corpus as builder  # noqa: E402

from synapse_tui.core.ingest.adapters import git_notes  # noqa: E402
from synapse_tui.core.ingest.adapters import markdown_memory as mm  # noqa: E402

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def head_files(git_dir: Path) -> list[tuple[str, str]]:
    """(path, blob) of the memory files at HEAD, links left out."""
    out = builder.git(
        git_dir,
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--no-abbrev",
        EMPTY_TREE,
        "HEAD",
        "--",
        *builder.PATHSPECS,
    )
    recs = out.split(b"\0")
    files = []
    for meta, path in zip(recs[0::2], recs[1::2], strict=False):
        if not meta:
            continue
        fields = meta.decode().lstrip(":").split()
        p = path.decode("utf-8", "replace")
        if fields[1] != "120000" and not builder._NOT_MEMORY.search(p):
            files.append((p, fields[3]))
    return files


def history_files(git_dir: Path) -> list[tuple[str, str]]:
    """(path, blob) of every distinct version of every memory file in the builder's history."""
    seen: set[str] = set()
    files = []
    for c in builder.history(git_dir):
        for ch in c.changes:
            if (
                ch.new_mode not in ("000000", "120000")
                and set(ch.new_blob) != {"0"}
                and ch.new_blob not in seen
            ):
                seen.add(ch.new_blob)
                files.append((ch.path, ch.new_blob))
    return files


def product_blocks(raw: str) -> list[str]:
    fm = mm.front(mm.text_of(raw))
    return [b.text for b in mm.blocks(fm.body, fm.offset)]


def why_builder_only(text: str) -> str:
    kind = mm.junk(text)
    if kind == "html comment":
        return "a comment's marks in a code span" if "<!--" in text else "an arrow '-->' in text"
    return f"product's junk '{kind}'" if kind else "other"


def why_product_only(text: str) -> str:
    if "``" in text:
        return "a code span's comment cut out"
    if all(builder._FRONT_KEY.match(x) for x in text.split("\n") if x.strip()):
        return "front matter pasted mid-file"
    kind = builder.junk_kind(text)
    return f"builder's junk '{kind}'" if kind else "other"


def compare(repos: list[tuple[str, Path]], head: bool, show: int) -> int:
    kinds: Counter[str] = Counter()
    examples: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    n_files = n_same = 0
    for repo, git_dir in repos:
        files = head_files(git_dir) if head else history_files(git_dir)
        for p, _ in files:
            if not mm.memory_path(p):
                print(f"PATH {repo} {p}: the builder reads it, memory_path refuses it")
        data = builder.blobs(git_dir, [s for _, s in files])
        for p, sha in files:
            if sha not in data:
                continue
            raw = data[sha].decode("utf-8", "replace")
            n_files += 1
            ours = [b.text for b in builder.parse_blocks(raw)]
            theirs = product_blocks(raw)
            a, b = Counter(map(mm.norm, ours)), Counter(map(mm.norm, theirs))
            if a == b:
                n_same += 1
                continue
            for side, only, texts, why in (
                ("builder only", a - b, ours, why_builder_only),
                ("product only", b - a, theirs, why_product_only),
            ):
                for key, n in only.items():
                    text = next(t for t in texts if mm.norm(t) == key)
                    kind = f"{side}: {why(text)}"
                    kinds[kind] += n
                    if len(examples[kind]) < show:
                        examples[kind].append((repo, p, text[:160]))
    print(f"{n_files} file versions, {n_same} read alike, {n_files - n_same} not")
    for kind, n in kinds.most_common():
        print(f"{n:6}  {kind}")
        for repo, p, text in examples[kind]:
            print(f"          {repo} {p} {text!r}")
    return n_files - n_same


def e2e(repos: list[tuple[str, Path]]) -> int:
    """Files at HEAD read by the git-notes importer from a one-commit copy, per note."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **builder._ENV_GIT}
    differ = 0
    for repo, git_dir in repos:
        files = head_files(git_dir)
        data = builder.blobs(git_dir, [s for _, s in files])
        if not any(s in data for _, s in files):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            for p, sha in files:
                if sha in data:
                    (Path(tmp) / p).parent.mkdir(parents=True, exist_ok=True)
                    (Path(tmp) / p).write_bytes(data[sha])
            for args in (
                ["init", "-q"],
                ["add", "-A"],
                ["-c", "user.name=x", "-c", "user.email=x@y", "commit", "-qm", "x"],
            ):
                subprocess.run(["git", "-C", tmp, *args], env=env, check=True, capture_output=True)
            read: dict[str | None, Counter[str]] = defaultdict(Counter)
            for f in git_notes.read(Path(tmp)).facts:
                read[f.note][mm.norm(f.text)] += 1
            for p, sha in files:
                if sha in data:
                    want = Counter(map(mm.norm, product_blocks(data[sha].decode("utf-8", "replace"))))
                    if read.get(p, Counter()) != want:
                        differ += 1
                        print(
                            f"E2E {repo} {p}: git-notes reads {sum(read.get(p, Counter()).values())} facts, blocks {sum(want.values())}"
                        )
    print(f"E2E: {differ} files whose git-notes facts are not front + blocks")
    return differ


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", nargs="+", default=[os.environ.get("SYNAPSE_CORPUS", "/work/corpus")])
    ap.add_argument("--head", action="store_true", help="the files at HEAD only")
    ap.add_argument("--show", type=int, default=3, help="examples per kind")
    ap.add_argument("--e2e", action="store_true", help="also read the HEAD files with git-notes")
    args = ap.parse_args()
    repos = [
        (e["repo"], Path(e["git_dir"]))
        for root in args.corpus
        for e in json.loads((Path(root) / "manifest.json").read_text())
        if Path(e["git_dir"]).is_dir()
    ]
    bad = compare(repos, args.head, args.show)
    if args.e2e:
        bad += e2e(repos)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
