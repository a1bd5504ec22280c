"""The board reads through the same boundary as `pylon mcp` where a request names what to read
(pylon/serve/data.py: `article`, `graph` by address): nothing outside the checkout is shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from pylon.errors import PylonError
from pylon.serve.data import Board, article, graph
from tests.conftest import MakeRepo, run_cmd


def test_an_article_linked_out_of_the_checkout_is_not_read(make_repo: MakeRepo, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("---\ncapsule: outside\n---\nsecret body\n")
    root = make_repo({"src/app.py": "x = 1\n"})
    assert run_cmd("canon", "write", "src/app.py", "--capsule", "Inside.", "--body", "b", cwd=root).code == 0
    (root / ".canon" / "articles" / "leak.md").symlink_to(secret)
    board = Board(str(root))
    assert article(board, {"address": "src/app.py"})["capsule"] == "Inside."
    with pytest.raises(PylonError) as caught:
        article(board, {"address": "leak"})
    assert caught.value.code == "path-outside" and "secret body" not in str(caught.value.message)
    # The person's CLI follows the same link (a store they made is theirs to shape).
    assert "secret body" in run_cmd("canon", "read", "leak", cwd=root).out
    for address in ("../../etc/passwd", "/etc/passwd"):
        try:
            doc = graph(board, {"address": address})
        except PylonError as exc:
            assert "root:" not in exc.message
        else:
            assert "root:" not in str(doc)
