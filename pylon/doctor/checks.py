"""The checks of `pylon doctor`: each finding says what is wrong and the exact command that fixes it.

A finding is {check, status, message, fix}: status `ok` (fine, said so), `note` (worth knowing, not
wrong) or `problem` (wrong: the doctor exits 1). The checks, in order: versions (pylon, Python, git
and what needs git >= 2.38), the package and its optional parts, the hooks per client and scope
(installs.py: twice, untrusted in Codex, a plugin that cannot find `pylon`), then, inside a git
checkout: interrupted ops, git lock files left behind, half-made or vanished owned worktrees and
ones whose proof fails, watchers that died, the size of the states pylon keeps, the write-time
check's settings and the canon store. No network, nothing written.
"""

from __future__ import annotations

import os
import shutil
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.workspace.repo import Checkout

MIN_GIT = (2, 38)  # `git merge-tree --write-tree`: ws apply, sync, finish, conflicts, list's overlaps
HOOK_GIT = (2, 36)  # `git hook run`: ws finish --commit runs the repository's hooks
LOCK_AGE = 60.0  # seconds: a git lock file older than this with nothing holding it is left behind
KEPT_TOO_MUCH = 1 << 30  # bytes only pylon's states keep before it is a problem


class Finding(dict):  # a plain dict with a constructor, so it is its own JSON
    def __init__(self, check: str, status: str, message: str, fix: str | None = None) -> None:
        super().__init__(check=check, status=status, message=message, fix=fix)


def run(cwd: str, env: dict[str, str] | None = None) -> list[Finding]:
    found: list[Finding] = []
    found += versions()
    from pylon.findroot import find_root

    root = find_root(cwd)[0]
    found += hooks(root, env)
    if root is not None:
        from pylon.workspace.repo import locate

        try:
            checkout = locate(root)
        except Exception as exc:  # a broken repository is itself a finding
            return [
                *found,
                Finding(
                    "repository",
                    "problem",
                    f"{root} cannot be read as a git checkout ({exc}).",
                    f"git -C {_q(root)} status",
                ),
            ]
        for check in (ops, git_locks, worktrees, watchers, kept, writes, canon):
            try:
                found += check(checkout)
            except Exception as exc:  # one check failing must not hide the others
                found.append(
                    Finding(
                        check.__name__,
                        "problem",
                        f"the check failed: {type(exc).__name__}: {exc}",
                        "pylon doctor --json (and report it)",
                    )
                )
    return found


