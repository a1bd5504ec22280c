"""Commands that destroy what no local snapshot holds: remote services, containers, clusters,
infrastructure, disks and the running system. Each rule names the subcommand words that delete."""

from __future__ import annotations

from pylon.guard.paths import destroyed
from pylon.guard.verdict import IRREVERSIBLE, Finding
from pylon.guard.words import quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

# The system itself: every use destroys (disks, partitions, power state, accounts).
_SYSTEM = {
    "mkfs": "formats a file system",
    "wipefs": "erases file-system signatures",
    "fdisk": "repartitions a disk",
    "sfdisk": "repartitions a disk",
    "parted": "repartitions a disk",
    "shutdown": "shuts the machine down",
    "reboot": "reboots the machine",
    "halt": "halts the machine",
    "poweroff": "powers the machine off",
    "userdel": "deletes a user account",
    "deluser": "deletes a user account",
    "blkdiscard": "discards a disk",
    "mke2fs": "formats a file system",
    "mkswap": "formats a swap area",
    "mkntfs": "formats a file system",
    "mkdosfs": "formats a file system",
    "mkexfatfs": "formats a file system",
    "gdisk": "repartitions a disk",
    "cfdisk": "repartitions a disk",
    "lvremove": "removes a logical volume",
    "vgremove": "removes a volume group",
    "pvremove": "removes a physical volume",
    "dropdb": "drops a database on a database server",
    "dropuser": "drops a database role",
    "mkfs.ext4": "formats a file system",
}
# Subcommands (or options) of disk tools that destroy data; other uses (status, print) are safe.
_DISK: dict[str, frozenset[str]] = {
    "cryptsetup": frozenset(
        {
            "luksFormat",
            "erase",
            "luksErase",
            "luksKillSlot",
            "luksRemoveKey",
            "reencrypt",
            "repair",
            "luksAddKey",
            "convert",
        }
    ),
    "sgdisk": frozenset(
        {
            "--zap-all",
            "-Z",
            "--zap",
            "-z",
            "--clear",
            "-o",
            "--delete",
            "-d",
            "--new",
            "-n",
            "--largest-new",
            "-N",
            "--mbrtogpt",
            "-g",
            "--load-backup",
            "-l",
            "--replicate",
            "-R",
            "--randomize-guids",
            "-G",
            "--change-name",
            "-c",
            "--typecode",
            "-t",
            "--sort",
            "-s",
            "--transpose",
            "-r",
            "--move-second-header",
            "-e",
            "--gpttombr",
            "-m",
        }
    ),
    "zpool": frozenset({"destroy", "labelclear", "remove"}),
    "zfs": frozenset({"destroy", "rollback"}),
    "mdadm": frozenset({"--zero-superblock", "--create", "-C"}),
    "nvme": frozenset({"format", "sanitize"}),
    "hdparm": frozenset({"--security-erase", "--security-erase-enhanced", "--trim-sector-ranges"}),
}
# Publishing to a package registry: a published version cannot be replaced or taken back quietly.
_PUBLISH: dict[str, tuple[str, ...]] = {
    "npm": ("publish",),
    "yarn": ("publish",),
    "pnpm": ("publish",),
    "cargo": ("publish",),
    "gem": ("push",),
    "twine": ("upload",),
    "poetry": ("publish",),
    "uv": ("publish",),
    "flit": ("publish",),
    "hatch": ("publish",),
    "dotnet": ("nuget", "push"),
    "bun": ("publish",),
    "lerna": ("publish",),
}
# Subcommand word sequences that delete remote or container state, per program.
_DELETING: dict[str, tuple[tuple[str, ...], ...]] = {
    "docker": (
        ("rm",),
        ("rmi",),
        ("system", "prune"),
        ("volume", "rm"),
        ("volume", "prune"),
        ("image", "prune"),
        ("container", "prune"),
        ("container", "rm"),
        ("image", "rm"),
        ("network", "rm"),
        ("network", "prune"),
        ("builder", "prune"),
        ("compose", "down", "-v"),
        ("compose", "down", "--volumes"),
        ("compose", "rm"),
    ),
    "podman": (("rm",), ("rmi",), ("system", "prune"), ("volume", "rm"), ("volume", "prune"), ("system", "reset")),
    "docker-compose": (("down", "-v"), ("down", "--volumes"), ("rm",)),
    "kubectl": (("delete",), ("drain",), ("replace", "--force")),
    "helm": (("uninstall",), ("delete",)),
    "terraform": (
        ("destroy",),
        ("apply", "-destroy"),
        ("apply", "-auto-approve"),
        ("state", "rm"),
        ("workspace", "delete"),
    ),
    "tofu": (("destroy",), ("apply", "-destroy"), ("apply", "-auto-approve"), ("state", "rm")),
    "pulumi": (("destroy",), ("stack", "rm")),
    "gh": (
        ("repo", "delete"),
        ("release", "delete"),
        ("issue", "delete"),
        ("secret", "delete"),
        ("variable", "delete"),
        ("cache", "delete"),
        ("run", "delete"),
        ("gist", "delete"),
        ("label", "delete"),
        ("repo", "archive"),
        ("api", "-X", "DELETE"),
        ("api", "--method", "DELETE"),
    ),
    "glab": (("repo", "delete"), ("release", "delete")),
    "aws": (("s3", "rm"), ("s3", "rb"), ("s3", "sync", "--delete"), ("s3", "mv")),
    "gsutil": (("rm",), ("rb",), ("rsync", "-d")),
    "npm": (("unpublish",),),
    "crontab": (("-r",),),
    "heroku": (("apps:destroy",), ("pg:reset",)),
    "redis-cli": (("flushall",), ("flushdb",)),
    "firebase": (("firestore:delete",), ("database:remove",)),
}
_REMOTE_SHELLS = frozenset({"ssh", "mosh", "autossh"})
_EXEC_IN = frozenset({"docker", "podman", "kubectl", "oc", "nerdctl", "lxc", "incus"})
_CLOUD_VERBS = ("delete", "remove", "destroy", "terminate", "purge", "drop")


