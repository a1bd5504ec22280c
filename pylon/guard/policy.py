"""The guard policy: what the hook answers for each verdict, and rules for command patterns.

Read from `.pylon/guard.toml` in the project, then `$XDG_CONFIG_HOME/pylon/guard.toml` (the
user's); the project's settings win, and its rules are tried before the user's. A rule matches
the parsed words of one simple command (after wrappers, with variables resolved), never the raw
text: `match = ["git", "push", "--force-with-lease", "**"]`, each word a shell-style pattern,
`**` any number of words.

    [verdicts]
    reversible = "snapshot"   # snapshot (default) | allow | ask | deny
    irreversible = "ask"      # ask (default) | deny | allow
    unknown = "ask"
    [snapshot]
    max_bytes = 209715200     # 200 MiB
    over_limit = "ask"        # what a reversible command gets when its snapshot would be larger
    [keep]
    ignored_file_max = 1048576  # an ignored file larger than this is not kept before a command
    ignored_max = 67108864      # bytes of ignored files kept per checkout
    [[rules]]
    match = ["git", "push", "--force-with-lease", "**"]
    action = "allow"
"""

from __future__ import annotations

import os

from pylon.guard.verdict import IRREVERSIBLE, REVERSIBLE, SAFE, UNKNOWN, Finding

ACTIONS = ("allow", "snapshot", "ask", "deny")
_STRICT = {"allow": 0, "snapshot": 1, "ask": 2, "deny": 3}
DEFAULTS: dict[str, str] = {SAFE: "allow", REVERSIBLE: "snapshot", IRREVERSIBLE: "ask", UNKNOWN: "ask"}
DEFAULT_MAX_BYTES = 200 * 1024 * 1024
KEEP_DEFAULTS = {"ignored_file_max": 1 << 20, "ignored_max": 64 << 20}
BUILTIN = "built-in default"


class Rule:
    __slots__ = ("match", "action", "verdicts", "source")

    def __init__(self, match: list[str], action: str, verdicts: list[str], source: str) -> None:
        self.match, self.action, self.verdicts, self.source = match, action, verdicts, source

    def matches(self, argv: list[str], verdict: str) -> bool:
        if self.verdicts and verdict not in self.verdicts:
            return False
        return _match(self.match, argv)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"match": self.match, "action": self.action, "source": self.source}
        if self.verdicts:
            out["verdicts"] = self.verdicts
        return out


def _match(pattern: list[str], argv: list[str]) -> bool:
    from fnmatch import fnmatchcase

    if not pattern:
        return not argv
    if pattern[0] == "**":
        return any(_match(pattern[1:], argv[i:]) for i in range(len(argv) + 1))
    return bool(argv) and fnmatchcase(argv[0], pattern[0]) and _match(pattern[1:], argv[1:])


class Policy:
    """The settings in force, each with the file it came from."""

    def __init__(self) -> None:
        self.verdicts: dict[str, tuple[str, str]] = {v: (a, BUILTIN) for v, a in DEFAULTS.items()}
        self.max_bytes: tuple[int, str] = (DEFAULT_MAX_BYTES, BUILTIN)
        self.over_limit: tuple[str, str] = ("ask", BUILTIN)
        self.keep: dict[str, tuple[int, str]] = {k: (v, BUILTIN) for k, v in KEEP_DEFAULTS.items()}
        self.rules: list[Rule] = []
        self.files: list[str] = []

    def action(self, finding: Finding) -> tuple[str, str]:
        """(action, why) for one finding: the first rule matching its command, else its verdict's."""
        for rule in self.rules:
            if rule.matches(finding.argv, finding.verdict):
                return rule.action, f"rule {' '.join(rule.match)} ({rule.source})"
        action, source = self.verdicts[finding.verdict]
        return action, f"{finding.verdict} = {action} ({source})"

    def decide(self, findings: list[Finding]) -> tuple[str, list[str]]:
        """The strictest action over every finding that is not safe, and the rules that gave it."""
        decided, why = "allow", []
        for f in findings:
            if f.verdict == SAFE:
                continue
            action, reason = self.action(f)
            if _STRICT[action] > _STRICT[decided]:
                decided, why = action, [reason]
            elif action == decided and reason not in why:
                why.append(reason)
        return decided, why

    def to_dict(self) -> dict[str, object]:
        return {
            "files": self.files,
            "verdicts": {v: {"action": a, "source": s} for v, (a, s) in self.verdicts.items()},
            "snapshot": {
                "max_bytes": {"value": self.max_bytes[0], "source": self.max_bytes[1]},
                "over_limit": {"action": self.over_limit[0], "source": self.over_limit[1]},
            },
            "keep": {k: {"value": v, "source": src} for k, (v, src) in self.keep.items()},
            "rules": [r.to_dict() for r in self.rules],
        }


def policy_files(project_root: str | None, env: dict[str, str] | None = None) -> list[str]:
    """The policy files in the order they are read (project first), existing or not."""
    env = dict(os.environ) if env is None else env
    files = []
    if project_root:
        files.append(os.path.join(project_root, ".pylon", "guard.toml"))
    config = env.get("XDG_CONFIG_HOME") or os.path.join(env.get("HOME", "/"), ".config")
    files.append(os.path.join(config, "pylon", "guard.toml"))
    return files


