"""Rendering for the `canon` commands: text for people and agents, one JSON document with --json."""

from __future__ import annotations

import os
import sys

from pylon.cli import output
from pylon.errors import PylonError, UsageError

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings anyway
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


def text_input(value: str | None, body_file: str | None, name: str) -> str | None:
    """The text given inline or by `--body-file FILE|-`; a blank inline value yields to the file."""
    if body_file is None or body_file == "":
        return value
    if value is not None and value.strip():
        raise UsageError("usage", f"Give {name} or --body-file, not both.", f"Pass only one of {name} and --body-file.")
    from pylon.canon.safeio import ARTICLE_MAX  # what `canon read` accepts, so a write never makes more
    from pylon.inputs import read_input

    raw = read_input(
        body_file,
        ARTICLE_MAX,
        option="--body-file",
        what="text of an article or entry",
        hint="Pass a regular file of UTF-8 text (at most 8 MiB), or - for stdin.",
    )
    where = "stdin" if body_file == "-" else body_file
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PylonError(
            "not-utf8",
            f"--body-file {where} is not valid UTF-8 (bad byte at offset {exc.start}).",
            "Convert it to UTF-8 first.",
        ) from None


def _advice_line(kind: str, rule: str, message: str) -> None:
    label = output.paint(f"{kind}[{rule}]:", "yellow bold" if kind == "warning" else "cyan", sys.stderr)
    output.err(f"{label} {message}")


def _created_store(paths: list[str]) -> None:
    """The store a first write created, on stderr: the same paths `canon init` prints."""
    if paths:
        output.err("created " + ", ".join(paths))


def _advice_json(items: Iterable[Any]) -> list[dict[str, Any]]:
    return [{"rule": a.rule, "severity": a.severity, "message": a.message, "line": a.line} for a in items]


def init(result: Any, json_: bool) -> None:
    if json_:
        output.ok_json({"store": str(result.store), "created": result.created, "ignored": result.ignored})
        return
    if result.created:
        output.out("\n".join(f"created {path}" for path in result.created))
    elif not result.ignored:
        output.out(f"{result.store} already exists; nothing to create.")
    if result.ignored:
        output.out("updated .canon/.gitignore: added " + ", ".join(result.ignored))


def read(view: Any, given: str, json_: bool) -> None:
    doc = view.doc
    if json_:
        output.ok_json(
            {
                "address": str(view.address),
                "requested": str(view.requested),
                "path": view.file,  # a string already: pathlib stays off the read path
                "capsule": doc.owned.get("capsule"),
                "updated": doc.owned.get("updated"),
                "scope": doc.owned.get("scope"),
                "body": doc.body,
                "journal": view.journal,
                "journal_total": view.journal_total,
                "notes": view.notes,
            }
        )
        return
    head = str(view.address)
    if view.requested != view.address:
        head = f"{view.address} governs {given.strip()}"
    lines = [output.paint(head, "bold")]
    for key in ("capsule", "updated", "scope"):
        if doc.owned.get(key):
            lines.append(f"{key}: {doc.owned[key]}")
    body = doc.body.strip("\r\n")
    if body:
        lines += ["", body]
    if view.journal:
        more = view.journal_total - len(view.journal)
        tail = f" (+{more} earlier)" if more > 0 else ""
        lines += ["", "journal: " + ", ".join(view.journal) + tail]
    output.out("\n".join(lines))
    for note in view.notes:
        output.err(output.paint("note:", "cyan", sys.stderr) + " " + note)


def write(result: Any, advice: list[Any] | None, json_: bool) -> None:
    """The write's outcome; in JSON mode with its advice (text mode prints advice separately,
    after the write is reported, since computing it runs lint)."""
    if json_:
        output.ok_json(
            {
                "address": str(result.address),
                "path": str(result.path),
                "created": result.created,
                "changed": result.changed,
                "updated": result.updated,
                "stripped_front_matter": result.stripped_front_matter,
                "created_store": result.created_store,
                "advice": _advice_json(advice or []),
            }
        )
        return
    if not result.changed:
        output.out(f"{result.address} is already current; nothing was written.")
        return
    _created_store(result.created_store)
    output.out(f"Wrote {result.address}.")
    if result.stripped_front_matter:
        output.err("note: removed a pasted front-matter block from the start of the body.")


def write_advice(advice: list[Any]) -> None:
    for item in advice:
        _advice_line("warning" if item.severity in ("warning", "error") else "note", item.rule, item.message)


def journal(result: Any, json_: bool) -> None:
    if json_:
        output.ok_json(
            {
                "name": result.name,
                "path": str(result.path),
                "subjects": result.subjects,
                "logged": result.logged,
                "created_store": result.created_store,
                "advice": _advice_json(result.advice),
                **result.provenance,
            }
        )
        return
    _created_store(result.created_store)
    output.out(f"Logged {result.name}.")
    for item in result.advice:
        _advice_line("warning", item.rule, item.message)


# An agent's `canon map` (a confined entry point: pylon mcp) answers at most this many characters
# of articles, like `pylon read`'s 50 KiB a call; each capsule at most text.CAPSULE_MAX of them.
MAP_ANSWER_MAX = 50_000