def _q(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _git_version() -> tuple[int, ...]:
    from pylon.workspace.merge.conflicts import git_version

    return git_version()


def versions() -> list[Finding]:
    import platform

    from pylon import __version__

    out = [
        Finding(
            "versions",
            "ok",
            f"pylon {__version__}, Python {platform.python_version()}, git {'.'.join(map(str, _git_version()))}",
        )
    ]
    try:
        from importlib.metadata import version

        installed = version("pylon-kit")
        if installed != __version__:
            out.append(
                Finding(
                    "package",
                    "problem",
                    f"the installed pylon-kit is {installed} but this pylon is "
                    f"{__version__} (a stale install or a checkout on sys.path).",
                    "pip install --force-reinstall pylon-kit",
                )
            )
    except Exception:  # running from a checkout without an install
        out.append(
            Finding(
                "package",
                "note",
                "pylon-kit is not installed as a package (run from a checkout).",
                "pip install pylon-kit",
            )
        )
    git = _git_version()
    if git < MIN_GIT:
        out.append(
            Finding(
                "git",
                "problem",
                f"git {'.'.join(map(str, git))} is older than 2.38: `ws apply`, `ws sync`, "
                "`ws finish`, `ws conflicts`, the overlaps of `ws list` and the board's conflicts need "
                "`git merge-tree --write-tree`"
                + (", and `ws finish --commit` `git hook run` (2.36)" if git < HOOK_GIT else "")
                + ".",
                "install git 2.38 or newer (https://git-scm.com/downloads)",
            )
        )
    import importlib.util

    for module, what in (
        ("tree_sitter_bash", "the guard's shell parser"),
        ("watchdog", ("`ws watch`, `canon watch`, the board's live updates")),
        ("mcp", "`pylon mcp`"),
    ):
        if importlib.util.find_spec(module) is None:
            out.append(
                Finding(
                    "package",
                    "problem",
                    f"{module} is missing: {what} cannot run.",
                    "pip install --force-reinstall pylon-kit",
                )
            )
    return out


def hooks(root: str | None, env: dict[str, str] | None = None) -> list[Finding]:
    from pylon.doctor import installs

    out: list[Finding] = []
    found = installs.find(root, env)
    for install in found:
        if install.problem:
            out.append(Finding("hooks", "problem", install.problem, f"fix or move {_q(install.path)}"))
            continue
        what = "the pylon plugin" if install.kind == "plugin" else "settings"
        out.append(
            Finding(
                "hooks",
                "ok",
                f"{install.client}: {what} ({install.scope}, {install.path}): {', '.join(install.events)}",
            )
        )
        if install.kind == "settings" and any(
            " guard hook " in f" {h.command} " or h.command.startswith("canon ") for h in install.handlers
        ):
            out.append(
                Finding(
                    "hooks",
                    "note",
                    f"{install.path} names an older form of pylon's hook (`pylon guard "
                    "hook` or `canon hook`); it still works.",
                    f"pylon hook install {install.client}" + (" --user" if install.scope == "user" else ""),
                )
            )
    grouped: dict[tuple[int, ...], list[str]] = {}
    for (_client, event), places in sorted(installs.twice(found).items()):
        grouped.setdefault(tuple(found.index(p) for p in places), []).append(event)
    for key, events in grouped.items():
        places = [found[i] for i in key]
        settings = [p for p in places if p.kind == "settings"]
        out.append(
            Finding(
                "hooks",
                "problem",
                f"{places[0].client}: pylon runs {len(places)} times on "
                f"{', '.join(events)}: "
                + " and ".join(p.where() for p in places)
                + " (two snapshots and two notes per destructive command). Keep one.",
                installs.remove_command(settings[0] if settings else places[-1]),
            )
        )
    for client in ("claude-code", "codex"):
        if not any(i.client == client for i in found):
            out.append(
                Finding(
                    "hooks",
                    "note",
                    f"{client}: no pylon hooks are installed (project or user, or the plugin).",
                    f"pylon hook install {client}",
                )
            )
    for install in found:
        if install.client == "codex" and not install.problem:
            bad = installs.untrusted(install, env)
            if bad:
                kinds = sorted({why for _, why in bad})
                out.append(
                    Finding(
                        "codex-trust",
                        "problem",
                        f"Codex will not run {len(bad)} of pylon's hooks in "
                        f"{install.where()} ({', '.join(kinds)}: "
                        + ", ".join(sorted({h.event for h, _ in bad}))
                        + "); it skips them without a word.",
                        "open `codex` in this project, type /hooks, review and trust pylon's hooks, then "
                        "start a new session",
                    )
                )
    if any(i.kind == "plugin" for i in found) and shutil.which("pylon") is None:
        out.append(
            Finding(
                "plugin",
                "problem",
                "the pylon plugin runs `pylon` from PATH, but no `pylon` is on this "
                "PATH: its hooks refuse every shell and file tool call (they fail closed).",
                "pip install pylon-kit (or put the folder of `pylon` on PATH)",
            )
        )
    return out


def ops(checkout: Checkout) -> list[Finding]:
    from pylon.workspace.ops import oplog

    op = oplog.interrupted(checkout)
    if op is None:
        return [Finding("ops", "ok", "no operation is interrupted")]
    return [
        Finding(
            "ops",
            "problem",
            f"`{op.title}` (op {op.seq}) was interrupted before it finished; pylon changes "
            "nothing else until it is settled.",
            "pylon ws undo   (or complete it: pylon ws undo --finish)",
        )
    ]


def git_locks(checkout: Checkout) -> list[Finding]:
    """git's lock files nobody has touched for a minute: a git command killed before it finished."""
    dirs = [checkout.common_dir]
    admin = os.path.join(checkout.common_dir, "worktrees")
    try:
        dirs += [os.path.join(admin, n) for n in os.listdir(admin)]
    except OSError:
        pass
    names = ("index.lock", "HEAD.lock", "config.lock", "packed-refs.lock", "shallow.lock", "ORIG_HEAD.lock")
    now = time.time()
    out = []
    for folder in dirs:
        for name in names:
            path = os.path.join(folder, name)
            try:
                age = now - os.lstat(path).st_mtime
            except OSError:
                continue
            if age > LOCK_AGE:
                out.append(
                    Finding(
                        "locks",
                        "problem",
                        f"{path} is {int(age)} s old: a git command was killed before "
                        "it finished and left it; git refuses to work here until it goes.",
                        f"rm {_q(path)}   (only when no git command is running in this repository)",
                    )
                )
    return out or [Finding("locks", "ok", "no git lock file left behind")]


def worktrees(checkout: Checkout) -> list[Finding]:
    from pylon.workspace.worktrees import owned

    info = owned.survey(checkout)
    out = []
    leftovers = [
        *(f"{w} (a `ws new` that was interrupted)" for w in info.pending),
        *(f"{w} (git lost it)" for w in info.stale),
        *(f"{o.id} (its folder is gone)" for o in info.owned.values() if not o.present),
    ]
    if leftovers:
        out.append(
            Finding(
                "worktrees",
                "problem",
                "owned worktrees half-made or vanished: " + ", ".join(leftovers) + ".",
                "pylon ws prune   (pylon ws prune --dry-run shows what it removes)",
            )
        )
    for item in info.foreign:
        if item.get("resolve"):
            out.append(
                Finding(
                    "worktrees", "problem", f"{item.get('id') or item['path']}: {item['why']}.", str(item["resolve"])
                )
            )
    if not out:
        out.append(Finding("worktrees", "ok", f"{len(info.owned)} owned worktree(s), every one proven"))
    return out


def watchers(checkout: Checkout) -> list[Finding]:
    """A `ws new --watch` watcher whose log says it ran and that holds no lock any more: it died."""
    from pylon.workspace.worktrees import owned
    from pylon.workspace.worktrees import watchers as watch

    out = []
    for found in owned.survey(checkout).owned.values():
        admin = owned.admin_dir_of(found.path) if found.present else None
        if admin is None or not os.path.exists(os.path.join(admin, "pylon", "watch.log")):
            continue
        if os.path.exists(watch.lock_path(admin)) and watch.holder(admin) is None:
            out.append(
                Finding(
                    "watchers",
                    "problem",
                    f"the watcher of {found.id} is not running any more (its log: "
                    f"{os.path.join(admin, 'pylon', 'watch.log')}); `ws list` scans it instead.",
                    f"cd {_q(found.path)} && nohup pylon ws watch >/dev/null 2>&1 &",
                )
            )
    return out


def kept(checkout: Checkout) -> list[Finding]:
    """What the states pylon keeps (ops, guard snapshots, baselines, trash) hold beyond every branch."""
    from pylon.workspace import git

    refs = git.run(["for-each-ref", "--format=%(refname)", "refs/pylon/"], cwd=checkout.root).decode().split()
    if not refs:
        return [Finding("kept", "ok", "pylon keeps no states in this repository")]
    kinds: dict[str, int] = {}
    for ref in refs:
        kinds[ref.split("/")[2]] = kinds.get(ref.split("/")[2], 0) + 1
    code, out, _ = git.run_full(
        ["rev-list", "--objects", "--disk-usage", "--glob=refs/pylon/*", "--not", "--branches", "--tags", "--remotes"],
        cwd=checkout.root,
    )
    size = int(out.decode().strip() or 0) if code == 0 else -1
    shown = f"{size / (1 << 20):.1f} MiB" if size >= 0 else "an unknown size"
    text = (
        f"pylon keeps {len(refs)} state ref(s) ("
        + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
        + f"), {shown} no branch holds"
    )
    status = "problem" if size > KEPT_TOO_MUCH else "note"
    return [Finding("kept", status, text + ".", "pylon ws gc --older-than 30d --dry-run   (then without --dry-run)")]


def writes(checkout: Checkout) -> list[Finding]:
    from pylon.workspace.worktrees.clash import conflict_mode

    mode, problem = conflict_mode(checkout.root)
    if problem:
        return [Finding("writes", "problem", problem, 'edit .pylon/worktrees.toml: [writes] on_conflict = "context"')]
    return [Finding("writes", "ok", f"a conflicting write is answered with: {mode}")]


def canon(checkout: Checkout) -> list[Finding]:
    if not os.path.isdir(os.path.join(checkout.root, ".canon")):
        return []
    from pylon.canon.lint import lint
    from pylon.canon.store import open_project

    report = lint(open_project(checkout.root))
    errors = [f for f in report.findings if getattr(f, "severity", "") == "error"]
    if errors:
        return [
            Finding(
                "canon",
                "problem",
                f"the canon store has {len(errors)} error(s) (of {len(report.findings)} "
                f"finding(s)) in {report.articles} article(s).",
                "canon lint   (canon lint --fix fixes the safe ones)",
            )
        ]
    return [
        Finding(
            "canon",
            "ok",
            f"the canon store lints clean: {report.articles} article(s), {len(report.findings)} warning(s)",
        )
    ]


def failed(found: list[Finding]) -> bool:
    return any(f["status"] == "problem" for f in found)
