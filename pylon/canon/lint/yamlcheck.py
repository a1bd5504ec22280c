"""Is a front-matter block valid YAML? Proven cheaply for the common shapes, else asked of YAML.

Most blocks are `key: plain value` lines, flow lists of simple items, block lists and comments;
those are valid YAML by construction, so lint proves them with one regex over the block and
imports PyYAML only for the rest (through `frontmatter.yaml_problems`, libyaml's loader when
present). The proof must be sound, never complete: anything unusual goes to the real parser.
"""

from __future__ import annotations

import re

from pylon.canon.frontmatter import Document, Problem, yaml_problems

_KEY = r"[A-Za-z0-9_][A-Za-z0-9_ ./-]*"
# Whole-scalar dates and timestamps YAML can construct (impossible ones such as 2026-02-30 or
# 2026-13-45 make it fail, so only certainly-real ones are proven here; Feb 29 goes to YAML).
_DAY = r"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
_TIME = (
    r"(?:[Tt](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]+)?(?:Z|[+-](?:[01][0-9]|2[0-3])(?::?[0-5][0-9])?)?)?"
)
_DATE = r"[0-9]{4}-" + _DAY + _TIME
_NOT_DATE = r"(?![0-9]{4}-[0-9])"  # anything else that starts like a date goes to YAML
# A plain scalar that cannot start an indicator, open a mapping (`: `), end in `:`, hold a tab or
# run onto the next line.
_PLAIN = _NOT_DATE + r"[^\s\-?:,\[\]{}#&*!|>'\"%@`](?:[^:\t#\r\n]|:(?=[^\s])|(?<=[^\s])#)*(?<![\s:])"
_DQ = r'"[^"\\\t\r\n]*"'
_SQ = r"'(?:[^'\t\r\n]|'')*'"
_FLOW_ITEM = (
    "(?:"
    + _DATE
    + r"(?= *[,\]])|"
    + _NOT_DATE
    + r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^,\[\]{}:#\t\r\n]*?|"
    + _DQ
    + "|"
    + _SQ
    + ")"
)
_FLOW = r"\[ *(?:" + _FLOW_ITEM + r" *(?:, *" + _FLOW_ITEM + r" *)*)?\]"
_VALUE = "(?:" + "|".join((_DATE + r"(?= |\r|\n)", _PLAIN, _DQ, _SQ, _FLOW)) + ")"
_END = r"(?: +#[^\r\n]*)? *\r?\n"
_SKIP = r" *(?:#[^\r\n]*)?\r?\n"
_ITEM_VALUE = r"- +" + _VALUE + _END
# `aliases:` then `  - item` lines, all indented alike.
_LIST = "(?:" + _SKIP + ")*(?:(?P<ind> +)" + _ITEM_VALUE + "(?:" + _SKIP + "|(?P=ind)" + _ITEM_VALUE + ")*)?"
_LINE = (
    "(?:"
    + "|".join(
        (
            _SKIP,
            _KEY + r":(?: +" + _VALUE + ")?" + _END,
            _KEY + ":" + _END + _LIST,
        )
    )
    + ")"
)
_BLOCK = re.compile("(?:" + _LINE + ")*")
# Characters PyYAML's reader refuses anywhere in the stream (the complement of its printable set,
# written as the small set so it compiles in microseconds rather than milliseconds).
_NON_PRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")


def provably_valid(lines: list[str]) -> bool:
    """True when every line has a shape that is valid YAML by construction (a mapping)."""
    block = "".join(lines)
    if block and not block.endswith("\n"):
        block += "\n"
    if _NON_PRINTABLE.search(block):
        return False
    return _BLOCK.fullmatch(block) is not None


def front_matter_yaml_problems(doc: Document) -> list[Problem]:
    """YAML problems of a block that our own parser accepted (empty when it is valid YAML)."""
    if not doc.has_front_matter or not doc.close_fence or provably_valid(doc.fm_lines):
        return []
    return yaml_problems(doc)
