"""Replay real git history through the numbered-edit engine and compare bytes.

For every commit (against its first parent) and every changed text file, the commit's `-U0` hunks
become ONE `pylon edit` request against the parent version: `@@ -a,0 +c,d @@` is `insert after a`,
`@@ -a,b +c,0 @@` is `delete a-(a+b-1)`, anything else `replace a-(a+b-1)` with the `+` lines, and
the `\\ No newline at end of file` markers become `final-newline yes|no`. The parent version is
written to a scratch file, read window by window with the real `read` (so every line is seen),
edited with the real `edit`, and the result is compared byte for byte with the commit's version.
A sample is replayed a second time through the installed `pylon read`/`pylon edit` commands.

    .venv/bin/python bench/edits_replay.py                      # this project's own history
    .venv/bin/python bench/edits_replay.py --repo PATH [--repo PATH2]
    .venv/bin/python bench/edits_replay.py --make-stdlib-repo DIR   # see make_stdlib_repo()

Prints files, hunks and exact matches per repository and records section `edits-replay`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import ROOT, record, table, tool
from _replay_apply import apply_cli, apply_library

HUNK_RE = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
NO_NL = b"\\ No newline at end of file"
ZERO = "0" * 40
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def git_env() -> dict[str, str]:
    sys.path.insert(0, str(ROOT))
    from pylon.gitenv import git_env as env

    return env()


@dataclass
class FileChange:
    old: str  # blob id (all zeros for an added file)
    new: str
    path: str = ""
    binary: bool = False
    hunks: list[tuple[int, int, int, list[bytes]]] = field(default_factory=list)  # (a, b, c, plus lines)
    old_no_nl: bool = False
    new_no_nl: bool = False


@dataclass
class Stats:
    repo: str
    commits: int = 0
    files: int = 0
    hunks: int = 0
    exact: int = 0
    mismatched: list[str] = field(default_factory=list)
    refused: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    suspicious: int = 0  # requests the suspicious-edit heuristics flagged (then replayed with overrides)
    unseen_retries: int = 0  # requests naming a line over 4096 characters: refused once, then applied
    eol_only: int = 0  # results that differ only in line terminators, which requests cannot choose
    bom_changes: int = 0  # a BOM added or removed: requests cannot do that either
    flagged: list[str] = field(default_factory=list)
    cli_checked: int = 0
    cli_exact: int = 0
    seconds: float = 0.0


def parse_diff(raw: bytes) -> list[FileChange]:
    changes: list[FileChange] = []
    cur: FileChange | None = None
    last_sign = b""
    for line in raw.split(b"\n"):
        if line.startswith(b"diff --git "):
            cur = FileChange(ZERO, ZERO, line.split(b" b/", 1)[-1].decode("utf-8", "replace"))
            changes.append(cur)
            last_sign = b""
        elif cur is None:
            continue
        elif line.startswith(b"index ") and not cur.hunks:
            ids = line.split()[1].split(b"..")
            cur.old, cur.new = ids[0].decode(), ids[1].decode()
        elif line.startswith((b"Binary files ", b"GIT binary patch")):
            cur.binary = True
        elif m := HUNK_RE.match(line):
            a = int(m.group(1))
            b = int(m.group(2)) if m.group(2) is not None else 1
            cur.hunks.append((a, b, int(m.group(3)), []))
            last_sign = b""
        elif line.startswith(b"+") and cur.hunks and not line.startswith(b"+++ "):
            cur.hunks[-1][3].append(line[1:])
            last_sign = b"+"
        elif line.startswith(b"-") and cur.hunks and not line.startswith(b"--- "):
            last_sign = b"-"
        elif line == NO_NL:
            if last_sign == b"+":
                cur.new_no_nl = True
            elif last_sign == b"-":
                cur.old_no_nl = True
        elif line.startswith((b"+++ ", b"--- ")) and cur.hunks:
            # a content line that happens to start with "++ "/"-- ": only inside hunks
            if line.startswith(b"+"):
                cur.hunks[-1][3].append(line[1:])
                last_sign = b"+"
            else:
                last_sign = b"-"
    return changes


BOM = b"\xef\xbb\xbf"


def build_request(change: FileChange, old: bytes) -> bytes:
    """One request for all the hunks of a file (git counts a BOM as part of line 1; pylon keeps it apart)."""
    parts: list[bytes] = []
    for a, b, c, plus in change.hunks:
        if c == 1 and plus and plus[0].startswith(BOM) and old.startswith(BOM):
            plus = [plus[0][len(BOM) :], *plus[1:]]
        if b == 0:
            parts.append(b"insert after %d\n" % a)
        elif not plus:
            parts.append(b"delete %d-%d\n" % (a, a + b - 1))
        else:
            parts.append(b"replace %d-%d\n" % (a, a + b - 1))
        for content in plus:
            if content.endswith(b"\r"):
                content = content[:-1]  # the request's CRLF is a line break; the file decides terminators
            parts.append(b"+" + content + b"\n")
    old_final = old.endswith(b"\n") or old in (b"", b"\xef\xbb\xbf")
    touched_end = change.old_no_nl or change.new_no_nl
    if touched_end or (not old and any(p for _, _, _, p in change.hunks)):
        new_final = not change.new_no_nl
        if new_final != old_final or not old:
            parts.append(b"final-newline %s\n" % (b"yes" if new_final else b"no"))
    return b"".join(parts)


def eol_only(a: bytes, b: bytes) -> bool:
    return a.replace(b"\r\n", b"\n") == b.replace(b"\r\n", b"\n")


def repo_name(repo: Path) -> str:
    """`owner/name` for a mirror kept as `owner+name/repo`; else the folder's name."""
    folder = repo.parent if repo.name in ("repo", ".git") else repo
    return folder.name.replace("+", "/", 1)


