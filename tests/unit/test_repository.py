"""The repository's own files: what a fresh clone gets."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SYMLINK_MODE = "120000"


def test_no_symlink_is_committed() -> None:
    """A symlink of node/node_modules into a working copy's install was committed once (the
    ignore pattern with a trailing slash matches directories only): every fresh clone's
    `make install` then ran npm ci into that other copy's folder."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: no index to read")
    done = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:  # e.g. git refusing a checkout owned by another user
        pytest.skip(f"git could not list the index: {done.stderr.strip()}")
    listed = done.stdout.splitlines()
    links = [line.split("\t", 1)[1] for line in listed if line.startswith(SYMLINK_MODE)]
    assert links == []
