"""Wrappers and runners: commands that run the command written after them (`nohup rm ...`,
`env -i rm ...`, `chrt 10 rm ...`, `uv run rm ...`) or a shell string (`su -c STR`, `watch STR`,
`env -S STR`). `unwrap` peels them off so the wrapped command is judged; when the wrapped words
cannot be told (an option known only at run time, a split string that does not split), the
result says so and the command is `unknown`, never `safe`."""

from __future__ import annotations

from pylon.guard.words import Arg, basename

# Wrappers: the options of each that take a value (so the wrapped command is found after them).
WRAPPERS: dict[str, frozenset[str]] = {
    "sudo": frozenset(
        {
            "-u",
            "--user",
            "-g",
            "--group",
            "-h",
            "--host",
            "-p",
            "--prompt",
            "-C",
            "-r",
            "-t",
            "-U",
            "-D",
            "--chdir",
            "--close-from",
            "--other-user",
            "--role",
            "--type",
        }
    ),
    "doas": frozenset({"-u", "-C"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "nohup": frozenset(),
    "time": frozenset({"-f", "--format", "-o", "--output"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "ionice": frozenset({"-c", "--class", "-n", "--classdata", "-p", "-P", "-u", "-t"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "timeout": frozenset({"-s", "--signal", "-k", "--kill-after"}),
    "caffeinate": frozenset({"-t", "-w"}),
    "chronic": frozenset(),
    "unbuffer": frozenset(),
    "setsid": frozenset(),
    "xvfb-run": frozenset(
        {
            "-n",
            "--server-num",
            "-s",
            "--server-args",
            "-f",
            "--auth-file",
            "-e",
            "--error-file",
            "-p",
            "--xauth-protocol",
        }
    ),
    "dbus-run-session": frozenset({"--config-file", "--dbus-daemon"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-P", "-X"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-l", "-n", "-x"}),
    "valgrind": frozenset(),
    "numactl": frozenset({"-C", "-N", "-m", "-p", "-i", "-P"}),
    "firejail": frozenset(),
    "unshare": frozenset({"-S", "-G", "--setuid", "--setgid", "-R", "--root", "-w", "--wd"}),
    "setpriv": frozenset({"--reuid", "--regid", "--groups", "--inh-caps", "--bounding-set"}),
    "prlimit": frozenset({"-p", "--pid"}),
    "torsocks": frozenset(),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "faketime": frozenset({"-f"}),
    "catchsegv": frozenset(),
    "systemd-run": frozenset(
        {
            "-p",
            "--property",
            "-u",
            "--unit",
            "--description",
            "--slice",
            "-E",
            "--setenv",
            "-M",
            "--machine",
            "-H",
            "--host",
            "--uid",
            "--gid",
            "--nice",
            "--working-directory",
        }
    ),
    "runuser": frozenset({"-u", "--user", "-g", "--group", "-G", "--supp-group", "-s", "--shell"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "nsenter": frozenset({"-t", "--target", "-S", "-G"}),
    "cgexec": frozenset({"-g"}),
    "rlwrap": frozenset(),
    "env": frozenset(),
    "busybox": frozenset(),
}
SUDO = frozenset({"sudo", "doas", "runuser", "chroot", "nsenter"})
# Runners of two words (`uv run CMD`): the options of each that take a value.
_RUNNERS: dict[tuple[str, str], frozenset[str]] = {
    ("uv", "run"): frozenset(
        {
            "--with",
            "--python",
            "-p",
            "--directory",
            "--project",
            "--package",
            "--extra",
            "--group",
            "--env-file",
            "--index",
            "--index-url",
            "--with-requirements",
        }
    ),
    ("poetry", "run"): frozenset({"-C", "--directory", "-P", "--project"}),
    ("pipenv", "run"): frozenset(),
    ("bundle", "exec"): frozenset({"--gemfile"}),
    ("npm", "exec"): frozenset({"-c", "--call", "-p", "--package", "-w", "--workspace"}),
    ("pnpm", "exec"): frozenset({"-C", "--dir", "--filter"}),
    ("yarn", "exec"): frozenset(),
    ("conda", "run"): frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    ("mamba", "run"): frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}),
    ("mise", "exec"): frozenset(),
    ("mise", "x"): frozenset(),
    ("rbenv", "exec"): frozenset(),
    ("pyenv", "exec"): frozenset(),
    ("asdf", "exec"): frozenset(),
    ("devbox", "run"): frozenset(),
    ("pixi", "run"): frozenset({"-e", "--environment", "--manifest-path"}),
    ("hatch", "run"): frozenset(),
    ("pdm", "run"): frozenset(),
    ("rye", "run"): frozenset(),
}
# Programs that run one shell string: the option that gives it ("" when it is every word joined).
_SHELL_STRING: dict[str, tuple[str, ...]] = {
    "su": ("-c", "--command"),
    "watch": ("",),
    "script": ("-c", "--command"),
    "nix-shell": ("--run", "--command"),
    "sg": ("",),
    "flock": ("-c", "--command"),
}


def _a(text: str) -> Arg:
    return Arg(text, False, text)


class Unwrapped:
    """The wrapped command's words, whether it runs as another user, the wrapper words seen, a
    folder the wrapper changes to (`env -C DIR`), and why the words cannot be told (or "")."""

    __slots__ = ("args", "sudo", "seen", "chdir", "unknown")

    def __init__(self, args: list[Arg]) -> None:
        self.args, self.sudo, self.seen = args, False, []  # type: list[Arg], bool, list[str]
        self.chdir: Arg | None = None
        self.unknown = ""


def unwrap(args: list[Arg]) -> Unwrapped:
    """Strip wrappers until the wrapped command's first word."""
    out = Unwrapped(args)
    for _ in range(64):
        args = out.args
        if not args or args[0].text is None:
            break
        name = basename(args[0].text)
        if name == "command" and len(args) > 1 and args[1].text in ("-v", "-V"):
            out.args = []  # `command -v x` only looks x up
            break
        peeled = _peel(out, name, args)
        if peeled is None:
            break
        out.args = peeled
    return out


def _peel(out: Unwrapped, name: str, args: list[Arg]) -> list[Arg] | None:
    """The words after the wrapper `name` (None: `name` wraps nothing, it is the command)."""
    runner = (name, args[1].text or "") if len(args) > 1 else None
    if name == "coproc":
        out.seen.append(name)
        return _coproc(args)
    if runner in _RUNNERS:
        out.seen.append(" ".join(runner))
        return _skip_options(out, args[1:], _RUNNERS[runner])
    special = _SPECIAL.get(name)
    if special is not None:
        out.seen.append(name)
        return special(out, args)
    if name in _SHELL_STRING:
        out.seen.append(name)
        out.sudo = out.sudo or name in ("su", "sg")
        return _shell_string(out, args, _SHELL_STRING[name])
    if name not in WRAPPERS:
        return None
    out.sudo = out.sudo or name in SUDO
    out.seen.append(name)
    rest = _skip_options(out, args, WRAPPERS[name])
    if name == "timeout" and rest:
        return rest[1:]  # the duration
    if name == "chroot" and rest:
        return rest[1:] or [_a("sh")]  # the new root; with no command, a shell
    return rest


def _coproc(args: list[Arg]) -> list[Arg]:
    rest = args[1:]
    if len(rest) > 1 and rest[1].text in ("{", "(") and (rest[0].text or "").isidentifier():
        rest = rest[1:]
    if rest and rest[0].text is None and rest[0].raw.startswith(("(", "{")):
        return []  # `coproc ( ... )`: the parser gave the statements to the walk already
    return rest[1:] if rest and rest[0].text in ("{", "(") else rest


def _known(out: Unwrapped, arg: Arg) -> str | None:
    """The word's text; None (and the reason recorded) when it is known only at run time."""
    if arg.text is None:
        out.unknown = f"{arg.raw} is known only when it runs"
    return arg.text


def _skip_options(out: Unwrapped, args: list[Arg], takes: frozenset[str]) -> list[Arg]:
    """The words after args[0]'s options (up to the first operand or after `--`)."""
    i = 1
    while i < len(args):
        text = _known(out, args[i])
        if text is None:
            return []
        if text == "--":
            return args[i + 1 :]
        if not text.startswith("-") or text == "-":
            break
        i += 2 if text in takes else 1
    return args[i:]


def _env(out: Unwrapped, args: list[Arg]) -> list[Arg]:
    """env [-i|-] [-0v] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... [CMD...]."""
    i = 1
    while i < len(args):
        text = _known(out, args[i])
        if text is None:
            return []
        if text == "--":
            return args[i + 1 :]
        if text == "-" or (not text.startswith("-") and "=" in text and not text.startswith("=")):
            i += 1  # an empty environment; an assignment
            continue
        if not text.startswith("-"):
            break
        key, value, i = _env_option(text, args, i)
        if key in ("-u", "--unset", "-P", "--path"):  # -P DIRS (BSD): where the command is looked up
            continue
        if value is None and key in ("-C", "--chdir", "-S", "--split-string"):
            out.unknown = f"`env {text}` takes a value known only when it runs"
            return []
        if key in ("-C", "--chdir"):
            out.chdir = _a(value or "")
        elif key in ("-S", "--split-string"):
            return _split_string(out, value or "", args[i:])
    return args[i:]


def _env_option(text: str, args: list[Arg], i: int) -> tuple[str, str | None, int]:
    """(the option, its value (None: none, or known only at run time), the index after it)."""
    value: str | None = None
    key = text
    if text.startswith("--"):
        key, eq, given = text.partition("=")
        needs = key in ("--unset", "--chdir", "--split-string", "--path")
        if needs and not eq:
            value = args[i + 1].text if i + 1 < len(args) else None
            i += 1
        elif needs:
            value = given
        return key, value, i + 1
    for j, c in enumerate(text[1:], 1):  # a cluster: -iu NAME, -uNAME, -iS'cmd args'
        if c in "uCSP":
            value = text[j + 1 :] or (args[i + 1].text if i + 1 < len(args) else None)
            return "-" + c, value, i + (1 if text[j + 1 :] else 2)
    return key, value, i + 1


def _split_string(out: Unwrapped, value: str, rest: list[Arg]) -> list[Arg]:
    """`env -S STRING`: its words are env's own arguments again."""
    import shlex

    try:
        split = shlex.split(value, comments=False)
    except ValueError:
        out.unknown = f"`env -S {value}` does not split into words"
        return []
    return [_a("env"), *[_a(w) for w in split], *rest]


def _chrt(out: Unwrapped, args: list[Arg]) -> list[Arg]:
    """chrt [options] PRIORITY CMD... (with -p it acts on a running process)."""
    texts = [a.text for a in args[1:]]
    if "-p" in texts or "--pid" in texts:
        return []
    rest = _skip_options(
        out, args, frozenset({"-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"})
    )
    return rest[1:]


def _taskset(out: Unwrapped, args: list[Arg]) -> list[Arg]:
    """taskset [-a] [-c] MASK CMD... (with -p it acts on a running process)."""
    if any(
        (a.text or "").startswith("-")
        and "p" in (a.text or "")
        and not (a.text or "").startswith("--")
        or a.text == "--pid"
        for a in args[1:3]
    ):
        return []
    rest = _skip_options(out, args, frozenset())
    return rest[1:]


def _arch(out: Unwrapped, args: list[Arg]) -> list[Arg]:
    """macOS arch: `arch -x86_64 CMD`, `arch -arch NAME CMD`; plain `arch` prints the machine."""
    rest = _skip_options(out, args, frozenset({"-arch", "-e", "-d"}))
    return rest


_SPECIAL = {"env": _env, "chrt": _chrt, "taskset": _taskset, "arch": _arch}


def _shell_string(out: Unwrapped, args: list[Arg], options: tuple[str, ...]) -> list[Arg]:
    """`su -c STR`, `watch CMD ARGS` (joined): the string, as `sh -c STR`."""
    if options == ("",):
        rest = _skip_options(out, args, frozenset({"-n", "--interval", "-d", "--differences"}))
        if not rest:
            return []
        if any(a.text is None for a in rest):
            out.unknown = "the command string is known only when it runs"
            return []
        return [_a("sh"), _a("-c"), Arg(" ".join(a.text or "" for a in rest), False, " ".join(a.raw for a in rest))]
    for i, a in enumerate(args[1:], 1):
        if a.text in options or any((a.text or "").startswith(o + "=") for o in options if o.startswith("--")):
            given = a if "=" in (a.text or "") else (args[i + 1] if i + 1 < len(args) else None)
            if given is None:
                return []
            text = given.text.split("=", 1)[1] if given is a and given.text else given.text
            if text is None:
                out.unknown = f"{given.raw} is known only when it runs"
                return []
            return [_a("sh"), _a("-c"), Arg(text, False, given.raw)]
    if basename(args[0].text or "") == "flock":  # flock [opts] FILE CMD...
        rest = _skip_options(out, args, frozenset({"-E", "--conflict-exit-code", "-w", "--timeout"}))
        return rest[1:]
    return []
