"""Text and JSON of the agent-facing canon commands (surface, settle, hook install, watch)."""

from __future__ import annotations

from pylon.cli import output

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any


def tool_input_paths(text: str, cwd: str) -> tuple[list[str], list[str]]:
    """(paths named, paths changed) in a tool call's JSON input, as `--tool-input` gives it.

    Accepts the tool input object itself, or a whole hook event (then its calls are used)."""
    import json

    from pylon.errors import UsageError

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(
            "bad-tool-input",
            f"--tool-input is not JSON ({exc}).",
            'canon surface --tool-input \'{"file_path": "src/app.py"}\'',
        ) from None
    from pylon.agents.events import HookEvent, ToolCall
    from pylon.canon.agent.toolpaths import call_paths

    calls = HookEvent("", data).calls if isinstance(data, dict) and "tool_input" in data else []
    if not calls:
        calls = [ToolCall("", data if isinstance(data, dict) else {"value": data})]
    named: list[str] = []
    changed: list[str] = []
    for call in calls:
        got, wrote = call_paths(call, cwd)
        named += [p for p in got if p not in named]
        changed += [p for p in wrote if p not in changed]
    return named, changed


def _message(result: Any, json_: bool) -> bool:
    """The JSON document, or the message text; True when the caller still has text to add."""
    if json_:
        output.ok_json(result.to_dict())
        return False
    if result.message:
        output.out(result.message)
    return True


def surfaced(result: Any, json_: bool) -> None:
    if _message(result, json_) and result.armed:
        output.err(f"note: the reminder is armed for {', '.join(result.armed)} (canon settle names it).")


def settled(result: Any, json_: bool) -> None:
    if _message(result, json_) and not result.message:
        output.err("note: no article waits for an update in this session.")


def installed(
    plan: Any, scope: str, agent: str, dry_run: bool, install: bool, json_: bool, warnings: list[str] | None = None
) -> None:
    from pylon.agents.settings import apply

    wrote = False if dry_run else apply(plan)
    if json_:
        output.ok_json(
            {
                "agent": agent,
                "scope": scope,
                "path": plan.path,
                "changed": plan.changed,
                "written": wrote,
                "dry_run": dry_run,
                "added": plan.added,
                "removed": plan.removed,
                "diff": plan.diff(),
                **({"warnings": warnings} if warnings is not None else {}),
            }
        )
        return
    for line in warnings or []:
        output.err(f"warning: {line}")
    if dry_run:
        output.write(plan.diff())
        output.err(
            f"note: --dry-run: {plan.path} was not written." if plan.changed else f"note: {plan.path} needs no change."
        )
        return
    verb = "Installed" if install else "Removed"
    if wrote:
        output.out(f"{verb} canon's {agent} hooks in {plan.path}.")
        if install and agent == "codex":
            from pylon.hooks.install import CODEX_NOTE

            output.err(f"note: {CODEX_NOTE}")
    elif install:
        output.out(f"canon's {agent} hooks are already installed in {plan.path}; nothing was written.")
    else:
        output.out(f"{plan.path} holds no canon {agent} hook; nothing was written.")


def watch(findings: Iterator[Any], project: Any, json_: bool) -> int:
    """Print findings as they arrive: text lines like `canon lint`, or one JSON object a line."""
    if json_:
        output.start_stream()
    for item in findings:
        if json_:
            output.event_json(str(item.pop("event")), item)
        elif item.get("event") == "ready":
            output.err(f"watching {item['store']} (Ctrl-C stops)")
        elif item.get("event") == "clean":
            output.out(f"{item['file']}: clean")
        elif item.get("event") == "finding":
            output.out(f"{item['file']}:{item['line']}: {item['severity']}[{item['rule']}] {item['message']}")
        elif item.get("event") == "removed":
            output.out(f"{item['file']}: removed")
    return 0