def commit_list(repo: Path, env: dict[str, str], count: int | None, newest: bool) -> list[str]:
    """`commit parent...` lines, oldest first: the first `count` commits, or the newest `count`."""
    cmd = ["git", "rev-list", "--topo-order", "--parents", "HEAD"]
    if newest and count is not None:
        cmd[2:2] = ["-n", str(count)]
        return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, check=True).stdout.split("\n")[
            ::-1
        ]
    cmd.insert(2, "--reverse")
    return subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, check=True).stdout.split("\n")


class Blobs:
    """`git cat-file --batch` kept open for the whole replay."""

    def __init__(self, repo: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=repo, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def get(self, oid: str) -> bytes:
        if oid.strip("0") == "":
            return b""
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(oid.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            raise KeyError(oid)
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)
        return data

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def replay(
    repo: Path, scratch: Path, cli_sample: int, max_commits: int | None, newest: bool = False, through_cli: bool = False
) -> Stats:
    from pylon.workspace.edits.lines import check_text

    pylon = tool("pylon")

    env = git_env()
    stats = Stats("this repository (pylon)" if repo == ROOT.resolve() else repo_name(repo))
    started = time.perf_counter()
    log = commit_list(repo, env, max_commits, newest)
    blobs = Blobs(repo, env)
    counter = 0
    cli_cases: list[tuple[bytes, bytes, bytes]] = []
    for entry in log:
        ids = entry.split()
        if not ids:
            continue
        if len(ids) == 1:
            ids.append(EMPTY_TREE)  # a root commit: its files are added to empty files
        if max_commits is not None and stats.commits >= max_commits:
            break
        stats.commits += 1
        commit, parent = ids[0], ids[1]
        proc = subprocess.run(
            [
                "git",
                "-c",
                "core.quotepath=off",
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-renames",
                "--full-index",
                "--no-textconv",
                "--src-prefix=a/",
                "--dst-prefix=b/",
                "-U0",
                parent,
                commit,
            ],
            cwd=repo,
            env=env,
            capture_output=True,
        )
        if proc.returncode != 0:
            # A partial mirror (large blobs left out) cannot diff some commits: count, go on.
            stats.skipped["commit with missing objects"] += 1
            continue
        raw = proc.stdout
        for change in parse_diff(raw):
            if change.binary:
                stats.skipped["binary"] += 1
                continue
            if change.new.strip("0") == "":
                stats.skipped["deleted file"] += 1
                continue
            if not change.hunks:
                stats.skipped["mode or empty change"] += 1
                continue
            old, new = blobs.get(change.old), blobs.get(change.new)
            if check_text(old) or check_text(new):
                stats.skipped["not UTF-8 text"] += 1
                continue
            stats.files += 1
            stats.hunks += len(change.hunks)
            counter += 1
            folder = scratch / str(counter)
            folder.mkdir(parents=True)
            path = folder / "file"  # apply_cli reads and edits it by this name
            path.write_bytes(old)
            request = build_request(change, old)
            out = apply_cli(pylon, folder, request) if through_cli else apply_library(path, request)
            stats.unseen_retries += out.unseen_retry
            if out.flagged is not None:
                stats.suspicious += 1
                stats.flagged.append(f"{commit[:10]} {change.path}: {out.flagged}")
            if out.refused is not None and out.refused[0] == "no-change" and eol_only(old, new):
                stats.eol_only += 1  # the commit only changed line terminators: a request cannot say that
                stats.mismatched.append(f"{commit[:10]} {change.path}: line endings only (refused as no-change)")
                shutil.rmtree(folder)
                continue
            if out.refused is not None:
                code, message = out.refused
                stats.refused[code] += 1
                if len(stats.mismatched) < 20:
                    stats.mismatched.append(f"{commit[:10]} {change.path}: refused {code}: {message}")
                shutil.rmtree(folder)
                continue
            if path.read_bytes() == new:
                stats.exact += 1
                if len(cli_cases) < cli_sample:
                    cli_cases.append((old, request, new))
            else:
                got = path.read_bytes()
                if eol_only(got, new):
                    stats.eol_only += 1
                    kind = "line endings only (not expressible: terminators come from the file)"
                elif old.startswith(BOM) != new.startswith(BOM):
                    stats.bom_changes += 1
                    kind = "BOM added or removed (not expressible)"
                else:
                    kind = "content"
                stats.mismatched.append(f"{commit[:10]} {change.path}: {kind} differs")
            shutil.rmtree(folder)
    blobs.close()
    if through_cli:
        stats.cli_checked, stats.cli_exact = stats.files, stats.exact  # every change went through the commands
    else:
        stats.cli_checked, stats.cli_exact = replay_cli(cli_cases, scratch)
    stats.seconds = time.perf_counter() - started
    return stats


def replay_cli(cases: list[tuple[bytes, bytes, bytes]], scratch: Path) -> tuple[int, int]:
    """The same requests through the installed commands (separate processes, same ledger)."""
    pylon = tool("pylon")
    exact = 0
    for i, (old, request, new) in enumerate(cases):
        folder = scratch / f"cli-{i}"
        folder.mkdir()
        (folder / "f").write_bytes(old)
        offset, tag = 1, ""
        while True:
            res = subprocess.run(
                [pylon, "read", "f", "--offset", str(offset), "--json"], cwd=folder, capture_output=True, text=True
            )
            import json

            doc = json.loads(res.stdout)
            tag = doc["tag"]
            if doc["next_offset"] is None:
                break
            offset = doc["next_offset"]
        for _attempt in range(2):  # a second try after an unseen-lines refusal (lines over 4096 characters)
            done = subprocess.run(
                [pylon, "edit", f"f#{tag}", "--allow-echo", "--allow-indent-mix"],
                cwd=folder,
                input=request,
                capture_output=True,
            )
            if done.returncode != 2 or b"unseen-lines" not in done.stderr:
                break
        exact += (folder / "f").read_bytes() == new
        shutil.rmtree(folder)
    return len(cases), exact


def make_stdlib_repo(target: Path) -> Path:
    """A repository whose commits are CPython's pure-Python stdlib, release after release.

    Built from the interpreters pyenv installed on this machine (`$PYENV_ROOT/versions`: 3.6 ... 3.13): each
    commit holds the top-level `lib/pythonX.Y/*.py` modules plus the `json`, `email`, `asyncio`, `unittest`,
    `importlib` and `http` packages of one release. The diffs between commits are the real edits
    CPython's developers made between releases; only the grouping into commits is ours.
    """
    env = git_env()
    pyenv = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")
    versions = sorted((pyenv / "versions").glob("3.*"), key=lambda p: tuple(int(x) for x in p.name.split(".")))
    if len(versions) < 2:
        raise SystemExit("make-stdlib-repo needs at least two pyenv CPython 3.x installs")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=target, env=env, check=True)
    for version in versions:
        lib = version / "lib" / f"python{'.'.join(version.name.split('.')[:2])}"
        for old in list(target.iterdir()):
            if old.name != ".git":
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        for src in lib.glob("*.py"):
            shutil.copy2(src, target / src.name)
        for package in ("json", "email", "asyncio", "unittest", "importlib", "http"):
            if (lib / package).is_dir():
                shutil.copytree(
                    lib / package,
                    target / package,
                    ignore=shutil.ignore_patterns("__pycache__", "test", "tests", "*.pyc"),
                )
        subprocess.run(["git", "add", "-A"], cwd=target, env=env, check=True)
        subprocess.run(
            [
                "git",
                "-c",
                "user.name=replay",
                "-c",
                "user.email=replay@localhost",
                "commit",
                "-q",
                "-m",
                f"CPython {version.name} stdlib",
            ],
            cwd=target,
            env=env,
            check=True,
        )
    return target


