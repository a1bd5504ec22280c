"""`canon surface` and `canon settle`: capsules an agent sees as it works, and the reminder after.

Surfacing stages the governing article of every path touched and prints one message listing
`<address> (updated D): <capsule>` for articles this session has not seen since its context was
last compacted or cleared (`session.forget_shown`). Two bounds keep it cheap for the agent's
context: a budget of capsule characters per such cycle (4000; past it, a pointer
line names the `canon read` to run instead) and a message cap (~2000 characters; the rest waits
for the next call and the message says how many). `.canon/config.toml` may change both:
`[surfacing] session_budget = 4000`, `message_chars = 2000`.

Paths marked changed arm the reminder and record the article file's digest: `settle` names every
article whose assets changed and whose file still has that digest (nothing changed it since,
whatever a command's text claimed), once, and clears the list.
"""

from __future__ import annotations

import os

from pylon.canon.agent import session as sessions
from pylon.errors import PylonError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from pylon.canon.store import Project

SESSION_BUDGET = 4000
MESSAGE_CHARS = 2000
PATHS_PER_ARTICLE = 20  # asset paths remembered per changed article (the reminder names a few)
HEADER = (
    "canon: articles governing the files just touched (each shown once until the context is compacted "
    "or cleared; `canon read ADDRESS` prints one in full):"
)


class Surfaced:
    """The outcome of one `surface` call."""

    __slots__ = ("session", "message", "shown", "pointers", "waiting", "armed", "ungoverned", "marked")

    def __init__(self, session: str) -> None:
        self.session, self.message = session, ""
        self.shown: list[str] = []  # addresses whose capsule this message shows
        self.pointers: list[str] = []  # addresses shown as a pointer line (budget spent, no capsule)
        self.waiting = 0  # staged addresses left for the next call
        self.armed: list[str] = []  # addresses now awaiting their update (changed paths)
        self.ungoverned: list[str] = []  # paths no article governs (project-relative)
        self.marked: list[str] = []  # article files read or written directly (seen / settled)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "message": self.message,
            "shown": self.shown,
            "pointers": self.pointers,
            "waiting": self.waiting,
            "armed": self.armed,
            "ungoverned": self.ungoverned,
            "marked": self.marked,
        }


class Settled:
    """The outcome of `settle`: the articles to update, each with the changed asset paths."""

    __slots__ = ("session", "items", "repeated", "message")

    def __init__(self, session: str, items: list[tuple[str, list[str]]], repeated: bool) -> None:
        self.session, self.items, self.repeated = session, items, repeated
        self.message = reminder(items) if items else ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "message": self.message,
            "repeated": self.repeated,
            "articles": [{"address": a, "paths": p} for a, p in self.items],
        }


def limits(project: Project) -> tuple[int, int]:
    """(session budget, message cap) from `.canon/config.toml` `[surfacing]`, else the defaults."""
    from pylon.canon.store import read_config

    table = read_config(project.store).get("surfacing")
    table = table if isinstance(table, dict) else {}
    budget, cap = table.get("session_budget", SESSION_BUDGET), table.get("message_chars", MESSAGE_CHARS)
    budget = budget if isinstance(budget, int) and not isinstance(budget, bool) and budget >= 0 else SESSION_BUDGET
    cap = cap if isinstance(cap, int) and not isinstance(cap, bool) and cap >= 200 else MESSAGE_CHARS
    return budget, cap


def _relative(project: Project, full: str) -> str | None:
    root = project.root_dir.rstrip(os.sep)
    if full == root:
        return ""
    return full[len(root) + 1 :] if full.startswith(root + os.sep) else None