def load(project_root: str | None, env: dict[str, str] | None = None) -> Policy:
    """The policy in force; a file that is not valid is `guard-policy-invalid` (exit 2)."""
    policy = Policy()
    set_here: set[str] = set()
    for path in policy_files(project_root, env):
        try:
            with open(path, "rb") as fh:
                raw = fh.read(1 << 20)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise _invalid(path, f"it cannot be read ({exc.strerror})") from None
        policy.files.append(path)
        _apply(policy, path, _parse(path, raw), set_here)
    return policy


def _parse(path: str, raw: bytes) -> dict[str, object]:
    import tomllib

    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _invalid(path, f"it is not valid TOML ({exc})") from None


def _apply(policy: Policy, path: str, doc: dict[str, object], set_here: set[str]) -> None:
    unknown = sorted(set(doc) - {"verdicts", "snapshot", "rules", "keep"})
    if unknown:
        raise _invalid(path, f"unknown section {unknown[0]!r} (known: verdicts, snapshot, keep, rules)")
    _apply_keep(policy, path, doc.get("keep", {}), set_here)
    _apply_verdicts(policy, path, doc.get("verdicts", {}), set_here)
    _apply_snapshot(policy, path, doc.get("snapshot", {}), set_here)
    rules = doc.get("rules", [])
    if not isinstance(rules, list):
        raise _invalid(path, "rules must be an array of tables ([[rules]])")
    for n, rule in enumerate(rules, 1):
        policy.rules.append(_rule(path, n, rule))


def _apply_verdicts(policy: Policy, path: str, verdicts: object, set_here: set[str]) -> None:
    if not isinstance(verdicts, dict):
        raise _invalid(path, "[verdicts] must be a table")
    for verdict, action in verdicts.items():
        if verdict not in DEFAULTS or verdict == SAFE:
            raise _invalid(path, f"[verdicts] {verdict!r} is not one of reversible, irreversible, unknown")
        allowed = ACTIONS if verdict == REVERSIBLE else ("allow", "ask", "deny")
        if action not in allowed:
            raise _invalid(path, f"[verdicts] {verdict} = {action!r}; use one of {', '.join(allowed)}")
        if verdict not in set_here:  # the project's setting wins over the user's
            policy.verdicts[verdict] = (str(action), path)
            set_here.add(verdict)


def _apply_snapshot(policy: Policy, path: str, snapshot: object, set_here: set[str]) -> None:
    if not isinstance(snapshot, dict):
        raise _invalid(path, "[snapshot] must be a table")
    if "max_bytes" in snapshot and "max_bytes" not in set_here:
        value = snapshot["max_bytes"]
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise _invalid(path, "[snapshot] max_bytes must be a whole number of bytes")
        policy.max_bytes = (value, path)
        set_here.add("max_bytes")
    if "over_limit" in snapshot and "over_limit" not in set_here:
        if snapshot["over_limit"] not in ("allow", "ask", "deny"):
            raise _invalid(path, "[snapshot] over_limit must be allow, ask or deny")
        policy.over_limit = (str(snapshot["over_limit"]), path)
        set_here.add("over_limit")


def _rule(path: str, n: int, rule: object) -> Rule:
    if not isinstance(rule, dict):
        raise _invalid(path, f"rule {n} must be a table")
    match, action, only = rule.get("match"), rule.get("action"), rule.get("verdicts", [])
    if not isinstance(match, list) or not match or not all(isinstance(w, str) for w in match):
        raise _invalid(path, f'rule {n}: match must be a list of words, e.g. ["git", "push", "**"]')
    if action not in ("allow", "ask", "deny"):
        raise _invalid(path, f"rule {n}: action must be allow, ask or deny")
    if not isinstance(only, list) or any(v not in DEFAULTS for v in only):
        raise _invalid(path, f"rule {n}: verdicts must list reversible, irreversible or unknown")
    return Rule(list(match), str(action), [str(v) for v in only], path)


def _apply_keep(policy: Policy, path: str, keep: object, set_here: set[str]) -> None:
    if not isinstance(keep, dict):
        raise _invalid(path, "[keep] must be a table")
    for key, value in keep.items():
        if key not in KEEP_DEFAULTS:
            raise _invalid(path, f"[keep] {key!r} is not one of {', '.join(KEEP_DEFAULTS)}")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise _invalid(path, f"[keep] {key} must be a whole number of bytes")
        if f"keep.{key}" not in set_here:
            policy.keep[key] = (value, path)
            set_here.add(f"keep.{key}")


def keep_budget(project_root: str | None) -> tuple[int, int]:
    """(ignored_file_max, ignored_max) in force; without a policy file the defaults, at no import cost.
    A policy that cannot be read gives the defaults (the hook's answer says so elsewhere)."""
    if not any(os.path.exists(p) for p in policy_files(project_root)):
        return KEEP_DEFAULTS["ignored_file_max"], KEEP_DEFAULTS["ignored_max"]
    try:
        keep = load(project_root).keep
    except Exception:  # a broken policy: the budget's defaults still hold
        return KEEP_DEFAULTS["ignored_file_max"], KEEP_DEFAULTS["ignored_max"]
    return keep["ignored_file_max"][0], keep["ignored_max"][0]


def _invalid(path: str, why: str) -> Exception:
    from pylon.errors import UsageError

    return UsageError(
        "guard-policy-invalid",
        f"The guard policy {path} is not valid: {why}.",
        "Fix the file (see `pylon guard explain` and docs/reference/guard.md), or move it aside.",
    )
