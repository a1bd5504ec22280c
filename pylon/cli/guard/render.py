"""Text of `pylon guard check` and `pylon guard explain`."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.policy import Policy
    from pylon.guard.verdict import Result


def render_check(result: Result, action: str, why: list[str]) -> str:
    from pylon.cli import output

    style = {"safe": "green", "reversible": "yellow", "irreversible": "red", "unknown": "magenta"}[result.verdict]
    first = result.command.strip().splitlines()[0] if result.command.strip() else ""
    lines = [f"{output.paint(result.verdict, style)}: {first[:200]}"]
    shown = [f for f in result.findings if f.verdict != "safe"] or result.findings
    for f in shown:
        where = f" (line {f.line})" if f.line > 1 else ""
        lines.append(f"  {f.verdict}: {f.reason}{where}")
    targets = result.targets
    if targets and result.verdict == "reversible" and action in ("keep", "snapshot"):
        names = [kept(t.kind, t.path, t.args) for t in targets]
        lines.append("  it destroys: " + ", ".join(names))
    if action == "keep":
        lines.append(
            "  hook answer: keep (allowed: the state before it is kept, and `pylon ws undo` right after reverses it)"
        )
    elif result.verdict != "safe":
        lines.append(f"  hook answer: {action}" + (f" ({'; '.join(why)})" if why else ""))
    return "\n".join(lines) + "\n"


def kept(kind: str, path: str, args: tuple[str, ...]) -> str:
    """What a snapshot keeps for one target, in words (the kinds of pylon.guard.verdict)."""
    where = path or "."
    if kind == "path":
        return where
    if kind == "checkout":
        return "every uncommitted change of tracked files (and the staged index)"
    if kind == "tracked":
        return f"the uncommitted changes of tracked files in {where}"
    if kind == "find":
        whole = args[:1] == ("+r",)  # matched folders go whole (`-exec rm -r {}`)
        return f"the files `find {where} {' '.join(args[whole:])} -print` lists" + (
            " and everything in the folders it lists" if whole else ""
        )
    if kind == "refs":
        return "the refs " + ", ".join(args)
    if kind == "git-clean":
        cut = args.index("--") if "--" in args else len(args)
        flags, paths = list(args[:cut]), [p for p in args[cut + 1 :] if p]
        below = f" below {', '.join(paths)}" if paths else ""
        return f"the files `git clean {' '.join(flags + ['-n'])}` lists in {where}{below}"
    return f"{kind} {where}"


def render_policy(policy: Policy, searched: list[str]) -> str:
    lines = ["policy files (project first, then user):"]
    for path in searched:
        lines.append(f"  {path}{'' if path in policy.files else ' (absent)'}")
    lines.append("verdicts:")
    for verdict, (action, source) in policy.verdicts.items():
        lines.append(f"  {verdict:12} {action:8} from {source}")
    lines.append(
        f"snapshot: max_bytes {policy.max_bytes[0]} from {policy.max_bytes[1]}; over the limit: "
        f"{policy.over_limit[0]} from {policy.over_limit[1]}"
    )
    lines.append("rules (first match wins):" if policy.rules else "rules: none")
    for rule in policy.rules:
        only = f" for {', '.join(rule.verdicts)}" if rule.verdicts else ""
        lines.append(f"  {' '.join(rule.match):40} {rule.action}{only} from {rule.source}")
    return "\n".join(lines) + "\n"
