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
    if targets and result.verdict == "reversible":
        names = [t.path or "." if t.kind == "path" else "tracked changes" if t.kind == "checkout"
                 else f"git clean {' '.join(t.args)} in {t.path or '.'}" for t in targets]
        lines.append("  a snapshot would keep: " + ", ".join(names[:10]) + (" ..." if len(names) > 10 else ""))
    if result.verdict != "safe":
        lines.append(f"  hook answer: {action}" + (f" ({'; '.join(why)})" if why else ""))
    return "\n".join(lines) + "\n"


def render_policy(policy: Policy, searched: list[str]) -> str:
    lines = ["policy files (project first, then user):"]
    for path in searched:
        lines.append(f"  {path}{'' if path in policy.files else ' (absent)'}")
    lines.append("verdicts:")
    for verdict, (action, source) in policy.verdicts.items():
        lines.append(f"  {verdict:12} {action:8} from {source}")
    lines.append(f"snapshot: max_bytes {policy.max_bytes[0]} from {policy.max_bytes[1]}; over the limit: "
                 f"{policy.over_limit[0]} from {policy.over_limit[1]}")
    lines.append("rules (first match wins):" if policy.rules else "rules: none")
    for rule in policy.rules:
        only = f" for {', '.join(rule.verdicts)}" if rule.verdicts else ""
        lines.append(f"  {' '.join(rule.match):40} {rule.action}{only} from {rule.source}")
    return "\n".join(lines) + "\n"