def report(all_stats: list[Stats]) -> str:
    rows = []
    for s in all_stats:
        pct = 100.0 * s.exact / s.files if s.files else 0.0
        skipped = ", ".join(f"{v} {k}" for k, v in sorted(s.skipped.items())) or "none"
        refused = ", ".join(f"{v} {k}" for k, v in sorted(s.refused.items())) or "none"
        other = s.files - s.exact - sum(s.refused.values()) - s.eol_only - s.bom_changes
        rows.append(
            (
                s.repo,
                str(s.commits),
                str(s.files),
                str(s.hunks),
                f"{s.exact} ({pct:.2f}%)",
                f"{s.eol_only} / {s.bom_changes}",
                str(other),
                refused,
                str(s.suspicious),
                str(s.unseen_retries),
                f"{s.cli_exact}/{s.cli_checked}",
                skipped,
                f"{s.seconds:.0f} s",
            )
        )
    return table(
        rows,
        (
            "repository",
            "commits",
            "files",
            "hunks",
            "exact matches",
            "not expressible (EOL / BOM)",
            "other mismatches",
            "refused",
            "flagged suspicious",
            "long-line retries",
            "CLI sample exact",
            "skipped",
            "time",
        ),
    )


def _false_positive_line(all_stats: list[Stats]) -> str:
    """The suspicious-edit false-positive rate: every replayed change is a real one, so every
    refusal of the heuristics (without --allow-*) is a false positive."""
    files = sum(s.files for s in all_stats)
    flagged = sum(s.suspicious for s in all_stats)
    rate = 100 * flagged / files if files else 0.0
    return (
        f"Suspicious-edit false positives (requests replayed without `--allow-echo --allow-indent-mix`): "
        f"{flagged} of {files} real file changes ({rate:.2f}%)."
    )


