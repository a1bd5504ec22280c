"""pylon/devpaths.py: /dev names devices except /dev/shm, a folder of ordinary files where a checkout
may live (the default tier's scratch folders do, scripts/test), and the guard and canon's hooks agree."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from pylon.canon.agent.toolpaths import counts
from pylon.devpaths import is_device, is_kernel_view
from tests.conftest import git, run_cmd


@pytest.mark.parametrize(
    ("path", "device", "kernel"),
    [
        ("/dev/sda", True, True),
        ("/dev/null", True, True),
        ("/dev/shm", True, True),  # the folder itself: removing it is not removing a project's file
        ("/dev/shm/project/a.txt", False, False),
        ("/dev/shmx/a", True, True),
        ("/proc/self/fd/1", False, True),
        ("/tmp/dev/sda", False, False),
        ("/home/x/dev/null", False, False),
    ],
)
def test_device_and_kernel_paths(path: str, device: bool, kernel: bool) -> None:
    assert (is_device(path), is_kernel_view(path)) == (device, kernel)


@pytest.fixture
def shm_checkout() -> Iterator[Path]:
    """A checkout on /dev/shm (its own folder, removed after), as a person's scratch repository."""
    if not os.path.isdir("/dev/shm") or not os.access("/dev/shm", os.W_OK):
        pytest.skip("this machine has no writable /dev/shm")
    folder = Path(tempfile.mkdtemp(prefix="pylon-devpaths-", dir="/dev/shm"))
    try:
        root = folder / "repo"
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        (root / "src").mkdir()
        (root / "src" / "app.py").write_text("x = 1\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
        yield root
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_checkout_on_dev_shm_is_a_checkout_to_the_guard(shm_checkout: Path) -> None:
    r = run_cmd("pylon", "guard", "check", "--command", "rm -rf src", cwd=shm_checkout)
    assert r.code == 1, r
    assert r.out.startswith("reversible: rm -rf src"), r
    assert "removes src inside the checkout" in r.out
    assert "device" not in r.out
    device = run_cmd("pylon", "guard", "check", "--command", "echo x > /dev/sda", cwd=shm_checkout)
    assert device.out.startswith("irreversible:") and "the device /dev/sda" in device.out, device
    (shm_checkout.parent / "other").mkdir()  # beside the checkout: the person's, not kept by pylon
    outside = run_cmd("pylon", "guard", "check", "--command", f"rm -rf {shm_checkout.parent}/other", cwd=shm_checkout)
    assert outside.out.startswith("irreversible:") and "other, outside the checkout" in outside.out, outside


def test_a_file_on_dev_shm_counts_for_canons_hooks(shm_checkout: Path) -> None:
    assert counts("src/app.py", str(shm_checkout)) == str(shm_checkout / "src" / "app.py")
    assert counts("src/new.py", str(shm_checkout)) == str(shm_checkout / "src" / "new.py")
    assert counts("/dev/null", str(shm_checkout)) is None
