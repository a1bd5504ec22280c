"""Which absolute paths name devices and kernel views rather than files a project could hold."""

from __future__ import annotations

# /dev/shm is a folder of ordinary files (a RAM disk by convention): a checkout can live there, and
# a write to a file in it is a write to a file, not to a device.
_FILES_UNDER_DEV = ("/dev/shm/",)


def is_device(path: str) -> bool:
    """True for a normalized absolute path under /dev that is not in a folder of ordinary files."""
    return path.startswith("/dev/") and not path.startswith(_FILES_UNDER_DEV)


def is_kernel_view(path: str) -> bool:
    """True for a device path or a path under /proc: never a file of a project."""
    return is_device(path) or path.startswith("/proc/")
