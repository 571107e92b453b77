"""`make checks`: the stream's manual checks (docs/contracts.md STREAM-5..7, printed as
MV-E1..3) on a throwaway daemon of their own, which
never touches a running daemon's goals. Run at the default version only: the checks read the
cognitive stream, which no protocol version changes (the version matrix runs everywhere else)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from bot.config.loader import EMBEDDED_VERSIONS
from tests.conftest import ROOT

pytestmark = pytest.mark.one_version(reason="the manual checks drive the daemon's API and process, not the protocol")


def test_mv_checks_pass_on_a_throwaway_daemon_and_leave_nothing_running(tmp_path):
    # From an empty folder, with no MCBOT_* of the caller's: the check daemon's set-up is its own.
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCBOT_")} | {"PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-m", "bot.tooling.mv_checks", "--version", EMBEDDED_VERSIONS[0]],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    for check in ("MV-E1: PASS", "MV-E2: PASS", "MV-E3: PASS"):
        assert check in out.stdout, out.stdout
    assert "all checks PASS" in out.stdout