def classify(project: Project, paths: Iterable[str]) -> list[tuple[str, str, str | None]]:
    """(path as given, kind, governing address) per path: kind "asset", "article" (a file under
    `.canon/articles/`) or "skip" (elsewhere in `.canon/`, in `.git/`, outside the project)."""
    from pylon.canon.address import resolve, to_address

    out: list[tuple[str, str, str | None]] = []
    for path in paths:
        full = os.path.normpath(os.path.join(project.cwd_dir, path))
        rel = _relative(project, full)
        if rel is not None and (
            rel.split(os.sep)[0] in (".git",)
            or (rel.startswith(".canon" + os.sep) and not rel.startswith(os.path.join(".canon", "articles", "")))
        ):
            out.append((path, "skip", None))
            continue
        try:
            address = to_address(full, project)
        except PylonError:  # outside the project and its mounts, or not an address at all
            out.append((path, "skip", None))
            continue
        if not address.path:
            out.append((path, "skip", None))
            continue
        kind = "article" if rel is not None and rel.startswith(os.path.join(".canon", "articles", "")) else "asset"
        if kind == "article":
            out.append((path, kind, str(address)))
            continue
        governing = resolve(address, project).governing
        out.append((path, kind, str(governing) if governing is not None else None))
    return out


def _article_file(project: Project, address: str) -> Any:
    from pylon.canon.address import split_mount

    mount = split_mount(address)
    store = project.store_for(mount[0]) if mount and mount[0] in project.mounts else project.store
    return store.article_file(mount[1] if mount and mount[0] in project.mounts else address)


