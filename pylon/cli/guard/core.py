"""Handlers of `pylon guard check|explain|hook|install|uninstall`."""

from __future__ import annotations

from pylon.cli import output
from pylon.cli.guard.hook import context

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from pylon.guard.verdict import Result

    class CheckArgs(Protocol):
        json: bool
        command: str | None
        tool_input: str | None
        words: list[str]

    class ExplainArgs(Protocol):
        json: bool

    class HookArgs(Protocol):
        agent: str

    from pylon.cli.guard.hook import InstallArgs


def _command_text(args: CheckArgs) -> str:
    from pylon.errors import UsageError

    given = [
        n for n, v in (("--command", args.command), ("--tool-input", args.tool_input), ("-- CMD", args.words)) if v
    ]
    if len(given) != 1:
        raise UsageError(
            "guard-no-command",
            "Give the command one way: --command STRING, --tool-input JSON or -- CMD..."
            + (f" (got {', '.join(given)})." if given else ""),
            "pylon guard check --command 'rm -rf build/'",
        )
    if args.command:
        return args.command
    if args.words:
        import shlex

        return shlex.join(args.words)
    import json

    try:
        doc = json.loads(args.tool_input or "")
    except ValueError as exc:
        raise UsageError(
            "guard-bad-tool-input",
            f"--tool-input is not JSON ({exc}).",
            'pylon guard check --tool-input \'{"command": "ls"}\'',
        ) from None
    if isinstance(doc, dict) and isinstance(doc.get("tool_input"), dict):
        doc = doc["tool_input"]  # a whole hook event
    if not isinstance(doc, dict) or not isinstance(doc.get("command"), str):
        raise UsageError(
            "guard-bad-tool-input",
            '--tool-input must be an object with a string "command" '
            "(the Bash tool's input), or a hook event holding one.",
            'pylon guard check --tool-input \'{"command": "ls"}\'',
        )
    return str(doc["command"])


def check(args: CheckArgs) -> int:
    from pylon.guard.judge.classify import classify
    from pylon.guard.policy import load

    text = _command_text(args)
    ctx = context()
    result = classify(text, ctx)
    policy = load(ctx.root)
    action, why = policy.decide(result.findings)
    if action == "snapshot" and ctx.root:
        action, why = _unless_unkeepable(result, policy, ctx.root, action, why)
    if args.json:
        output.ok_json({**result.to_dict(), "action": action, "policy": why, "root": ctx.root})
    else:
        from pylon.cli.guard.render import render_check

        output.out(render_check(result, action, why))
    return 0 if result.verdict == "safe" else 1


def _unless_unkeepable(result: Result, policy: Any, root: str, action: str, why: list[str]) -> tuple[str, list[str]]:
    """The hook's answer when what the command destroys cannot be kept (a nested repository, a
    FIFO, ignored data over the budget): found the way the hook finds it, writing nothing, so the
    answer printed is the one the hook gives. Otherwise `keep`: allowed, its state kept."""
    from pylon.hooks.note import unkeepable

    lost = unkeepable(root, list(result.targets), None)
    if lost:
        return "ask", [lost]
    return "keep", why


def explain(args: ExplainArgs) -> int:
    from pylon.guard.policy import load, policy_files

    ctx = context()
    policy = load(ctx.root)
    doc = {**policy.to_dict(), "searched": policy_files(ctx.root)}
    if args.json:
        output.ok_json(doc)
    else:
        from pylon.cli.guard.render import render_policy

        output.out(render_policy(policy, policy_files(ctx.root)))
    return 0


def hook(args: HookArgs) -> int:
    """`pylon guard hook AGENT`: the guard's part of `pylon hook AGENT` alone (older installs name it).
    Always exits 0; a failure of pylon itself is logged and answered as ask (Claude Code) or deny
    (Codex) with the reason, never with silence."""
    from pylon.cli.hook import run_hook

    return run_hook(args.agent, ("guard",), quiet=True)


def install(args: InstallArgs) -> int:
    from pylon.cli.guard.hook import install_hook

    return install_hook(args, remove=False)


def uninstall(args: InstallArgs) -> int:
    from pylon.cli.guard.hook import install_hook

    return install_hook(args, remove=True)


__all__ = ["Result", "check", "explain", "hook", "install", "uninstall"]