def _command_line() -> str:
    return " ".join(repo_name(Path(a)) if a.startswith("/") else a for a in sys.argv[1:])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--repo", action="append", type=Path, help="repository to replay (repeatable); default: this project"
    )
    parser.add_argument(
        "--make-stdlib-repo",
        type=Path,
        metavar="DIR",
        help="build the CPython stdlib history repo in DIR and replay it too",
    )
    parser.add_argument("--max-commits", type=int, default=None)
    parser.add_argument(
        "--newest", action="store_true", help="with --max-commits: the newest N commits, not the first N"
    )
    parser.add_argument(
        "--through-cli",
        action="store_true",
        help="send every change through the installed pylon read/edit commands, not only a sample",
    )
    parser.add_argument(
        "--cli-sample", type=int, default=25, help="file edits replayed again through the installed commands"
    )
    parser.add_argument("--section", default="edits-replay", help="the docs/benchmarks.md section to write")
    parser.add_argument("--no-record", action="store_true", help="print only; do not write docs/benchmarks.md")
    args = parser.parse_args()
    repos = list(args.repo or [ROOT])
    if args.make_stdlib_repo:
        repos.append(make_stdlib_repo(args.make_stdlib_repo))
    all_stats = []
    with tempfile.TemporaryDirectory(prefix="pylon-replay-") as tmp:
        os.environ["PYLON_STATE_DIR"] = str(Path(tmp) / "state")
        os.environ["PYLON_SESSION"] = "replay"
        sys.path.insert(0, str(ROOT))
        for i, repo in enumerate(repos):
            stats = replay(
                repo.resolve(),
                Path(tmp) / f"scratch-{i}",
                args.cli_sample,
                args.max_commits,
                args.newest,
                args.through_cli,
            )
            all_stats.append(stats)
            print(
                f"{stats.repo}: {stats.commits} commits, {stats.files} files, {stats.hunks} hunks, "
                f"{stats.exact} exact matches ({100.0 * stats.exact / max(stats.files, 1):.2f}%), "
                f"{stats.suspicious} flagged suspicious, {stats.unseen_retries} long-line retries, "
                f"{stats.eol_only} line-ending-only, {stats.bom_changes} BOM changes, "
                f"CLI sample {stats.cli_exact}/{stats.cli_checked} exact, "
                f"skipped {dict(stats.skipped)}, {stats.seconds:.1f} s"
            )
            for line in stats.mismatched[:20]:
                print("  not exact:", line)
            for line in stats.flagged:  # every one: each is a real change the heuristics refused
                print("  flagged suspicious:", line)
    if not args.no_record:
        window = (
            f"the {'newest' if args.newest else 'first'} {args.max_commits} commits of each"
            if args.max_commits
            else "every commit"
        )
        how = (
            "through the installed `pylon read` / `pylon edit` commands (one process per call, every change)"
            if args.through_cli
            else "through the engine (a sample of each again through the installed commands)"
        )
        through = "commands" if args.through_cli else "engine"
        body = [
            f"### Numbered edits: replay of real git history ({window}, {through})",
            "",
            "Every commit's `-U0` hunks per file, turned into one `pylon edit` request against the parent",
            f"version, applied {how} and compared byte for byte with the commit's version",
            f'(`bench/edits_replay.py {_command_line()}`, repository paths shortened). "files" counts',
            "file changes (one request each). Each request is first sent WITHOUT `--allow-echo",
            '--allow-indent-mix`: "flagged suspicious" counts real changes the heuristics refused (exit 3;',
            "each is listed below), which are then sent again with the overrides so exactness covers them.",
            '"not expressible" counts changes a request cannot make by design: a commit that gives some',
            "lines other terminators than the file's dominant one (a mixed-ending file edited by an editor",
            "that writes CRLF), or adds or drops a BOM; their results equal the commit's but for those",
            'terminators. "exact matches" are byte for byte.',
            "",
            report(all_stats),
            "",
            _false_positive_line(all_stats),
        ]
        if args.make_stdlib_repo:
            body += [
                "",
                "The CPython repository is built by `--make-stdlib-repo`: one commit per CPython release",
                "installed on this machine (3.6 to 3.13), holding the top-level stdlib modules and six",
                "packages; the hunks are the real changes between releases, the commits are synthetic.",
            ]
        flagged = [f"- {s.repo} {line}" for s in all_stats for line in s.flagged]
        if flagged:
            body += ["", "Real changes the heuristics refused (without the overrides):", "", *flagged]
        record(args.section, "\n".join(body))
    ok = all(s.exact + s.eol_only + s.bom_changes == s.files for s in all_stats)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
