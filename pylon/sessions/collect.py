"""Every session of the clients' own files in one shape, newest first (`pylon sessions`).

The transcripts are found in the clients' folders, each brought up to date through the cache
(cache.py), then grouped into sessions: a Claude Code session is its transcript and its subagents'
(`<session>/subagents/*.jsonl`), a Codex session one rollout. Usage is counted once per model
request across all files, the way ccusage counts it (so the two agree on the same files): a Claude
message by its id (and request id), keeping the copy not from a sidechain replay, else the larger;
a Codex token count by its time and numbers. Files are taken in the order of their paths.
"""

from __future__ import annotations

import os
import time

from pylon.sessions import calls as C
from pylon.sessions import claude, codex, phase, prices
from pylon.sessions.jsonl import epoch, iso

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.sessions.where import Place, Places


class Source:
    """One transcript file found: its client, path, the client folder it is under, its session."""

    __slots__ = ("client", "path", "home", "session", "st", "state")

    def __init__(self, client: str, path: str, home: str, session: str, st: os.stat_result) -> None:
        self.client, self.path, self.home, self.session, self.st = client, path, home, session, st
        self.state: dict[str, Any] = {}


def walk(folder: str, out: list[tuple[str, os.stat_result]]) -> None:
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                walk(entry.path, out)
            elif entry.name.endswith(".jsonl") and entry.is_file(follow_symlinks=False):
                out.append((entry.path, entry.stat(follow_symlinks=False)))
        except OSError:
            continue


def sources() -> list[Source]:
    """Every transcript of both clients, each client's in the order of their paths."""
    found: list[Source] = []
    claude_files: list[Source] = []
    for home in claude.config_dirs():
        projects = os.path.join(home, "projects")
        files: list[tuple[str, os.stat_result]] = []
        walk(projects, files)
        claude_files += [Source(claude.CLIENT, p, home, claude.session_of(p, projects), st) for p, st in files]
    found += sorted(claude_files, key=lambda s: s.path)
    home = codex.home()
    seen: set[str] = set()
    for sub in ("sessions", "archived_sessions"):  # an active rollout wins over its archived copy
        folder = os.path.join(home, sub)
        files = []
        walk(folder, files)
        for path, st in sorted(files):
            rel = os.path.relpath(path, folder)
            if rel not in seen:
                seen.add(rel)
                found.append(Source(codex.CLIENT, path, home, "", st))
    return found


def read(found: list[Source], keep: bool = True, prune: bool = True) -> None:
    """Bring every source's state up to date (through the cache unless `keep` is false); `prune`:
    drop the cache entries of transcripts that are gone (when `found` is every transcript)."""
    from pylon.sessions import cache
    from pylon.sessions.jsonl import decoder

    decode = decoder()
    entries = [cache.load(s.path) if keep else None for s in found]
    pending = list(range(len(found)))
    if keep and len(found) > 1:
        from pylon.sessions import parallel

        unread = [cache.unread(entry, s.st) for s, entry in zip(found, entries)]
        if sum(unread) >= parallel.WORTH and parallel.usable():

            def work(i: int) -> dict[str, Any]:
                s = found[i]
                return cache.read(s.client, s.path, s.session, s.st, decode, keep, entries[i])

            states = parallel.read_all(pending, unread, work)
            for i, state in enumerate(states):
                if state is not None:
                    found[i].state = state
            pending = [i for i, state in enumerate(states) if state is None]
    for i in pending:
        s = found[i]
        s.state = cache.read(s.client, s.path, s.session, s.st, decode, keep, entries[i])
    if keep and prune and found:
        from pylon.sessions import marks

        cache.prune({cache.entry_path(s.path) for s in found})
        marks.prune(time.time())


