"""Handlers of the root commands: `pylon guide`, `pylon help`, `pylon completion`."""

from __future__ import annotations

import os

from pylon.cli import output
from pylon.errors import UsageError

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.cli.spec import Command, Group

    class GuideArgs(Protocol):
        part: str | None
        json: bool

    class HelpArgs(Protocol):
        command: list[str]
        json: bool

    class CompletionArgs(Protocol):
        shell: str
        json: bool


GUIDE_PARTS = ("overview", "canon", "edits", "workspace", "guard")
SHELLS = ("bash", "zsh", "fish")


def guide(args: GuideArgs) -> int:
    if args.part is not None and args.part not in GUIDE_PARTS:
        raise UsageError(
            "usage", f"No guide part named {args.part!r}.", "pylon guide [overview|canon|edits|workspace|guard]"
        )
    folder = os.path.join(os.path.dirname(__file__), "guide")
    texts: dict[str, str] = {}
    for name in [args.part] if args.part else GUIDE_PARTS:
        with open(os.path.join(folder, f"{name}.md"), encoding="utf-8") as fh:
            texts[name] = fh.read().strip()
    if args.json:
        output.ok_json({"parts": texts})
    else:
        output.out("\n\n".join(texts.values()))
    return 0


def help_command(args: HelpArgs) -> int:
    from pylon.cli import commands as registry
    from pylon.cli.help import show_help

    words = args.command
    target = registry.lookup(" ".join(words)) if words else None
    if words and target is None:
        raise UsageError("usage", f"No such command: pylon {' '.join(words)}.", "pylon help (lists the commands)")
    if args.json:
        output.ok_json(declaration(target))
        return 0
    return show_help("pylon", target)


def completion(args: CompletionArgs) -> int:
    if args.shell not in SHELLS:
        raise UsageError(
            "usage",
            f"No completion for {args.shell!r}; pylon completes bash, zsh and fish.",
            'eval "$(pylon completion bash)"',
        )
    from pylon.cli.help import completion_script

    script = completion_script(args.shell)
    if args.json:
        output.ok_json({"shell": args.shell, "script": script})
    else:
        output.write(script)
    return 0


def declaration(target: Command | Group | None) -> dict[str, object]:
    """`pylon help [COMMAND]... --json`: the registry's declaration as data (no typer needed)."""
    from pylon.cli import commands as registry
    from pylon.cli.argv import usage_line
    from pylon.cli.spec import Command

    name = target.name if target is not None else ""
    doc: dict[str, object] = {"command": name, "usage": usage_line(target, "pylon").removeprefix("usage: ")}
    if target is None:
        doc.update(summary=registry.ROOT.summary, example=registry.ROOT.example)
    else:
        doc.update(summary=target.summary, example=target.example)
    if isinstance(target, Command):
        doc["description"] = target.description
        doc["arguments"] = [{"name": a.metavar, "count": a.count, "help": a.help} for a in target.args]
        doc["options"] = [
            {
                "name": o.name,
                "kind": o.kind,
                "metavar": o.metavar or None,
                "help": o.help,
                "default": o.default,
                "choices": list(o.choices) or None,
                "min": o.min,
                "max": o.max,
                "repeatable": o.repeat,
            }
            for o in target.opts
            if not o.hidden
        ]
    else:
        doc["commands"] = [{"name": c.name, "summary": c.summary} for c in registry.children(name)]
    return doc
