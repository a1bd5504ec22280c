"""The guard's answer to an agent's shell tool, before it runs (PreToolUse).

The event comes in the agent's own format (pylon.agents.events), decoded once by entry.py; the
answer goes out in it (pylon.agents.answers). safe: no objection, nothing said. reversible:
snapshot, then no objection, with one line of context naming `pylon ws restore guard-<n>`.
irreversible/unknown: the policy's action. Codex does not enforce `ask` (it fails open, per its
docs), so `ask` is answered there as `deny` with the reasons and how to go ahead. `allow` never
grants more than the agent's own permission rules: pylon simply does not object. An event the
guard cannot judge (fields missing, not JSON) is refused with the reason, never met with silence.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.agents.events import HookEvent
    from pylon.guard.context import Context

from pylon.agents.events import SHELL_TOOLS  # one list for routing and judging

# The agents' own file tools: Claude Code's, and Codex's apply_patch (its hook names it so since
# openai/codex#18391, with the patch text as tool_input.command).
FILE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"})
HOOK_TIMEOUT = 30


def context(cwd: str | None = None) -> Context:
    """Where the command runs: the folder, the checkout around it (found by its .git, without
    running git: the hook runs before every shell command), the current branch."""
    from pylon.findroot import find_root
    from pylon.guard.context import Context
    from pylon.workspace.ops.guard_probe import probe

    here = os.path.abspath(cwd or os.getcwd())
    root, branch = find_root(here)
    return Context(here, root, branch=branch, probe=probe if root else None)


def answer(agent: str, data: bytes) -> dict[str, Any]:
    """The guard's reply to one hook event, from its bytes ({} for no output)."""
    from pylon.agents.events import parse_event

    return judge(parse_event(agent, data))


def judge(event: HookEvent) -> dict[str, Any]:
    """The guard's reply to one decoded event ({} for no objection and nothing to say)."""
    command = event.tool_input.get("command")
    missing = _missing(event, command)
    if missing:  # never silence: the agent would run a command nobody checked
        return refusal(
            event.agent,
            f"pylon guard: the hook event {missing}, so the command was not checked. Check "
            "the hook's input (pylon guard check --tool-input EVENT) before running it.",
        )
    if event.name == "PostToolUse" and event.tool_name in SHELL_TOOLS:
        return _after(event, command)
    if event.name in ("PostToolBatch", "Stop"):
        from pylon.hooks.keep import batch_done

        return batch_done(event)
    if event.name != "PreToolUse":
        return {}
    if event.tool_name in FILE_TOOLS:
        from pylon.hooks.files import judge as judge_files
        from pylon.hooks.keep import settle_before_write

        settle_before_write(event)  # the op of a shell command that ended first: this write is not its

        return judge_files(event)
    if event.tool_name not in SHELL_TOOLS:
        return {}
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        import shlex

        command = shlex.join(command)
    if not isinstance(command, str) or not command.strip():
        return {}
    return _before(event, command)


def _before(event: HookEvent, command: str) -> dict[str, Any]:
    """PreToolUse of the shell tool: keep the state, read the command, answer."""
    from pylon.guard.judge.classify import classify

    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else None
    ctx = context(cwd)
    from pylon.beside import beside

    keeping = beside(lambda: _keep(event, command, ctx.root))  # git works while the command is read
    result = classify(command, ctx)
    kept = keeping()
    if isinstance(kept, dict):
        return kept  # the state could not be kept: refused with the reason
    # canon's hook after the call reads a command given as text (a list of words it reads word by word)
    if event.session_id and isinstance(event.tool_input.get("command"), str) and ctx.root:
        from pylon.findroot import CANON_DIR, store_root  # the store canon's hook will find (never pylon.canon here)

        here = cwd or os.getcwd()
        if os.path.isdir(os.path.join(store_root(here), CANON_DIR)):
            from pylon.hooks.helper_ask import after_answer

            # in the helper, once the command may start: a reading not there yet is read again after
            session = event.session_id
            if not after_answer(lambda: _keep_reading(session, command, here)):
                _keep_reading(session, command, here)
    if result.verdict == "safe":
        return {}
    return _answer(event, result, ctx.root, command, kept)


