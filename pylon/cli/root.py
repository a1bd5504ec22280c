"""Handlers of the root commands: `pylon guide`, `pylon help`, `pylon completion`."""

from __future__ import annotations

import os

from pylon.cli import output
from pylon.errors import UsageError

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    class GuideArgs(Protocol):
        part: str | None
        json: bool

    class HelpArgs(Protocol):
        command: list[str]

    class CompletionArgs(Protocol):
        shell: str

GUIDE_PARTS = ("overview", "canon", "edits", "workspace", "guard")
SHELLS = ("bash", "zsh", "fish")


def guide(args: GuideArgs) -> int:
    if args.part is not None and args.part not in GUIDE_PARTS:
        raise UsageError("usage", f"No guide part named {args.part!r}.", "pylon guide [overview|canon|edits|workspace|guard]")
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
    return show_help("pylon", target)


def completion(args: CompletionArgs) -> int:
    if args.shell not in SHELLS:
        raise UsageError("usage", f"No completion for {args.shell!r}; pylon completes bash, zsh and fish.",
                         'eval "$(pylon completion bash)"')
    from pylon.cli.help import completion_script

    output.write(completion_script(args.shell))
    return 0
