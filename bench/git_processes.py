"""Benchmark: git processes per pylon command, and the CPU of a cycle of them, against a base tree.

One cycle of the commands agents and the tests run most, in a fresh repository of 40 files: the
shell tool's hook pair (PreToolUse, the command, PostToolUse: the keep before and the op after,
kept in the hook's own process), and Claude Code's stream of PreToolUse alone (each ends the last
command, and the batch's end the stream's last), `ws status`, `ws new`, `ws apply`,
`ws undo`, `ws redo`, `ws move` and `--back`, `ws restore op-N`, `ws log`, `ws run`, `ws rm`,
`guard check`, and canon's hooks (SessionStart, PostToolBatch). Every git process a command starts
writes its argv to git's own trace (GIT_TRACE2_EVENT), so the counts are git's, not pylon's.

Both trees run through the same interpreter: this tree, and the tree of --base REV (`git archive`
into bench/.work), each command line forked from a server that imported that tree's pylon (the
tests' fork server, tests/forkserver.py: what the default tier runs), so the figure is pylon's
own work and its git processes, without an interpreter's start. The CPU figure: the CPU of the
cycle's command lines and every git they waited for (the server's reaped children), rounds
alternating the trees so the machine's load falls on both alike; the ratio is this tree's median
over the base's. `--spawn`: a new interpreter per command line instead (what an agent's hook pays).

Run: .venv/bin/python bench/git_processes.py [--base REV] [--rounds N] [--counts N] [--record]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import BIN, ROOT, WORK, record, table

sys.path.insert(0, str(ROOT))
from tests.keep.hookpath import event  # the tests' own hook events and trace reader
from tests.workspace.helpers import git_starts

SCRATCH = WORK / "git_processes"
_SHIM = "import sys; sys.path.insert(0, {tree!r}); from pylon.cli.main import {name}; sys.argv[0] = {name!r}; {name}()"


class Server:
    """The tests' fork server with one tree's pylon imported; `cpu()`: its reaped children's CPU."""

    def __init__(self, tree: str) -> None:
        from tests.forkserver import ForkServer

        folder = tempfile.mkdtemp(dir=SCRATCH, prefix="server-")
        self.path = os.path.join(folder, "sock")
        first = f"import sys; sys.path[:0] = [{tree!r}, {str(ROOT)!r}]; "
        code = first + "from tests.forkserver import serve; serve(*sys.argv[1:])"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYLON_", "GIT_"))}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", code, self.path, str(BIN)], cwd=folder, stdout=subprocess.PIPE, env=env
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline() == b"ready\n"
        self.client = ForkServer()
        self.client._proc, self.client.path = self.proc, self.path  # started here, with `tree` first on sys.path

    def run(self, name: str, args: list[str], cwd: str, env: dict[str, str], stdin: bytes) -> tuple[int, bytes]:
        code, out, err = self.client.run(name, str(BIN / name), args, cwd, env, stdin, 300)
        if code != 0:
            raise RuntimeError(f"{args} exited {code}: {err.decode()[-1500:]}")
        return code, out

    def cpu(self) -> float:
        with open(f"/proc/{self.proc.pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime + cstime

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def tree_of(revision: str | None) -> str:
    """The folder holding `pylon/` of `revision` (None: this tree)."""
    folder = ROOT if revision is None else SCRATCH / f"tree-{revision}"
    if revision is not None and not folder.exists():
        folder.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", revision, "pylon"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    # Both trees compiled alike: a module a command imports late would otherwise be compiled from its
    # source in every command of a tree without bytecode (with PYTHONDONTWRITEBYTECODE set, the
    # extracted base always), which once made two copies of one tree differ by 12%.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "pylon")], check=True)
    return str(folder)


def environment(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PYLON_", "XDG_"))}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_STATE_HOME=str(home / ".state"),
        XDG_DATA_HOME=str(home / ".share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        GIT_CONFIG_NOSYSTEM="1",
        PYLON_HOOK_HELPER="0",  # each hook its own process, as in the tests
        PYLON_KEEP_DETACH="0",  # the op after a command in the hook's own process: counted and timed
    )
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Bench\n\temail = bench@example.com\n[init]\n\tdefaultBranch = main\n"
        "[maintenance]\n\tauto = false\n[gc]\n\tauto = 0\n",
        encoding="utf-8",
    )
    return env


class Cycle:
    """One cycle of the commands in a fresh repository, with one tree's `pylon` and `canon`."""

    def __init__(self, tree: str, work: Path, trace: bool, server: Server | None = None) -> None:
        self.tree, self.work, self.trace, self.server = tree, work, trace, server
        home = work / "home"
        home.mkdir(parents=True)
        self.env = environment(home)
        self.repo = work / "repo"
        self.counts: dict[str, list[int]] = {}
        self.kinds: dict[str, Counter[str]] = {}
        self.n = 0

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=self.repo, env=self.env, capture_output=True, text=True, check=True
        ).stdout

    def tool(self, label: str, name: str, *args: str, stdin: bytes = b"", cwd: Path | None = None) -> str:
        self.n += 1
        env = dict(self.env)
        log = self.work / f"trace-{self.n}.json"
        if self.trace:
            env["GIT_TRACE2_EVENT"] = str(log)
        if self.server is not None:
            _code, out = self.server.run(name, list(args), str(cwd or self.repo), env, stdin)
        else:
            argv = [sys.executable, "-c", _SHIM.format(tree=self.tree, name=name), *args]
            done = subprocess.run(argv, cwd=cwd or self.repo, env=env, input=stdin, capture_output=True)
            if done.returncode != 0:
                raise RuntimeError(f"{label}: {args} exited {done.returncode}: {done.stderr.decode()[-1500:]}")
            out = done.stdout
        if self.trace:
            starts = [argv[0] if argv else "?" for argv in git_starts(log)]
            self.counts.setdefault(label, []).append(len(starts))
            self.kinds.setdefault(label, Counter()).update(starts)
        return out.decode()

    def pylon(self, label: str, *args: str) -> str:
        return self.tool(label, "pylon", *args)

    def shell(self, agent: str, command: str) -> None:
        use_id = f"toolu_{self.n}"
        for name in ("PreToolUse", "PostToolUse"):
            stdin = event(name, command, self.repo, use_id).encode()
            self.tool(f"hook {agent} {name}", "pylon", "hook", agent, stdin=stdin)
            if name == "PreToolUse":
                subprocess.run(["bash", "-c", command], cwd=self.repo, env=self.env, check=True)

    def run(self) -> None:
        self.repo.mkdir()
        self.git("init", "-q", "-b", "main")
        for i in range(40):
            path = self.repo / ("src" if i % 2 else "docs") / f"f{i}.txt"
            path.parent.mkdir(exist_ok=True)
            path.write_text(f"line {i}\n" * 20)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", "initial")
        self.tool("canon init", "canon", "init")
        session = json.dumps({"session_id": "s-1", "cwd": str(self.repo), "hook_event_name": "SessionStart"})
        self.tool("canon hook SessionStart", "pylon", "hook", "claude-code", stdin=session.encode())
        for i in range(3):
            self.shell("claude-code", f"echo claude {i} >> src/f1.txt")
            self.shell("codex", f"echo codex {i} > new{i}.txt")
        for i in range(3):  # as Claude Code runs them (no PostToolUse): the next command ends the last
            label = "hook claude-code PreToolUse" + (", ending the last command" if i else "")
            stdin = event("PreToolUse", f"echo stream {i} >> src/f2.txt", self.repo, f"toolu_s{i}").encode()
            self.tool(label, "pylon", "hook", "claude-code", stdin=stdin)
            subprocess.run(["bash", "-c", f"echo stream {i} >> src/f2.txt"], cwd=self.repo, env=self.env, check=True)
        batch = {"session_id": "s-1", "cwd": str(self.repo), "hook_event_name": "PostToolBatch", "tool_calls": []}
        self.tool("canon hook PostToolBatch", "pylon", "hook", "claude-code", stdin=json.dumps(batch).encode())
        self.pylon("guard check", "guard", "check", "rm -rf src")
        for _ in range(2):
            self.pylon("ws status", "ws", "status")
        made = json.loads(self.pylon("ws new", "ws", "new", "a", "--json"))
        agent = Path(str(made["path"]))
        (agent / "src" / "f3.txt").write_text("agent\n")
        (agent / "agent.txt").write_text("new\n")
        (self.repo / "mine.txt").write_text("mine\n")
        self.pylon("ws apply", "ws", "apply", "a")
        self.pylon("ws undo", "ws", "undo")
        self.pylon("ws redo", "ws", "redo")
        self.pylon("ws undo", "ws", "undo")
        self.pylon("ws move", "ws", "move", "a")
        self.pylon("ws move --back", "ws", "move", "a", "--back")
        self.pylon("ws log", "ws", "log")
        self.pylon("ws restore op-N", "ws", "restore", "op-1:before", "src")
        self.pylon("ws undo", "ws", "undo")
        self.pylon("ws run", "ws", "run", "--", "sh", "-c", "echo run >> src/f5.txt")
        self.pylon("ws status", "ws", "status")
        self.pylon("ws rm", "ws", "rm", "a", "--force")