def catalog(entries: Iterable[Any], json_: bool, prefix: str | None = None, bounded: bool = False) -> None:
    rows = list(entries)
    if json_:
        listed = [{"address": str(e.address), "capsule": e.capsule, "problem": e.problem} for e in rows]
        doc: dict[str, object] = {"articles": listed, "count": len(rows)}
        if bounded:
            doc.update(_bounded(listed, prefix))
        output.ok_json(doc)
        return
    if not rows:
        if prefix is not None:
            from shlex import quote

            output.err(
                f"note: no articles under {prefix} (canon map lists every article; create one: "
                f'canon write {quote(prefix)} --capsule "..." --body "...").'
            )
        else:
            output.err('note: no articles here (create one: canon write ADDRESS --capsule "..." --body "...").')
        return
    output.out("\n".join(f"{e.address}: {e.capsule}" if e.capsule else str(e.address) for e in rows))
    for e in rows:
        if e.problem:
            output.warn(f"{e.address}: {e.problem}")


def _fit(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The leading rows that fit MAP_ANSWER_MAX characters (at least one), capsules cut at CAPSULE_MAX."""
    from pylon.canon.text import CAPSULE_MAX

    shown: list[dict[str, Any]] = []
    size = 0
    for row in rows:
        capsule = row["capsule"]
        if capsule and len(capsule) > CAPSULE_MAX:
            row = {**row, "capsule": capsule[:CAPSULE_MAX] + "...", "capsule_cut": len(capsule)}
        size += sum(len(value) for value in row.values() if isinstance(value, str)) + 40
        if size > MAP_ANSWER_MAX and shown:
            break
        shown.append(row)
    return shown


def _bounded(listed: list[dict[str, Any]], prefix: str | None) -> dict[str, object]:
    """The articles that fit MAP_ANSWER_MAX (capsules cut at CAPSULE_MAX), and what was left out."""
    shown = _fit(listed)
    if len(shown) == len(listed):
        return {"articles": shown}
    where = f"a longer prefix than {prefix!r}" if prefix else "a prefix (an address or folder)"
    return {
        "articles": shown,
        "shown": len(shown),
        "truncated": True,
        "hint": f"{len(listed) - len(shown)} more articles: call canon_map with {where} to list fewer.",
    }


def search(result: Any, json_: bool, bounded: bool = False) -> None:
    if json_:
        rows = [
            {"kind": h.kind, "address": h.address, "capsule": h.capsule, "score": h.score, "snippet": h.snippet}
            for h in result.hits
        ]
        doc: dict[str, object] = {
            "query": result.query,
            "terms": result.terms,
            "results": rows,
            "total": result.total,
            "more": result.more,
            "journal_matches": result.journal_matches,
        }
        shown = _fit(rows) if bounded else rows  # an agent's answer is bounded like canon_map's
        if len(shown) < len(rows):
            doc.update(
                results=shown,
                more=result.more + len(rows) - len(shown),
                truncated=True,
                hint=f"{len(rows) - len(shown)} more results: call canon_search with more words or a lower limit.",
            )
        output.ok_json(doc)
        return
    if not result.hits:
        if result.journal_matches:
            from shlex import quote

            output.err(
                f"note: no article matched {result.query!r}, but {result.journal_matches} journal "
                f"entr{'y' if result.journal_matches == 1 else 'ies'} did: canon search {quote(result.query)} --journal"
            )
            return
        output.err(f"note: nothing matched {result.query!r}.")
        return
    lines = []
    for h in result.hits:
        text = h.capsule or h.snippet
        lines.append(f"{h.address}: {text}" if text else h.address)
    output.out("\n".join(lines))
    if result.more:
        output.err(f"note: {result.more} more matched; show them with --limit {result.total}.")


def resolutions(rows: list[tuple[str, Any]], explain: bool, json_: bool) -> None:
    if json_:
        output.ok_json(
            {
                "results": [
                    {
                        "path": path,
                        "address": str(res.requested),
                        "governing": str(res.governing) if res.governing else None,
                        "tried": [str(a) for a in res.tried],
                    }
                    for path, res in rows
                ]
            }
        )
        return
    lines = []
    for path, res in rows:
        lines.append(f"{path}\t{res.governing if res.governing else '-'}")
        if explain:
            if not res.tried:
                lines.append(f"  {str(res.requested) or '(empty address)'}: the project root governs nothing")
            for tried in res.tried:
                verdict = "governs" if tried == res.governing else "no article"
                lines.append(f"  tried {tried}: {verdict}")
    output.out("\n".join(lines))


def _rel(path: Any) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def status(st: Any, json_: bool) -> None:
    if json_:
        output.ok_json(
            {
                "root": str(st.root),
                "store": str(st.store.canon),
                "exists": st.store.exists,
                "articles": st.store.articles,
                "journal": st.journal,
                "mounts": [
                    {
                        "name": m.name,
                        "root": str(m.root),
                        "store": str(m.canon),
                        "exists": m.exists,
                        "articles": m.articles,
                    }
                    for m in st.mounts
                ],
                "session": st.session,
                "surfacing": st.surfacing,
            }
        )
        return
    store = str(st.store.canon) + ("" if st.store.exists else " (not created yet: canon init)")
    lines = [f"store: {store}", f"articles: {st.store.articles}", f"journal: {st.journal} entries"]
    if st.mounts:
        for m in st.mounts:
            state = "" if m.exists else " (no .canon/ yet)"
            lines.append(f"mount {m.name}: {m.root} ({m.articles} articles){state}")
    else:
        lines.append("mounts: none")
    spent = st.surfacing
    if spent:
        used, budget = spent.get("spent", 0), spent.get("budget", 0)
        lines.append(f"session {st.session}: surfacing spent {used} of {budget} capsule characters")
    else:
        lines.append(f"session {st.session}: surfacing has shown nothing yet")
    output.out("\n".join(lines))