def _keep(event: HookEvent, command: str, root: str | None) -> tuple[int, list[list[object]]] | dict[str, Any] | None:
    """The state before every command, whatever the classifier says (docs/explanation/guard.md): (op number, what
    could not be kept), None where nothing can be kept (no checkout; a .git that is gone was kept with
    it), or the refusal when keeping failed: the command must not pass silently."""
    from pylon.workspace.keep.store import usable

    if not root or not usable(root):
        return None
    try:
        from pylon.hooks.keep import before

        return before(event, command, root)
    except Exception as exc:  # logged, and answered with the reason
        from pylon.hooks.keep import _log

        _log(exc)
        why = getattr(exc, "message", None) or f"{type(exc).__name__}: {exc}"
        return refusal(
            event.agent,
            f"pylon could not keep the state of the checkout before this command "
            f"({str(why)[:300]}), so it could not be undone. Run it only if you know it is safe.",
        )


def _answer(
    event: HookEvent, result: Any, root: str | None, command: str, kept: tuple[int, list[list[object]]] | None
) -> dict[str, Any]:
    """The policy's answer to a command that is not safe: the note (kept, allowed), or ask/deny."""
    from pylon.agents import answers
    from pylon.guard.policy import Policy, load

    agent = event.agent
    problem = ""
    try:
        policy = load(root)
    except Exception as exc:  # a broken policy falls back to the defaults, and says so
        policy, problem = Policy(), f" (policy ignored: {getattr(exc, 'message', exc)})"
    action, _why = policy.decide(result.findings)
    reasons = "; ".join(f.reason for f in result.findings if f.verdict != "safe")[:1500]
    if action == "snapshot" and kept is not None and root:  # kept: allowed, with what it changes and the way back
        from pylon.hooks.note import told, unkeepable

        lost = unkeepable(root, result.targets, kept[1])
        if not lost:
            return answers.context(event, told(root, result, kept[0]) + problem)
        action, reasons = "ask", f"{lost}; {reasons}"
    elif action == "snapshot":  # nothing could be kept here (no checkout, a .git that is gone)
        note, action = _snapshot(result, policy, root, command)
        if action == "snapshot":
            return answers.context(event, note + problem)
        reasons = f"{note}; {reasons}"
    if action == "allow":
        return {}
    text = f"pylon guard: {result.verdict}: {reasons}{problem}"
    if action == "ask" and agent != "codex":
        return answers.ask(event, text)
    if action == "ask":
        text += ". Ask the user; to let such commands through, add a rule to .pylon/guard.toml (`pylon guard explain`)."
    return answers.deny(event, text)


def _after(event: HookEvent, command: object) -> dict[str, Any]:
    """PostToolUse of the shell tool: the op of what the command changed (keep.py); never an answer."""
    if isinstance(command, list) and all(isinstance(w, str) for w in command):
        import shlex

        command = shlex.join(command)
    from pylon.hooks.keep import after

    try:
        return after(event, command if isinstance(command, str) else "")
    except Exception as exc:  # the command ran; the next hook records what it changed
        from pylon.hooks.keep import _log

        _log(exc)
        return {}


def _keep_reading(session: str, command: str, cwd: str) -> None:
    """Hand this process's reading of `command` to canon's hook after the call (guard/readout.py):
    the folder is the one canon's hook reads in (the event's cwd, else the current one)."""
    try:
        from pylon.guard.judge.reading import read
        from pylon.guard.readout import keep

        keep(session, command, cwd, read(command, cwd))
    except Exception:  # the hook after the call reads the command itself
        pass


def _missing(event: Any, command: object) -> str:
    """What a PreToolUse event lacks for the guard to judge it ("" when nothing is missing)."""
    if event.problem:
        return f"could not be read ({event.problem})"
    if not event.name:
        return "has no hook_event_name"
    if event.name != "PreToolUse":
        return ""
    if not event.tool_name:
        return "has no tool_name"
    if (event.tool_name in SHELL_TOOLS or event.tool_name in FILE_TOOLS) and not isinstance(
        event.raw.get("tool_input"), dict
    ):
        return "has no tool_input object"
    if event.tool_name in FILE_TOOLS:
        from pylon.hooks.files import missing

        return missing(event)
    if event.tool_name in SHELL_TOOLS and not (
        isinstance(command, str) or (isinstance(command, list) and all(isinstance(w, str) for w in command))
    ):
        return "has no command string in its tool_input"
    return ""