def digest(project: Project, address: str) -> str:
    """The article file's content digest ("" when it is missing or unreadable): an article counts
    as updated when this changes, whatever wrote it (`canon write`, an editor, `git checkout`)."""
    import hashlib

    try:
        with open(_article_file(project, address), "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return ""


def _capsule(project: Project, address: str) -> tuple[str | None, str] | None:
    """(capsule or None, updated date or "") of an article; None when it is gone or unreadable."""
    from pylon.canon.article import load_text
    from pylon.canon.frontmatter import parse

    try:
        doc = parse(load_text(_article_file(project, address), address))
    except (PylonError, OSError):
        return None
    capsule = " ".join(doc.owned.get("capsule", "").split())
    return (capsule or None), doc.owned.get("updated", "")


def surface(
    project: Project, paths: Iterable[str], changed: Iterable[str] = (), session: str | None = None
) -> Surfaced:
    """Stage the governing articles of `paths` (and `changed`, which also arms the reminder) and
    build this call's message. All state changes happen under the session lock."""
    from pylon.canon.article import shell_quoted

    sid = session or sessions.current_session()
    changed_set = list(dict.fromkeys(changed))
    every = list(dict.fromkeys([*paths, *changed_set]))
    classified = classify(project, every)
    budget, cap = limits(project)
    result = Surfaced(sid)
    capsules: dict[str, tuple[str | None, str] | None] = {}

    def change(state: dict[str, Any]) -> None:
        for path, kind, address in classified:
            is_changed = path in changed_set
            if kind == "skip":
                continue
            if address is None:
                rel = _relative(project, os.path.normpath(os.path.join(project.cwd_dir, path)))
                result.ungoverned.append(rel if rel is not None else path)
                continue
            if kind == "article":  # the agent read or edited the article file itself
                state["shown"][address] = "written" if is_changed else state["shown"].get(address) or "read"
                if address in state["pending"]:
                    state["pending"].remove(address)
                result.marked.append(address)
                continue
            if is_changed:
                rel = _relative(project, os.path.normpath(os.path.join(project.cwd_dir, path))) or path
                listed = state["changed"].setdefault(address, [])
                if rel not in listed and len(listed) < PATHS_PER_ARTICLE:
                    listed.append(rel)
                if address not in result.armed:
                    result.armed.append(address)
                    # The article as it is now: only a change after this one settles the reminder.
                    state["baseline"][address] = digest(project, address)
            if address not in state["shown"] and address not in state["pending"]:
                state["pending"].append(address)
        lines = _take(project, state, budget, cap, capsules, result, shell_quoted)
        result.waiting = len(state["pending"])
        if lines:
            tail = (
                [
                    (
                        f"({result.waiting} more waiting: they follow with the next tool call, or now with "
                        "`canon surface`.)"
                    )
                ]
                if result.waiting
                else []
            )
            result.message = "\n".join([HEADER, *lines, *tail])

    sessions.update(project.root_dir, sid, change)
    return result


def _take(
    project: Project,
    state: dict[str, Any],
    budget: int,
    cap: int,
    capsules: dict[str, tuple[str | None, str] | None],
    result: Surfaced,
    quoted: Any,
) -> list[str]:
    lines: list[str] = []
    room = cap - len(HEADER) - 90  # the header and the waiting line fit in the cap too
    used = 0
    while state["pending"]:
        address = state["pending"][0]
        if address not in capsules:
            capsules[address] = _capsule(project, address)
        found = capsules[address]
        if found is None:  # the article is gone since it was staged
            state["pending"].pop(0)
            continue
        capsule, updated = found
        head = f"- {address} (updated {updated or 'unknown'}): "
        cost = 0
        if capsule and state["spent"] + len(capsule) <= budget:
            line, kind, cost = head + capsule, "capsule", len(capsule)
        elif capsule:
            line, kind = (
                (
                    f"{head}read it: canon read {quoted(address)} (this session's capsule budget of {budget} "
                    "characters is spent)"
                ),
                "pointer",
            )
        else:
            line, kind = f"{head}no capsule; read it: canon read {quoted(address)}", "pointer"
        if lines and used + len(line) + 1 > room:
            break
        if not lines and len(line) > room and kind == "capsule" and capsule:  # one huge capsule: cut it, point on
            suffix = f"... (cut; canon read {quoted(address)})"
            keep = max(room - len(head) - len(suffix), 40)
            line, cost = head + capsule[:keep] + suffix, keep
        lines.append(line)
        used += len(line) + 1
        state["pending"].pop(0)
        state["shown"][address] = kind
        state["spent"] += cost
        (result.shown if kind == "capsule" else result.pointers).append(address)
    return lines


def spending(project: Project, session: str | None = None) -> dict[str, int] | None:
    """`canon status`: capsule characters spent of the budget, articles shown, waiting and to
    settle, for this session in this project; None when the session has recorded nothing."""
    sid = session or sessions.current_session()
    if not os.path.exists(sessions.state_file(project.root_dir, sid)):
        return None
    state = sessions.load(project.root_dir, sid)
    return {
        "spent": int(state["spent"]),
        "budget": limits(project)[0],
        "shown": len(state["shown"]),
        "waiting": len(state["pending"]),
        "changed": len(state["changed"]),
    }


def settle(project: Project, session: str | None = None) -> Settled:
    """Name every article whose assets changed and whose file did not change since (its digest
    against the one recorded at the latest asset change; an article with no record is named);
    clear the list. `repeated` is True when exactly this set was named before in this session."""
    sid = session or sessions.current_session()

    def change(state: dict[str, Any]) -> tuple[list[tuple[str, list[str]]], bool]:
        base = state["baseline"]
        items = sorted(
            (address, list(paths))
            for address, paths in state["changed"].items()
            if address not in base or digest(project, address) == base[address]
        )
        state["changed"], state["baseline"] = {}, {}
        key = [address for address, _ in items]
        repeated = bool(key) and key in state["reminded"]
        if key and not repeated:
            state["reminded"].append(key)
        return items, repeated

    items, repeated = sessions.update(project.root_dir, sid, change)
    return Settled(sid, items, repeated)


def reminder(items: list[tuple[str, list[str]]]) -> str:
    from pylon.canon.article import shell_quoted

    lines = ["canon: you changed files these articles govern, and the articles were not updated since:"]
    for address, paths in items:
        shown = ", ".join(paths[:3]) + (f" (+{len(paths) - 3} more)" if len(paths) > 3 else "")
        lines.append(f"- {address}: {shown}")
    first = shell_quoted(items[0][0])
    lines.append(
        "For each one, `canon read ADDRESS`; if it no longer states the current truth, update it: "
        f'canon write {first} --capsule "..." --body-file FILE. If it still holds, leave it.'
    )
    return "\n".join(lines)
