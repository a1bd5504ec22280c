"""The board in a real browser: Debian's headless Chromium driven by Selenium through chromedriver
(the driver of the same package, so the two always match; nothing is downloaded).

Marked `browser`: the full tier (.ci/run) runs it; the default tier leaves it out. Without chromium
the tests skip with the reason, except under CI=true, where a missing browser is a failure.
Screenshots go to the folder the first test prints (PYLON_SCREENSHOTS, else a temp folder).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MakeRepo, git, run_cmd
from tests.serve.conftest import Board, make_scene, wait_for

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("PYLON_CHROMIUM", "/usr/bin/chromium")
DRIVER = os.environ.get("PYLON_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1400,1000",
)
# CI keeps this folder as an artefact; each run overwrites the files of the one before.
SHOTS = Path(os.environ.get("PYLON_SCREENSHOTS") or os.path.join(tempfile.gettempdir(), "pylon-serve-screenshots"))


def _missing() -> str | None:
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        return f"headless Chromium needs {CHROMIUM} and {DRIVER} (apt-get install chromium chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed: the full tier's extra has it (scripts/test --full; pip install -e '.[full]')"
    return None


def _chromium(*flags: str) -> Any:
    reason = _missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and the browser tier cannot run: {reason}")
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, *flags):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture
def browser() -> Iterator[Any]:
    driver = _chromium()
    yield driver
    driver.quit()


def shot(driver: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))
    print(f"screenshot: {SHOTS / name}.png")


def css(driver: Any, selector: str, timeout: float = 20) -> Any:
    from selenium.webdriver.common.by import By

    return wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, selector), timeout, selector)


def click(driver: Any, selector: str) -> None:
    """Click the element `selector` names, found again if a live update redrew it meanwhile."""
    from selenium.common.exceptions import StaleElementReferenceException

    for _ in range(20):
        try:
            css(driver, selector)[0].click()
            return
        except StaleElementReferenceException:
            time.sleep(0.1)
    raise AssertionError(f"{selector} kept being redrawn")


def answer(driver: Any) -> str:
    """The code of the page's last action answer ("ok" or an error code), once it came."""
    return str(
        wait_for(lambda: driver.execute_script("return document.body.dataset.lastAction"), what="the action's answer")
    )


def test_without_the_token_the_page_is_refused(
    make_repo: MakeRepo, board_factory: Callable[..., Board], browser: Any
) -> None:
    repo = make_repo({"a.txt": "x\n"})
    board = board_factory(repo)
    browser.get(board.base + "/")
    assert "bad-token" in browser.page_source and "pylon serve" in browser.page_source
    browser.get(board.url)
    css(browser, "#worktrees p")  # with it: the board (no worktrees here)
    assert browser.current_url == board.base + "/"  # the token left the address bar


def test_each_view_shows_the_repository(make_repo: MakeRepo, board_factory: Callable[..., Board], browser: Any) -> None:
    repo = make_repo(name="repo")
    make_scene(repo, articles=200)
    board = board_factory(repo)
    browser.get(board.url)
    rows = css(browser, "#worktree-table tr[data-id]")
    assert [r.get_attribute("data-id") for r in rows] == ["agent-1", "agent-2", "agent-3"]
    cell = '#conflict-matrix td.hit[data-path="src/app.py"]'
    assert css(browser, cell)[0].get_attribute("data-pair") == "agent-1 ↔ agent-2"
    click(browser, cell)
    hunks = css(browser, "#hunks pre")
    assert [h.text for h in hunks][:5] == [
        "<<<<<<< session agent-1",
        "    return 2",
        "=======",
        "    return 3",
        ">>>>>>> session agent-2",
    ]
    click(browser, '#worktree-table tr[data-id="agent-1"]')
    added = css(browser, '#diff[data-id="agent-1"] pre.add')
    assert "+    return 2" in [a.text for a in added]
    assert css(browser, "#diff pre.add span.kw")  # `import`, `return`: highlighted
    shot(browser, "agents")
    browser.get(board.base + "/#timeline")
    guard = css(browser, '#timeline-table tr[data-name="guard-1"]')[0]
    assert "Write docs/intro.md" in guard.text

    # the agent's shell op too (the page may still be adding rows when the first one shows)
    def shown(text: str) -> bool:
        return text in browser.find_element("id", "timeline").text

    for text in ("pylon ws restore guard-1", "rm -rf src/util.py"):
        wait_for(functools.partial(shown, text), what=text)
    assert not browser.find_elements("css selector", "button.act")  # read-only: no action buttons
    shot(browser, "timeline")
    browser.get(board.base + "/#memory")
    wait_for(lambda: browser.execute_script("return document.body.dataset.memory"), what="the memory view")
    ids = set(
        browser.execute_script("return [...document.querySelectorAll('#graph-svg g.node')].map((n) => n.dataset.id)")
    )
    assert {"src", "docs", "lib/"} <= ids and len(ids) < 20  # 197 articles under lib/ fold into one node
    css(browser, "#treemap-svg rect.tile.governed")
    assert "dead-link" in css(browser, "#findings .finding")[0].find_element("xpath", "..").text
    click(browser, '#graph-svg g.node[data-id="lib/"]')
    opened = css(browser, '#graph-svg g.node[data-id="lib/m0/"]')
    assert opened
    browser.find_element("id", "search").send_keys("entry point\n")
    click(browser, '#results .hit[data-address="src/app"]')
    panel = css(browser, '#article[data-address="src/app"] .entry')[0]
    assert "Raised the retry count to 3." in panel.text
    assert "null" not in browser.find_element("id", "article").text.split("\n")  # no stray value shown
    shot(browser, "memory")