def refusal(agent: str, reason: str) -> dict[str, Any]:
    """A PreToolUse refusal in the agent's format: ask in Claude Code (the user decides), deny in
    Codex (which does not enforce ask). Used when the guard could not judge the command at all."""
    decision = "deny" if agent == "codex" else "ask"
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": reason,
        }
    }


def _snapshot(result: Any, policy: Any, root: str | None, command: str) -> tuple[str, str]:
    """(note, action): "snapshot" when it was taken, else the policy's answer and why not."""
    from pylon.errors import PylonError
    from pylon.workspace.ops.guard_snapshot import take
    from pylon.workspace.repo import locate

    reasons = "; ".join(f.reason for f in result.findings if f.verdict == "reversible")
    try:
        snap = take(locate(root), result.targets, command=command, max_bytes=policy.max_bytes[0])
    except PylonError as exc:
        return f"no snapshot was taken ({exc.message})", without_snapshot(policy, exc)
    except Exception as exc:  # without a snapshot the command must not pass silently
        return f"no snapshot was taken ({type(exc).__name__}: {exc})", "ask"
    name = snap["name"]
    head = f"pylon guard: snapshot {name} taken before this command ({reasons[:600]}); "
    return head + _how_back(root, snap, result.targets, command), "snapshot"


def without_snapshot(policy: Any, exc: Any) -> str:
    """The answer when no snapshot can be taken: the policy's over-limit answer for a snapshot too
    large, ask for anything else (what it would destroy cannot be kept)."""
    return str(policy.over_limit[0]) if exc.code == "guard-snapshot-too-large" else "ask"


def _how_back(root: str | None, snap: Any, targets: Any, command: str) -> str:
    """The note's restore advice. The first command named brings back only what the command destroys,
    so following the note never reverts later work; the whole-checkout form is named only when the
    destroyed paths are not known, or beside them when the command may also move HEAD (and then
    says what it does)."""
    import shlex

    from pylon.workspace.ops.guard_op import destroyed, discarded, record
    from pylon.workspace.repo import locate

    checkout = locate(root)
    gone = destroyed(checkout, targets)
    changed = discarded(checkout, targets)  # uncommitted edits a checkout/restore/reset throws away
    # the op's undo brings back files that are gone, never overwrites one: only for removals (and
    # for the refs and stash entries a command deletes, which it creates again where they are gone)
    refs = any(t.kind == "refs" for t in targets)
    seq = record(checkout, snap, gone, command, refs=refs)
    name = snap["name"]
    if refs and all(t.kind == "refs" for t in targets):  # `git branch -D`, `git stash drop`: no file
        advice = f"bring back what it deletes with `pylon ws restore {name}` (the refs alone; no file is touched)"
        return advice + (f", or `pylon ws undo` (op {seq})" if seq is not None else "")
    whole = (
        f"`pylon ws restore {name}` (the whole checkout as it was before the command; what it replaces "
        "is kept in the op log)"
    )
    paths = sorted(set(gone) | set(changed))
    if not paths:
        return f"undo it with {whole}"
    shown = " ".join(shlex.quote(p) for p in paths[:10])
    advice = f"bring back only what it destroys with `pylon ws restore {name} {shown}`"
    if len(paths) > 10:  # the command is cut: say so, with the true total
        advice += f" (10 of its {len(paths)} paths shown; name the others the same way)"
    if seq is not None and not changed:
        advice += f", or `pylon ws undo` (op {seq}), which also keeps every later change"
    if any(t.kind == "checkout" for t in targets):  # `reset --hard REV`, `checkout -f BRANCH` move HEAD too
        advice += f"; if it also moved HEAD, {whole} puts HEAD back as well"
    return advice