def count(tree: str, server: Server | None) -> Cycle:
    work = Path(tempfile.mkdtemp(dir=SCRATCH, prefix="count-"))
    cycle = Cycle(tree, work, trace=True, server=server)
    cycle.run()
    shutil.rmtree(work, ignore_errors=True)
    return cycle


def cpu(tree: str, server: Server | None) -> float:
    """One cycle's CPU: the server's reaped children, else this process's."""
    work = Path(tempfile.mkdtemp(dir=SCRATCH, prefix="cpu-"))
    mine = resource.getrusage(resource.RUSAGE_CHILDREN)
    theirs = server.cpu() if server is not None else 0.0
    Cycle(tree, work, trace=False, server=server).run()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime - mine.ru_utime) + (after.ru_stime - mine.ru_stime)
    if server is not None:  # the setup's git and bash ran here: only the command lines count
        spent = server.cpu() - theirs
    shutil.rmtree(work, ignore_errors=True)
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="7c31923", help="the tree to compare with (a revision)")
    parser.add_argument("--rounds", type=int, default=6, help="CPU rounds per tree (alternated)")
    parser.add_argument("--record", action="store_true", help="write the section of docs/benchmarks.md")
    parser.add_argument("--kinds", action="store_true", help="print the subcommands each command starts")
    parser.add_argument("--counts", type=int, default=3, help="counting cycles per tree (averaged)")
    parser.add_argument("--spawn", action="store_true", help="a new interpreter per command line")
    args = parser.parse_args()
    SCRATCH.mkdir(parents=True, exist_ok=True)
    trees = {"base": tree_of(args.base), "this": tree_of(None)}
    servers = {name: None if args.spawn else Server(tree) for name, tree in trees.items()}
    counted = {name: count(tree, servers[name]) for name, tree in trees.items()}
    for _ in range(args.counts - 1):  # a capture's work depends on the clock (racy entries): averaged
        for name, tree in trees.items():
            again = count(tree, servers[name])
            for label, runs in again.counts.items():
                counted[name].counts.setdefault(label, []).extend(runs)
    rows = []
    for label, runs in counted["this"].counts.items():
        base = counted["base"].counts.get(label, [])
        per = [statistics.mean(base) if base else 0.0, statistics.mean(runs)]
        times = len(runs) // args.counts
        rows.append([f"`{label}`" + (f" (x{times})" if times > 1 else ""), f"{per[0]:.1f}", f"{per[1]:.1f}"])
        if args.kinds:
            print(label, dict(counted["base"].kinds.get(label, {})), "->", dict(counted["this"].kinds[label]))
    total = [sum(sum(c.counts[k]) for k in c.counts) / args.counts for c in (counted["base"], counted["this"])]
    rows.append(["the whole cycle", f"{total[0]:.1f}", f"{total[1]:.1f}"])
    samples: dict[str, list[float]] = {"base": [], "this": []}
    for r in range(args.rounds):
        for name in ("base", "this") if r % 2 == 0 else ("this", "base"):
            samples[name].append(cpu(trees[name], servers[name]))
    for server in servers.values():
        if server is not None:
            server.close()
    print("CPU samples:", {n: [round(x, 3) for x in v] for n, v in samples.items()}, file=sys.stderr)
    text = table(rows, ["command", f"git processes, {args.base}", "this tree"])
    how = "a new interpreter each" if args.spawn else "forked from a server that imported pylon, as in the tests"
    if args.rounds:
        base_cpu, this_cpu = (statistics.median(samples[n]) for n in ("base", "this"))
        load = os.getloadavg()[0]
        text += (
            f"\n\nCPU of one cycle's command lines ({how}) and their git processes, "
            f"median of {args.rounds} rounds per tree, alternated: {base_cpu:.3f} s base, "
            f"{this_cpu:.3f} s this tree, ratio {this_cpu / base_cpu:.2f}x (1-minute load at the end {load:.1f})."
        )
    print(text)
    if args.record:
        record("git-processes", "## Git processes per pylon command (`bench/git_processes.py`)\n\n" + text)


if __name__ == "__main__":
    main()