def test_a_change_on_disk_reaches_the_open_page(
    make_repo: MakeRepo, board_factory: Callable[..., Board], browser: Any
) -> None:
    repo = make_repo(name="repo")
    paths = make_scene(repo)
    board = board_factory(repo)
    browser.get(board.url)
    row = css(browser, '#worktree-table tr[data-id="agent-2"]')[0]
    assert "1M 0?" in row.text
    time.sleep(1.0)  # the watcher starts in the background
    Path(paths["agent-2"], "notes.txt").write_text("new\n", encoding="utf-8")
    wait_for(lambda: browser.execute_script("return document.body.dataset.events"), what="an event on the page")
    row_text = """return (document.querySelector('#worktree-table tr[data-id="agent-2"]') || {}).textContent"""
    wait_for(lambda: "1M 1?" in (browser.execute_script(row_text) or ""), what="the table redrawn")


def test_apply_and_undo_from_the_page_with_allow_actions(
    make_repo: MakeRepo, board_factory: Callable[..., Board], browser: Any
) -> None:
    repo = make_repo(name="repo")
    make_scene(repo)
    status_before = git(repo, "status", "--porcelain")
    board = board_factory(repo, "--allow-actions")
    browser.get(board.url)
    browser.execute_script("window.confirm = () => true")
    click(browser, '#worktree-table tr[data-id="agent-1"] button[data-action="apply"]')
    assert answer(browser) == "ok"
    log = run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"]
    assert log[0]["made_by"] == "pylon ws apply agent-1" and log[0]["status"] == "done"
    assert (repo / "src" / "app.py").read_text() == "def main():\n    return 2\n"  # git's view below
    assert "?? src/new_file.py" in git(repo, "status", "--porcelain") and " M src/app.py" in git(
        repo, "status", "--porcelain"
    )
    shot(browser, "applied")
    browser.get(board.base + "/#timeline")
    browser.execute_script("window.confirm = () => true; delete document.body.dataset.lastAction")
    click(browser, 'button[data-action="undo"]')
    assert answer(browser) == "ok"
    assert git(repo, "status", "--porcelain") == status_before
    assert run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"][0]["status"] == "undone"


def test_without_allow_actions_the_page_cannot_act(
    make_repo: MakeRepo, board_factory: Callable[..., Board], browser: Any
) -> None:
    repo = make_repo(name="repo")
    make_scene(repo)
    board = board_factory(repo)
    browser.get(board.url)
    css(browser, "#worktree-table tr[data-id]")
    assert not browser.find_elements("css selector", "button.act")
    answer = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const csrf = document.querySelector('meta[name="pylon-csrf"]').content;
        fetch("/api/action", {method: "POST", body: JSON.stringify({action: "apply", id: "agent-1"}),
          headers: {"X-Pylon-Csrf": csrf, "Content-Type": "application/json"}})
          .then(r => r.json().then(d => done([r.status, d.error.code])));""")
    assert answer == [403, "actions-off"]
    assert not any("apply" in e["made_by"] for e in run_cmd("pylon", "ws", "log", "--json", cwd=repo).json()["entries"])


def _holding(profile: Path, needles: dict[str, str]) -> dict[str, list[str]]:
    """needle name -> the profile's files (relative) whose bytes hold it."""
    found: dict[str, list[str]] = {name: [] for name in needles}
    for path in sorted(profile.rglob("*")):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            for name, needle in needles.items():
                if needle.encode() in data:
                    found[name].append(str(path.relative_to(profile)))
    return found


# Chromium's page transition qualifiers (ui/base/page_transition_types.h)
CHAIN_START, CHAIN_END, SERVER_REDIRECT = 0x10000000, 0x20000000, 0x80000000


