"""The commands that write over or remove files they name: `mv`/`cp`/`install`/`ln` onto what
exists, `tar --remove-files`. Apart from rules.py, which maps each command name to its rule; these are
the rules long enough to need their own reading of the words.
"""

from __future__ import annotations

import os

from pylon.guard.paths import destroyed
from pylon.guard.verdict import UNKNOWN, Finding
from pylon.guard.words import Arg, basename, operands

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.walk import Walk
    from pylon.guard.words import State


def overwrites(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """mv/cp/install/ln: the destinations that already exist are overwritten (not with -n)."""
    name = basename(args[0].text or "")
    if _never_overwrites(name, [a.text for a in args[1:] if a.text and a.text.startswith("-")]):
        return
    named, _ = operands(
        args[1:], "", takes=frozenset({"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "-g"})
    )
    target_dir = next((args[i + 2] for i, a in enumerate(args[1:-1]) if a.text in ("-t", "--target-directory")), None)
    if target_dir is None and len(named) < 2:
        return
    dest = target_dir or named[-1]
    sources = named if target_dir else named[:-1]
    if dest.text is None:
        destroyed(walk, state, [dest], verb="writes into", words=words, line=line, sudo=sudo)
        return
    dest_abs = walk.ctx.absolute(dest.text, state.cwd or walk.ctx.cwd)
    hits = _existing(dest, dest_abs, sources, state.cwd or walk.ctx.cwd)
    destroyed(walk, state, hits, verb="overwrites", words=words, line=line, recursive=False, sudo=sudo)
    if name == "mv":  # sources leave the checkout, or go over a file: kept for the note
        # (an ignored source is in no state: after a restore of the file it replaced, it would be
        # gone); a source named only at run time may be anywhere: unknown (destroyed() says so)
        leaving = [s for s in sources if s.text is None or hits or walk.ctx.locate(dest_abs) != "inside"]
        destroyed(walk, state, leaving, verb="moves away", words=words, line=line, sudo=sudo)


def _never_overwrites(name: str, flags: list[str | None]) -> bool:
    """-n/--no-clobber and -b/--backup keep what is there; ln replaces only with -f."""
    given = [f for f in flags if f]
    if any(
        f in ("-n", "--no-clobber", "-b", "--backup") or (not f.startswith("--") and ("n" in f or "b" in f))
        for f in given
    ):
        return True
    return name == "ln" and not any(f == "--force" or (not f.startswith("--") and "f" in f) for f in given)


def _existing(dest: Arg, dest_abs: str, sources: list[Arg], cwd: str) -> list[Arg]:
    """What the copy or move lands on that exists now: the destination, or into a folder, each
    source's name there (a source known only at run time stands for itself)."""
    if not (os.path.isdir(dest_abs) and not os.path.islink(dest_abs)):
        return [dest] if os.path.lexists(dest_abs) else []
    hits: list[Arg] = []
    for src in sources:
        if src.text is None:
            hits.append(src)
            continue
        for leaf in (os.path.basename(p.rstrip("/")) for p in _names(src, cwd)):
            candidate = os.path.join(dest_abs, leaf)
            if os.path.lexists(candidate):
                hits.append(type(dest)(candidate, False, dest.raw))
    return hits


def _names(arg: Arg, cwd: str) -> list[str]:
    from pylon.guard.patterns import expand

    return expand(arg, cwd)


def tar_remove(walk: Walk, args: list[Arg], state: State, words: str, line: int, sudo: bool) -> None:
    """tar --remove-files: the files it archives are removed afterwards (wherever the option sits)."""
    takes = {
        "-f",
        "--file",
        "-C",
        "--directory",
        "-T",
        "--files-from",
        "-X",
        "--exclude-from",
        "-b",
        "--blocking-factor",
        "-H",
        "--format",
        "-I",
        "--use-compress-program",
        "-g",
        "--listed-incremental",
        "-N",
        "--newer",
        "-V",
        "--label",
        "--transform",
        "--xform",
    }
    removed: list[Arg] = []
    i = 1
    first = True
    while i < len(args):
        text = args[i].text
        if text is not None and first and not text.startswith("-") and "f" in text:  # old style: tar cf ARCHIVE
            i += 2
            first = False
            continue
        first = False
        if text is not None and text.startswith("-") and text != "-":
            if text in ("-T", "--files-from") or text.startswith("--files-from="):
                walk.add(Finding(UNKNOWN, f"`{words}` removes the files a list names", words, line=line))
            short = not text.startswith("--")
            i += 2 if text in takes or (short and text[-1] in "fCTXbHIgNV" and len(text) > 1) else 1
            continue
        removed.append(args[i])
        i += 1
    destroyed(walk, state, removed, verb="removes (tar --remove-files)", words=words, line=line, sudo=sudo)
