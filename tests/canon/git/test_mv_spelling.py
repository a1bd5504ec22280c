"""Property: `canon mv`'s link rewriting changes a link's address and nothing else of its spelling,
so a move and the move back give the article's bytes back exactly (pylon.canon.git.mv.rewrite_links)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pylon.canon.git.mv import rewrite_links
from pylon.canon.links import check_links, extract_links
from tests.conftest import sized

BEFORE = {"src", "src/core", "src/core/loader", "docs"}
MAPPING = {"src/core": "src/engine", "src/core/loader": "src/engine/loader"}
AFTER = {MAPPING.get(a, a) for a in BEFORE}
BACK = {new: old for old, new in MAPPING.items()}

blanks = st.sampled_from(["", " ", "  ", "\t"])
addresses = st.sampled_from(
    [
        "src/core",
        "src/core/loader",
        "src/core/config.py",
        "src/core/loader/x.ts",
        "src",
        "docs",
        "src/corefile",
        "SRC/core",
    ]
)


@st.composite
def links(draw: st.DrawFn) -> str:
    core = draw(addresses)
    lead = draw(st.sampled_from(["", "./", "/", ".\\"]))
    tail = draw(st.sampled_from(["", "/", ".md"])) if "." not in core.rpartition("/")[2] else ""
    anchor = draw(st.sampled_from(["", "#Details", "^b1", " #Two words"]))
    target = draw(blanks) + lead + core + tail + anchor + draw(blanks)
    label = draw(st.sampled_from([None, "label", " spaced ", ""]))
    if label is not None:
        target += draw(st.sampled_from(["|", "\\|"])) + label  # `\\|`: the alias escaped in a table
    return draw(st.sampled_from(["", "!"])) + "[[" + target + "]]"


filler = st.sampled_from(["\n", " ", " | ", "text ", "`code [[src/core]]` ", "\n```\n[[src/core]]\n```\n"])
texts = st.lists(st.one_of(links(), filler), min_size=1, max_size=12).map("".join)


@settings(max_examples=sized(150, 400), deadline=None)
@given(texts)
def test_move_and_back_is_byte_exact(text: str) -> None:
    moved, changed = rewrite_links(text, None, {None: BEFORE}, None, MAPPING, ("src/core", "src/engine"))
    back, changed_back = rewrite_links(moved, None, {None: AFTER}, None, BACK, ("src/engine", "src/core"))
    assert back == text
    assert len(changed) == len(changed_back)
    # Only address characters changed: every moved link now resolves where the old one did, moved along.
    old = [
        c.address.path if c.exists and c.address else None
        for c in check_links(extract_links(text), None, {None: BEFORE})
    ]
    new = [
        c.address.path if c.exists and c.address else None
        for c in check_links(extract_links(moved), None, {None: AFTER})
    ]
    assert new == [MAPPING.get(a, a) if a else None for a in old]


def test_the_escaped_alias_in_a_table_keeps_its_backslash() -> None:
    text = "| a | [[src/core\\|the core]] |\n"
    moved, _ = rewrite_links(text, None, {None: BEFORE}, None, MAPPING, ("src/core", "src/engine"))
    assert moved == "| a | [[src/engine\\|the core]] |\n"
