"""Commands run on another machine or in a container: `ssh HOST CMD`, `docker exec C CMD`,
`docker run IMAGE CMD`, `kubectl exec POD -- CMD`. The remote command is judged like a local one,
in a context with no checkout (every path is someone's data), and anything it would destroy is
irreversible: no local snapshot holds a remote machine's files."""

from __future__ import annotations

from pylon.guard.verdict import IRREVERSIBLE, SAFE, UNKNOWN, Finding, worst
from pylon.guard.words import quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

_SSH_TAKES = frozenset(
    {
        "-p",
        "-i",
        "-l",
        "-o",
        "-F",
        "-J",
        "-L",
        "-R",
        "-D",
        "-b",
        "-c",
        "-E",
        "-e",
        "-I",
        "-m",
        "-O",
        "-Q",
        "-S",
        "-W",
        "-w",
        "-B",
        "--ssh",
        "--port",
        "--predict",
    }
)
_EXEC_TAKES = frozenset(
    {
        "-e",
        "--env",
        "--env-file",
        "-u",
        "--user",
        "-w",
        "--workdir",
        "--detach-keys",
        "-c",
        "--container",
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "--index",
        "-f",
        "--filename",
        "--pod-running-timeout",
        "--project",
        "--cwd",
    }
)
_RUN_TAKES = _EXEC_TAKES | frozenset(
    {
        "-v",
        "--volume",
        "-p",
        "--publish",
        "--name",
        "--network",
        "--net",
        "--entrypoint",
        "--mount",
        "-l",
        "--label",
        "--platform",
        "--cpus",
        "-m",
        "--memory",
        "--restart",
        "--hostname",
        "-h",
        "--add-host",
        "--volumes-from",
        "--device",
        "--cap-add",
        "--cap-drop",
        "--security-opt",
        "--ulimit",
        "--log-driver",
        "--log-opt",
        "--pull",
        "--gpus",
        "--shm-size",
        "--tmpfs",
        "--ipc",
        "--pid",
        "--runtime",
        "--image",
        "--overrides",
        "--port",
        "--dns",
        "--expose",
        "--group-add",
        "--label-file",
        "--network-alias",
        "--stop-signal",
        "--userns",
        "--cidfile",
        "--cgroupns",
        "--health-cmd",
        "--isolation",
        "--memory-swap",
        "--cpuset-cpus",
    }
)


def judge_remote_exec(walk: Walk, name: str, args: list[Arg], cmd: Cmd, state: State) -> None:
    words = quote(args)
    rest = args[1:]
    if name in ("ssh", "mosh", "autossh"):
        remote = _after_operands(rest, _SSH_TAKES, 1)
        where = _first_operand(rest, _SSH_TAKES) or "the remote host"
        if remote is None:
            walk.add(Finding(UNKNOWN, f"`{words}` has an option known only when it runs", words, line=cmd.line))
            return
        if remote and remote[0].text == "--":
            remote = remote[1:]
        if not remote:  # a login shell: what it runs comes on its input, if anything is given
            from pylon.guard.stdin import stdin_input

            body, why = stdin_input(walk, cmd, None, state)
            if body is not None:
                _judge_remote(walk, words, where, cmd, script=body)
            elif why:
                walk.add(
                    Finding(
                        UNKNOWN, f"`{words}` runs on {where} what it reads from its input ({why})", words, line=cmd.line
                    )
                )
            return
        if any(a.text is None for a in remote):
            walk.add(
                Finding(UNKNOWN, f"`{words}` runs on {where} a command known only when it runs", words, line=cmd.line)
            )
            return
        _judge_remote(walk, words, where, cmd, script=" ".join(a.text or "" for a in remote))
        return
    # docker/podman/kubectl exec|run, docker compose exec: the words after the target are an argv
    skip = 2 if rest[:1] and rest[0].text == "compose" else 1
    sub = rest[skip - 1].text if len(rest) >= skip else ""
    tail = rest[skip:]
    if "--" in [a.text for a in tail]:
        cut = [a.text for a in tail].index("--")
        argv: list[Arg] | None = tail[cut + 1 :]
        target = _first_operand(tail[:cut], _EXEC_TAKES)
    else:
        argv = _after_operands(tail, _RUN_TAKES if sub == "run" else _EXEC_TAKES, 1)
        target = _first_operand(tail, _RUN_TAKES if sub == "run" else _EXEC_TAKES)
    where = f"the {name} {'container' if name != 'kubectl' else 'pod'} {target or ''}".rstrip()
    if argv is None:
        walk.add(Finding(UNKNOWN, f"`{words}` has an option known only when it runs", words, line=cmd.line))
        return
    if argv:
        _judge_remote(walk, words, where, cmd, argv=argv)


def _first_operand(args: list[Arg], takes: frozenset[str]) -> str | None:
    i = 0
    while i < len(args):
        text = args[i].text
        if text is None or not text.startswith("-") or text == "-":
            return text if text is not None else args[i].raw
        i += 2 if text in takes else 1
    return None


def _after_operands(args: list[Arg], takes: frozenset[str], operands: int) -> list[Arg] | None:
    """The words after the first `operands` non-option words (None: an option is dynamic)."""
    i, seen = 0, 0
    while i < len(args) and seen < operands:
        text = args[i].text
        if text is None:
            if seen == 0:
                return None
            seen += 1
        elif text == "--":
            return args[i:]
        elif text.startswith("-") and text != "-":
            i += 2 if text in takes else 1
            continue
        else:
            seen += 1
        i += 1
    return args[i:]


def _judge_remote(
    walk: Walk, words: str, where: str, cmd: Cmd, *, script: str | None = None, argv: list[Arg] | None = None
) -> None:
    """Judge the remote command in a context with no checkout; destroying anything is irreversible."""
    from pylon.guard.context import Context
    from pylon.guard.walk import Walk as W
    from pylon.guard.words import State

    inner = W(Context("/", None, env={"HOME": "/(remote home)"}, tmp_dirs=[]), walk.judge, walk.parser)
    state = State("/", {}, 1)
    if script is not None:
        inner.script(script, state)
    elif argv is not None:
        from pylon.guard.model import Cmd as C

        inner.judge(inner, argv, C([], [], [], cmd.line), state, None)
    verdict = worst([f.verdict for f in inner.findings])
    if verdict == SAFE:
        return
    why = "; ".join(f.reason for f in inner.findings if f.verdict != SAFE)[:300]
    if verdict == UNKNOWN:
        walk.add(
            Finding(UNKNOWN, f"`{words}` runs on {where} something pylon cannot judge ({why})", words, line=cmd.line)
        )
    else:
        walk.add(
            Finding(
                IRREVERSIBLE,
                f"`{words}` destroys data on {where}, which no local snapshot holds ({why})",
                words,
                line=cmd.line,
            )
        )