class Session:
    """One session: its transcripts' states and what was counted for it."""

    def __init__(self, client: str, session_id: str, home: str) -> None:
        self.client, self.id, self.home = client, session_id, home
        self.sources: list[Source] = []
        self.calls: list[list[Any]] = []
        self.tokens = {"input": 0, "cached_input": 0, "cache_creation": 0, "output": 0, "reasoning": 0, "total": 0}
        self.cost: float | None = 0.0
        self.models: dict[str, int] = {}
        self.unpriced: set[str] = set()
        self.place: Place | None = None
        self.phase = ""
        self.running: bool | None = None

    @property
    def main(self) -> dict[str, Any]:
        """The state of the session's own transcript (not a subagent's), else the first."""
        for source in self.sources:
            if f"{os.sep}subagents{os.sep}" not in source.path:
                return source.state
        return self.sources[0].state

    def first(self) -> float | None:
        times = [s.state["first"] for s in self.sources if s.state["first"] is not None]
        return epoch(min(times)) if times else None

    def last(self) -> float | None:
        times = [s.state["last"] for s in self.sources if s.state["last"] is not None]
        return epoch(max(times)) if times else None

    def price(self, rates: prices.Rates | None, model: str, dollars: float, tokens: int) -> None:
        self.models[model] = self.models.get(model, 0) + tokens
        if rates is None:
            if tokens:
                self.unpriced.add(model or "unknown")
            return
        if self.cost is not None:
            self.cost += dollars

    def to_doc(self) -> dict[str, Any]:
        count, tools, errors, retries = C.summary(self.calls)
        main = self.main
        place = self.place
        return {
            "client": self.client,
            "id": self.id,
            "worktree": place.id if place else None,
            "place": place.kind if place else None,
            "root": place.root if place else None,
            "cwd": main["cwd"],
            "phase": self.phase,
            "running": self.running,
            "started": iso(self.first()),
            "last_activity": iso(self.last()),
            "model": main["model"] or None,
            "models": [m for m, _ in sorted(self.models.items(), key=lambda kv: -kv[1]) if m],
            "tool_calls": count,
            "tools": dict(sorted(tools.items(), key=lambda kv: (-kv[1], kv[0]))),
            "errors": errors,
            "retries": retries,
            "tokens": dict(self.tokens),
            "cost": None if self.cost is None or self.unpriced else round(self.cost, 6),
            "unpriced_models": sorted(self.unpriced),
            "transcript": self.sources[0].path,
            "transcripts": len(self.sources),
            "skipped_lines": sum(s.state["bad"] + s.state["foreign"] for s in self.sources),
        }


def group(found: list[Source], rates: dict[str, prices.Rates]) -> list[Session]:
    """Sources into sessions, usage counted once per request, calls once per id."""
    out: dict[tuple[str, str, str], Session] = {}
    for source in found:
        state = source.state
        sid = source.session if source.client == claude.CLIENT else state["session"]
        key = (source.client, source.home, sid)
        if key not in out:
            out[key] = Session(source.client, sid, source.home)
        out[key].sources.append(source)
    sessions = list(out.values())
    _claude_usage([s for s in sessions if s.client == claude.CLIENT], rates)
    _codex_usage([s for s in sessions if s.client == codex.CLIENT], rates)
    seen: set[str] = set()
    for session in sessions:  # in the order of their first path
        orphans: dict[str, list[Any]] = {}
        for source in session.sources:
            orphans.update(source.state["orphans"])
        for source in session.sources:
            for call in source.state["calls"]:
                if call[C.ID] in seen:
                    continue
                seen.add(call[C.ID])
                if call[C.FAILED] is None and call[C.ID] in orphans:
                    call = list(call)
                    call[C.FAILED], call[C.OUT_BYTES] = orphans[call[C.ID]]
                session.calls.append(call)
        session.calls.sort(key=lambda c: c[C.TS] or "")
    return sessions


def _claude_usage(sessions: list[Session], rates: dict[str, prices.Rates]) -> None:
    U = claude
    kept: list[tuple[list[Any], Session]] = []
    exact: dict[tuple[str, str], int] = {}
    by_message: dict[str, list[int]] = {}
    pairs = sorted(
        ((src.path, rec, s) for s in sessions for src in s.sources for rec in src.state["usage"]), key=lambda t: t[0]
    )  # stable: each file's records stay in their order
    for _, rec, session in pairs:
        message = rec[U.U_MSG]
        if not message:
            kept.append((rec, session))
            continue
        where = exact.get((message, rec[U.U_REQ]))
        if where is None:
            where = next((i for i in by_message.get(message, ()) if rec[U.U_SIDE] or kept[i][0][U.U_SIDE]), None)
        if where is not None:
            if _replaces(rec, kept[where][0]):
                kept[where] = (rec, session)
                exact[(message, rec[U.U_REQ])] = where
            continue
        exact[(message, rec[U.U_REQ])] = len(kept)
        by_message.setdefault(message, []).append(len(kept))
        kept.append((rec, session))
    found: dict[str, prices.Rates | None] = {}
    for rec, session in kept:
        t = session.tokens
        given, written, hour, read, out = rec[U.U_IN], rec[U.U_CW], rec[U.U_CW1H], rec[U.U_CR], rec[U.U_OUT]
        t["input"] += given
        t["cache_creation"] += written
        t["cached_input"] += read
        t["output"] += out
        t["reasoning"] += rec[U.U_THINK]
        t["total"] += given + written + read + out
        model = rec[U.U_MODEL]
        if model == "<synthetic>":
            continue
        base = found[model] if model in found else found.setdefault(model, prices.find(rates, model))
        dollars = 0.0
        if base is not None:
            r = base.at(given + written + read)
            dollars = (
                given * r.input
                + (written - hour) * r.cache_write
                + hour * r.cache_write_1h
                + read * r.cache_read
                + out * r.output
            ) / 1e6
        session.price(base, model, dollars, given + written + read + out)