def judge_remote(walk: Walk, name: str, args: list[Arg], cmd: Cmd, state: State, sudo: bool) -> None:
    words = quote(args)
    texts = [a.text or "" for a in args[1:]]
    if name == "redis-cli":
        texts = [t.lower() for t in texts]
    if (
        name in _REMOTE_SHELLS
        or (name in _EXEC_IN and texts[:1] and texts[0] in ("exec", "run"))
        or (name in ("docker", "podman") and texts[:2] == ["compose", "exec"])
    ):
        from pylon.guard.commands.remote_exec import judge_remote_exec

        judge_remote_exec(walk, name, args, cmd, state)
        return
    for check in _CHECKS:  # the first that applies says why no kept state gives it back
        found = check(name, texts, words)
        if found is not None:
            walk.add(Finding(IRREVERSIBLE, f"`{words}` {found[0]}", found[1], line=cmd.line))
            return
    if name == "rsync":
        _rsync(walk, args, state, words, cmd.line, sudo)


def _system(name: str, texts: list[str], words: str) -> tuple[str, str] | None:
    base = name.split(".")[0]
    return (_SYSTEM[base], words) if base in _SYSTEM else None


def _disk(name: str, texts: list[str], words: str) -> tuple[str, str] | None:
    verbs = _DISK.get(name, ())
    verb = next((t for t in texts if t in verbs or t.split("=")[0] in verbs), None)
    return (f"destroys data on a disk or volume ({verb})", verb) if verb else None


def _publish(name: str, texts: list[str], words: str) -> tuple[str, str] | None:
    publish = _PUBLISH.get(name)
    if not publish or [t for t in texts if not t.startswith("-")][: len(publish)] != list(publish):
        return None
    if any(t in ("--dry-run", "-n", "--pretend") for t in texts):
        return None
    return "publishes to a package registry, which no kept state takes back", " ".join(publish)


def _machine(name: str, texts: list[str], words: str) -> tuple[str, str] | None:
    if name == "systemctl" and texts[:1] and texts[0] in ("poweroff", "reboot", "halt"):
        return f"{texts[0]}s the machine", words
    return None


def _http(name: str, texts: list[str], words: str) -> tuple[str, str] | None:
    return (
        ("sends an HTTP DELETE to a server", words) if name in ("curl", "http", "xh") and _http_delete(texts) else None
    )


def _cloud(name: str, texts: list[str], words: str) -> tuple[str, str] | None:
    if name not in ("aws", "gcloud", "az", "doctl", "flyctl", "fly"):
        return None
    verb = next(
        (t for t in texts if not t.startswith("-") and (t.split("-")[0] in _CLOUD_VERBS or t in _CLOUD_VERBS)), None
    )
    return (f"deletes cloud resources ({verb})", verb) if verb else None


def _deleting(name: str, texts: list[str], words: str) -> tuple[str, str] | None:
    seq = next((seq for seq in _DELETING.get(name, ()) if _has_sequence(texts, seq)), None)
    if seq is None:
        return None
    return f"deletes {name} state that no kept state holds ({' '.join(seq)})", " ".join(seq)


_CHECKS = (_system, _disk, _publish, _machine, _http, _cloud, _deleting)


def _has_sequence(texts: list[str], seq: tuple[str, ...]) -> bool:
    """The words of `seq` appear in order: the first as a subcommand, flags anywhere after it."""
    words = [t for t in texts if not t.startswith("-") or t in seq]
    try:
        start = words.index(seq[0])
    except ValueError:
        return False
    rest = texts[texts.index(seq[0]) + 1 :] if seq[0] in texts else []
    return all(s in rest for s in seq[1:]) and (start <= 2 or seq[0].startswith("-"))


def _http_delete(texts: list[str]) -> bool:
    for i, t in enumerate(texts):
        if t in ("-X", "--request") and i + 1 < len(texts) and texts[i + 1].upper() == "DELETE":
            return True
        if t.upper() in ("-XDELETE", "--REQUEST=DELETE") or t == "DELETE":
            return True
    return False


def _rsync(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """rsync deletes at the destination with --delete*, and the sources with --remove-source-files."""
    flags = [a.text or "" for a in args[1:] if (a.text or "").startswith("--")]
    operands = [a for a in args[1:] if not (a.text or "-").startswith("-")]
    if len(operands) < 2:
        return
    if any(f.startswith("--delete") or f == "--del" for f in flags):
        dest = operands[-1]
        if dest.text is not None and ":" in dest.text.split("/")[0]:
            walk.add(Finding(IRREVERSIBLE, f"`{words}` deletes files on the remote {dest.text}", dest.raw, line=line))
        else:
            destroyed(walk, state, [dest], verb="deletes files under", words=words, line=line, sudo=sudo)
    if "--remove-source-files" in flags:
        destroyed(walk, state, operands[:-1], verb="removes the sources", words=words, line=line, sudo=sudo)
