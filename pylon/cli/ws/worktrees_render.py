"""Text of the owned-worktree commands (`ws new|list|rm|prune|conflicts`): plain data in, text out."""

from __future__ import annotations

from pylon.cli.ws.render import show_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def new_summary(result: dict[str, Any]) -> str:
    start = (
        "the current state (baseline " + str(result["baseline"])[:12] + ")"
        if result["dirty"]
        else ("commit " + str(result["baseline"])[:12])
    )
    copied = result["copied"]
    line = f"pylon: created worktree {result['id']} on {result['branch']} from {start}"
    if copied["files"]:
        line += f"; copied {copied['files']} ignored file(s), {copied['bytes']} bytes ({copied['reflinked']} reflinked)"
    watcher = result.get("watcher")
    if watcher:
        line += f"; watching it in the background (pid {watcher['pid']}; `pylon ws rm {result['id']}` stops it)"
    return line


def worktree_table(result: dict[str, Any]) -> str:
    rows, others = result["worktrees"], result.get("others") or []
    if not rows and not others:
        return "no owned worktrees (`pylon ws new` creates one)\n"
    header = ("ID", "DIRTY", "COMMITS", "BEHIND", "LAST CHANGE", "OVERLAPS", "PATH")
    table: list[tuple[str, ...]] = [header]
    for r in rows:
        table.append(
            (r["id"] + _maker(r.get("made_by")), *_cells(r, r["commits_since_baseline"], r["behind_checkout"]))
        )
    for r in others:  # not pylon's: read, never changed (their commits count from where they forked)
        table.append((f"- ({_client(r['made_by'])}, not pylon's)", *_cells(r, r["commits_since_base"], "-")))
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    return "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1] + "\n" for row in table)


def _cells(r: dict[str, Any], commits: object, behind: object) -> tuple[str, ...]:
    d = r["dirty"]
    overlaps = "?" if r["overlaps"] is None else (",".join(r["overlaps"]) or "-")
    return (
        f"{d['tracked']}M {d['untracked']}?",
        str(commits),
        str(behind),
        r["last_change"],
        overlaps,
        show_path(r["path"]),
    )


def _client(made_by: dict[str, Any]) -> str:
    return {"claude-code": "Claude Code", "codex": "Codex", "git": "git worktree add"}.get(
        made_by["client"], str(made_by["client"])
    )


def _maker(made_by: dict[str, Any] | None) -> str:
    """` (claude-code subagent)` after the id of an owned worktree an agent client asked for."""
    return f" ({made_by.get('client')} {made_by.get('purpose')})" if made_by else ""


def rm_summary(result: dict[str, Any]) -> str:
    kept = f"; branch {result['branch']} kept" if result["branch_kept"] else ""
    held = result.get("held") or {}
    why = ""
    if held.get("kind") == "applied":
        why = (
            f"; everything it held is in this checkout (applied in op {held['op']}, unchanged since), "
            f"so no --force was needed (`pylon ws undo` brings it back, op {result['op']})"
        )
    elif held.get("kind") == "merged":
        why = "; its commits are all on other branches"
    return f"removed worktree {result['id']} ({show_path(result['path'])}){kept}{why}\n"


def restore_note(result: dict[str, Any]) -> str:
    lines = [
        f"pylon: snapshot of {result['id']} kept under {result['trash']}/ (state, branch, baseline).",
        "pylon: `pylon ws undo` brings the worktree back exactly; by hand, these git commands do:",
    ]
    lines += [f"  {cmd}" for cmd in result["restore"]]
    return "\n".join(lines)


def prune_lines(result: dict[str, Any]) -> str:
    verb = "would " if result["dry_run"] else ""
    lines = []
    for action in result["actions"]:
        lines.append(f"{action['id']} ({action['kind']}):")
        lines += [f"  {verb}{step}" for step in action["done"]]
        lines += [f"  kept {item}" for item in action["kept"]]
    if not lines:
        lines.append("nothing to prune")
    if result["foreign"]:
        lines.append(f"{result['foreign']} foreign worktree(s) or folder(s) left alone")
    for item in result.get("unresolved") or []:
        name = item["id"] or show_path(item["path"])
        lines.append(
            f"left alone: {name}: {item['why']}" + (f"\n  resolve: {item['resolve']}" if item["resolve"] else "")
        )
    return "\n".join(lines) + "\n"


def _who(value: str | None) -> str:
    return value if value is not None else "(checkout)"


def conflict_report(result: dict[str, Any]) -> str:
    lines = []
    for pair in result["pairs"]:
        if not pair["conflicts"]:
            continue
        lines.append(f"conflict: {pair['a']} <-> {_who(pair['b'])}: {len(pair['conflicts'])} path(s)")
        for c in pair["conflicts"]:
            kinds = ", ".join(sorted(set(c["types"]))) or "CONFLICT"
            sides = c.get("sides") or []
            said = "  " + ", ".join(f"{s['side']}: {s['has']}" for s in sides) if sides and not c["hunks"] else ""
            lines.append(f"  {show_path(c['path'])}  [{kinds}]{said}")
            if c.get("binary"):
                lines.append("    (binary file)")
            for hunk in c["hunks"]:
                lines.append(f"    at line {hunk['line']} ({hunk['length']} lines):")
                lines += [f"      {text}" for text in hunk["lines"]]
    for pair in result["pairs"]:
        if pair["touching"]:
            shown = ", ".join(show_path(p) for p in pair["touching"][:10])
            more = f" (+{len(pair['touching']) - 10} more)" if len(pair["touching"]) > 10 else ""
            lines.append(f"touching: {pair['a']} <-> {_who(pair['b'])}: {shown}{more}")
    if not lines:
        n, m = len(result["worktrees"]), len(result.get("others") or [])
        more = f", {m} worktree(s) pylon did not make" if m else ""
        lines.append(
            f"no conflicts among {n} owned worktree(s){more} and the checkout" if n or m else "no owned worktrees"
        )
    return "\n".join(lines) + "\n"


def _lines(spans: list[list[int]]) -> str:
    if not spans:
        return "?"
    text = ", ".join(f"{a}" if n == 1 else f"{a}-{a + n - 1}" if n else f"after {a - 1}" for a, n in spans[:6])
    return text + (f" (+{len(spans) - 6} more)" if len(spans) > 6 else "")


def check_report(result: dict[str, Any]) -> str:
    """`ws check`: one line per other worktree that changed a path, the conflicts first."""
    if not result["findings"]:
        n = len(result["paths"])
        which = "it" if n == 1 else f"these {n} files"
        return f"no other worktree changed {which} since the base it shares with this one\n"
    lines = []
    for f in sorted(result["findings"], key=lambda f: (not f["conflict"], f["path"])):
        other = f"{f['other']['label']} ({show_path(f['other']['path'])})"
        what = (
            "deleted it"
            if f["deleted"]
            else "changed it (binary or large)"
            if f["binary"]
            else f"changed line(s) {_lines(f['lines'])}"
        )
        if f["conflict"]:
            verdict = f"CONFLICT: this checkout's version changes line(s) {_lines(f['ours'])} too"
        elif f["conflict"] is None:
            verdict = "could not tell whether it merges"
        else:
            verdict = "merges cleanly"
        lines.append(f"{show_path(f['path'])}: {other} {what} since {f['base'][:12]}; {verdict}")
    return "\n".join(lines) + "\n"