def _replaces(new: list[Any], old: list[Any]) -> bool:
    """Which copy of one message's usage counts: the one not from a sidechain replay, else the
    larger, else the one that says its speed."""
    U = claude
    if new[U.U_SIDE] != old[U.U_SIDE]:
        return bool(old[U.U_SIDE])
    a = new[U.U_IN] + new[U.U_CW] + new[U.U_CR] + new[U.U_OUT]
    b = old[U.U_IN] + old[U.U_CW] + old[U.U_CR] + old[U.U_OUT]
    if a != b:
        return a > b
    return bool(new[U.U_SPEED]) and not old[U.U_SPEED]


def _codex_usage(sessions: list[Session], rates: dict[str, prices.Rates]) -> None:
    U = codex
    seen: set[tuple[Any, ...]] = set()
    found: dict[str, prices.Rates | None] = {}
    for session in sessions:
        for source in session.sources:
            for rec in codex.settled_usage(source.state):
                key = (rec[U.U_STAMP], rec[U.U_MODEL], *rec[U.U_IN : U.U_TOTAL + 1])
                if key in seen:  # a fork's copy of its parent's history
                    continue
                seen.add(key)
                t = session.tokens
                t["input"] += rec[U.U_IN] - rec[U.U_CACHED]  # Codex counts cached input inside input
                t["cached_input"] += rec[U.U_CACHED]
                t["cache_creation"] += rec[U.U_CW]
                t["output"] += rec[U.U_OUT]
                t["reasoning"] += rec[U.U_REASON]
                t["total"] += rec[U.U_TOTAL]
                model = rec[U.U_MODEL]
                base = found[model] if model in found else found.setdefault(model, prices.find(rates, model))
                dollars = 0.0
                if base is not None:
                    r = base.at(rec[U.U_IN])
                    dollars = (
                        (rec[U.U_IN] - rec[U.U_CACHED]) * r.input
                        + rec[U.U_CACHED] * r.cache_read
                        + rec[U.U_CW] * r.cache_write
                        + rec[U.U_OUT] * r.output
                    ) / 1e6
                session.price(base, model, dollars, rec[U.U_TOTAL])


def settle(sessions: list[Session], now: float | None = None) -> None:
    """Each session's phase, from the clients' records of running sessions and pylon's marks."""
    from pylon.sessions import live, marks

    now = time.time() if now is None else now
    claude_live: dict[str, dict[str, str] | None] = {}
    codex_live: dict[str, set[str] | None] = {}
    for session in sessions:
        main = session.main
        status = None
        if session.client == claude.CLIENT:
            if session.home not in claude_live:
                claude_live[session.home] = live.claude_running(session.home)
            found = claude_live[session.home]
            running = None if found is None else session.id in found
            status = found.get(session.id) if found else None
        else:
            if session.home not in codex_live:
                codex_live[session.home] = live.codex_running(session.home)
            held = codex_live[session.home]
            running = None if held is None else session.id in held
        mark = marks.read(session.client, session.id)
        session.running = running
        session.phase = phase.decide(
            main["turn"][0],
            session.last(),
            running,
            status,
            mark,
            phase.interactive(session.client, main["entry"]),
            now,
        )


def collect(
    places: Places | None, *, within: bool = True, keep: bool = True, now: float | None = None
) -> list[Session]:
    """Every session, newest first, each placed in one of `places` where its working folder lies;
    `within`: only those (with `places` None: every session)."""
    found = sources()
    read(found, keep)
    sessions = group(found, prices.table())
    if places is not None:
        for session in sessions:
            session.place = places.of(session.main["cwd"])
        if within:
            sessions = [s for s in sessions if s.place is not None]
    settle(sessions, now)
    sessions.sort(key=lambda s: s.last() or 0.0, reverse=True)
    return sessions


def document(sessions: list[Session], places: Places | None) -> dict[str, Any]:
    """`pylon sessions --json`: the sessions and where they were read from."""
    docs = [s.to_doc() for s in sessions]
    return {
        "repository": places.main_root if places is not None else None,
        "claude_config": claude.config_dirs(),
        "codex_home": codex.home(),
        "total": len(docs),
        "sessions": docs,
        "skipped_lines": sum(d["skipped_lines"] for d in docs),
    }
