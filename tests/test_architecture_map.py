"""docs/architecture.md's module map names every module under pylon/.

The map is the indented block under "## Module map": a line `name/` opens a folder (its scope is
every following line indented deeper), and a module is on the map when its file name (`x.py`)
appears in its folder's scope; a folder whose modules the map lists in words on its `name/` line
(`lint/`, `edits/`) may name them without `.py` (`rules_{article,tree}` counts for both).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _expand(text: str) -> str:
    """`rules_{article,tree}` -> `rules_article rules_tree`."""
    return re.sub(r"(\w*)\{([\w,]+)\}", lambda m: " ".join(m.group(1) + part for part in m.group(2).split(",")), text)


def map_scopes() -> tuple[dict[str, str], set[str]]:
    """(folder -> the map's text in its scope, folders whose modules are named in words)."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = doc.split("## Module map", 1)[1].split("```", 2)[1]
    scopes: dict[str, list[str]] = {"": []}
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        while stack and stack[-1][0] >= indent:
            stack.pop()
        folder = stack[-1][1] if stack else ""
        opened = re.match(r"(\w+)/(\s|$)", line.strip())
        if opened and not (folder == "" and not stack and opened.group(1) == "pylon"):
            folder = f"{folder}{opened.group(1)}/"
            stack.append((indent, folder))
        elif opened:  # the `pylon/` line itself: the root
            stack.append((indent, ""))
        scopes.setdefault(folder, []).append(line)
    texts = {folder: _expand("\n".join(lines)) for folder, lines in scopes.items()}
    in_words = {folder for folder, text in texts.items() if folder and not re.search(r"^\s*\w+\.py\b", text, re.M)}
    return texts, in_words


def test_every_module_is_on_the_map() -> None:
    texts, in_words = map_scopes()
    missing = []
    for path in sorted((ROOT / "pylon").rglob("*.py")):
        rel = path.relative_to(ROOT / "pylon")
        folder = "".join(f"{part}/" for part in rel.parts[:-1])
        if folder not in texts:
            missing.append(f"{folder} (no `{rel.parts[-2]}/` line)")
            continue
        if path.name == "__init__.py" and folder:
            continue  # a package: its `name/` line is its entry
        text = texts[folder]
        named = re.search(rf"(?<![\w/]){re.escape(path.name)}\b", text) or (
            folder in in_words and re.search(rf"(?<![\w/.]){re.escape(path.stem)}\b", text)
        )
        if not named:
            missing.append(str(rel))
    assert len(texts) > 5, "the map was not found under '## Module map' in docs/architecture.md"
    assert not missing, "add these to the module map in docs/architecture.md (one line each):\n" + "\n".join(missing)


def test_every_module_on_the_map_exists() -> None:
    texts, _ = map_scopes()
    stale = [
        f"{folder}{name}"
        for folder, text in texts.items()
        for name in re.findall(r"(?<![\w/.])(\w+\.py)\b", text)
        if not (ROOT / "pylon" / folder / name).exists()
    ]
    assert not stale, f"the module map names modules that do not exist: {stale}"
