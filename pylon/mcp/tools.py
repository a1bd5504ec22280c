"""The MCP tools of `pylon mcp`, generated from the command registry (pylon/cli/commands.py).

A command declared with `mcp=Tool(...)` is one tool, named after its words (`canon read` ->
`canon_read`). Its input schema comes from the same Arg/Opt declarations the parser reads:
positionals and options become properties (types, choices, bounds, defaults, help), required
positionals become `required`. `argv` turns a call's arguments back into the command line the
CLI would parse, so the parser checks them exactly as it checks a shell's.

Left out of every schema: `--json` (always on: the answer is the command's JSON document),
`--format` (JSON, through `--json`) and the provenance options the server fills itself.
Plain data and the registry only: no MCP SDK here.
"""

from __future__ import annotations

from typing import Any

from pylon.cli.spec import ANY, FLAG, FLOAT, INT, MANY, ONE, PAIR, REST, Arg, Command, Opt
from pylon.errors import PylonError

# Options no tool exposes: the answer is always the --json document; provenance is the server's.
HIDDEN = frozenset({"--json", "--format", "--harness", "--session"})
# Options the server fills on every command that declares them (docs/reference/agents.md, `pylon mcp`).
PROVENANCE = ("--harness", "--session")


def tool_name(command: Command) -> str:
    return command.name.replace(" ", "_")


def prop_name(opt: Opt) -> str:
    """An option's property: its name without dashes, `-` as `_` (`--body-file` -> `body_file`)."""
    return opt.name.lstrip("-").replace("-", "_")


def tool_commands() -> list[Command]:
    """The registry's commands offered as tools, in registry order."""
    from pylon.cli.commands import COMMANDS

    return [c for c in COMMANDS if c.mcp is not None]


def find(name: str) -> Command:
    for command in tool_commands():
        if tool_name(command) == name:
            return command
    names = ", ".join(tool_name(c) for c in tool_commands())
    raise PylonError("bad-tool-call", f"No tool is named {name!r}.", f"Call one of: {names} (tools/list).", exit_code=2)


def _described(text: str, metavar: str) -> str:
    return f"{text} ({metavar})" if metavar else text


def _arg_schema(arg: Arg) -> dict[str, Any]:
    many = arg.count in (MANY, ANY, REST)
    item: dict[str, Any] = {"type": "string"}
    if arg.choices:
        item["enum"] = list(arg.choices)
    if not many:
        schema = {**item, "description": _described(arg.help, arg.metavar)}
        if arg.default is not None:
            schema["default"] = arg.default
        return schema
    schema = {"type": "array", "items": item, "description": _described(arg.help, arg.metavar)}
    if arg.count == MANY:
        schema["minItems"] = 1
    return schema


def _opt_schema(opt: Opt) -> dict[str, Any]:
    item: dict[str, Any]
    if opt.kind == FLAG:
        item = {"type": "boolean"}
    elif opt.kind == PAIR:
        item = {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
    else:
        item = {"type": {INT: "integer", FLOAT: "number"}.get(opt.kind, "string")}
        if opt.min is not None:
            item["minimum"] = opt.min
        if opt.max is not None:
            item["maximum"] = opt.max
        if opt.choices:
            item["enum"] = list(opt.choices)
    schema: dict[str, Any] = {"type": "array", "items": item} if opt.repeat else dict(item)
    schema["description"] = _described(opt.help + (" Repeatable: a list." if opt.repeat else ""), opt.metavar)
    if opt.default is not None and opt.kind != FLAG and not opt.repeat:
        schema["default"] = opt.default
    return schema


def exposed(command: Command) -> list[Opt]:
    return [o for o in command.opts if o.name not in HIDDEN and not o.hidden]


def input_schema(command: Command) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments, from the command's declaration alone."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for arg in command.args:
        props[arg.dest] = _arg_schema(arg)
        if arg.count in (ONE, MANY):
            required.append(arg.dest)
    for opt in exposed(command):
        props[prop_name(opt)] = _opt_schema(opt)
    if command.mcp is not None and command.mcp.stdin:
        name, help_text = command.mcp.stdin
        props[name] = {"type": "string", "description": help_text}
    schema: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
    if required:
        schema["required"] = required
    return schema


def description(command: Command) -> str:
    text = command.summary
    if command.description:
        text += " " + command.description
    return f"{text} CLI: {command.name if command.name.startswith('canon') else 'pylon ' + command.name}."


def _bad(command: Command, message: str) -> PylonError:
    return PylonError(
        "bad-tool-call", message, f"See the input schema of {tool_name(command)} (tools/list).", exit_code=2
    )


def _check_type(command: Command, key: str, value: object, schema: dict[str, Any]) -> None:
    kind = schema["type"]
    ok = {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "array": isinstance(value, list),
    }[kind]
    if not ok:
        raise _bad(command, f"{key}: expected {'an' if kind[0] in 'aeiou' else 'a'} {kind}, got {_shown(value)}.")
    if isinstance(value, list):  # kind "array" (checked above)
        for item in value:
            _check_type(command, f"{key}[]", item, schema["items"])
        count, low = len(value), schema.get("minItems", 0)
        high = schema.get("maxItems", count)
        if not low <= count <= high:
            wanted = f"exactly {low}" if low == high else f"at least {low}"
            raise _bad(command, f"{key}: expected {wanted} item{'s' if low != 1 else ''}, got {count}.")


def _shown(value: object) -> str:
    """A short picture of a wrong value: named, never echoed whole (it may be megabytes, or nested
    deeper than repr can go)."""
    from reprlib import Repr

    shown = Repr()
    shown.maxlevel, shown.maxstring, shown.maxother = 3, 60, 60
    return shown.repr(value)


def _word(value: object) -> str:
    return str(value) if not isinstance(value, float) or not value.is_integer() else str(int(value))


def argv(command: Command, arguments: dict[str, Any], fill: dict[str, str]) -> tuple[list[str], str | None]:
    """The command line (after the program name) for a call, and the text for its stdin (or None).

    `fill`: values the server supplies for options the schema hides (`--harness`). JSON types are
    checked against the schema here; everything else (bounds, choices, combinations) is the parser's.
    """
    schema = input_schema(command)
    props = schema["properties"]
    unknown = sorted(set(arguments) - set(props))
    if unknown:
        raise _bad(command, f"Unknown argument{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}.")
    missing = [k for k in schema.get("required", ()) if k not in arguments]
    if missing:
        raise _bad(command, f"Missing required argument{'s' if len(missing) > 1 else ''}: {', '.join(missing)}.")
    for key, value in arguments.items():
        if value is not None:
            _check_type(command, key, value, props[key])
    line = command.name.split() + ["--json"]
    for opt in command.opts:
        if opt.name in fill and opt.name in PROVENANCE:
            line.append(f"{opt.name}={fill[opt.name]}")
            continue
        value = arguments.get(prop_name(opt))
        if opt.name in HIDDEN or value is None or value is False:
            continue
        for one in value if opt.repeat else [value]:
            if opt.kind == FLAG:
                line.append(opt.name)
            elif opt.kind == PAIR:
                line += [opt.name, *(_word(v) for v in one)]
            else:
                line.append(f"{opt.name}={_word(one)}")
    words: list[str] = []
    for arg in command.args:
        value = arguments.get(arg.dest)
        if value is not None:
            words += [_word(v) for v in value] if isinstance(value, list) else [_word(value)]
    if words:
        line += ["--", *words]
    stdin = arguments.get(command.mcp.stdin[0]) if command.mcp is not None and command.mcp.stdin else None
    return line, stdin if isinstance(stdin, str) else None