def test_the_token_is_spent_before_any_browser_store_keeps_it(
    make_repo: MakeRepo, board_factory: Callable[..., Board], tmp_path: Path
) -> None:
    """Visit, use, close; then read the profile Chromium left: the History database (urls, visits
    and their redirect chains), Top Sites and the Sessions files. The board's key is nowhere; the
    login link survives only as the source of a server redirect (History) and the first request of a
    tab (Sessions), and it opens nothing any more."""
    repo = make_repo({"a.txt": "x\n"})
    board = board_factory(repo)
    profile = tmp_path / "profile"
    driver = _chromium(f"--user-data-dir={profile}")
    try:
        driver.get(board.url)
        css(driver, "#worktrees p")
        assert driver.current_url == board.base + "/"
        driver.get(board.base + "/#timeline")
        css(driver, "#timeline")
        cookies = driver.get_cookies()
    finally:
        driver.quit()
    (cookie,) = cookies
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    login = board.url.split("?token=", 1)[1]
    assert board.get(board.url[len(board.base) :], token=False)[0] == 403  # spent by the visit
    held = _holding(profile, {"login": login, "key": board.token, "session": cookie["value"]})
    report: dict[str, list[Any]] = {
        "login link (spent)": held["login"],
        "key": held["key"],
        "session cookie": held["session"],
    }
    history = sqlite3.connect(f"file:{profile / 'Default' / 'History'}?mode=ro", uri=True)
    urls = history.execute("SELECT id, url FROM urls").fetchall()
    visits = history.execute("SELECT id, url, from_visit, transition FROM visits").fetchall()
    top = sqlite3.connect(f"file:{profile / 'Default' / 'Top Sites'}?mode=ro", uri=True)
    report["History urls"] = [u for _, u in urls]
    report["History visits"] = [(v[0], dict(urls)[v[1]], v[2], hex(v[3] & 0xFFFFFFFF)) for v in visits]
    report["Top Sites"] = [u for (u,) in top.execute("SELECT url FROM top_sites")]
    report["Sessions"] = [f for f in held["login"] if f.startswith("Default/Sessions/")]
    print("what the profile keeps:", json.dumps(report, indent=1))
    assert held["key"] == []  # the key never reaches a browser
    assert all(f.startswith("Default/Cookies") for f in held["session"])  # (Chromium stores it encrypted)
    jar = sqlite3.connect(f"file:{profile / 'Default' / 'Cookies'}?mode=ro", uri=True)
    assert jar.execute(
        "SELECT host_key, path, is_httponly, samesite FROM cookies WHERE name = ?", (f"pylon-board-{board.port}",)
    ).fetchall() == [("127.0.0.1", "/", 1, 2)]  # 2: Strict
    assert not any(login in u for u in report["Top Sites"])
    assert (board.base + "/") in report["History urls"]
    for url_id, url in urls:
        if login in url:  # only ever the source of the redirect to the bare address
            for _, _, _, transition in [v for v in visits if v[1] == url_id]:
                assert transition & CHAIN_START and not transition & CHAIN_END, hex(transition)
            redirected = [v for v in visits if v[2] in {w[0] for w in visits if w[1] == url_id}]
            assert redirected and all(
                v[3] & SERVER_REDIRECT and dict(urls)[v[1]] == board.base + "/" for v in redirected
            )


def test_a_worktree_that_left_pylon_is_shown_with_its_conflicts(
    make_repo: MakeRepo, board_factory: Callable[..., Board], browser: Any
) -> None:
    repo = make_repo(name="repo")
    paths = make_scene(repo)
    git(Path(paths["agent-2"]), "switch", "-q", "-c", "own-branch")  # agent-2 leaves pylon's ownership
    board = board_factory(repo)
    browser.get(board.url)
    rows = css(browser, "#worktree-table tr[data-id]")
    assert [r.get_attribute("data-id") for r in rows] == ["agent-1", "agent-3"]
    gone = css(browser, '#worktree-table tr.departed[data-departed="pylon:agent-2"]')[0]
    assert "left pylon" in gone.text and "own-branch" in gone.text and "not on its branch" in gone.text
    assert f"git -C {paths['agent-2']} switch pylon-session-agent-2" in gone.text
    cell = css(browser, '#conflict-matrix tr.departed td.hit[data-path="src/app.py"]')[0]
    assert cell.get_attribute("data-pair") == "agent-1 ↔ pylon:agent-2"
    click(browser, '#conflict-matrix tr.departed td.hit[data-path="src/app.py"]')
    assert "<<<<<<< session agent-1" in [h.text for h in css(browser, "#hunks pre")]
    shot(browser, "departed")


def test_screenshots_folder_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    print(f"browser tier screenshots: {SHOTS}")
    assert shutil.which("git")
