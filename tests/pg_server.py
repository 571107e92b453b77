"""A real PostgreSQL server for tests, from the Debian package's binaries: one data directory
in a fresh temporary directory, trust auth on 127.0.0.1 only, a free loopback port, no unix
socket. As root it runs as `nobody` (initdb refuses root). Stopping it removes everything;
a test session killed outright still stops the server (the parent-death signal), leaving
only its temporary directory behind.

`find_binaries()` is None when no PostgreSQL is installed: the caller skips and says so.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg

from bot.runtime.server import free_port

BIN_GLOB = "/usr/lib/postgresql/*/bin"
MISSING = (
    "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/postgres): "
    "`make test` installs Debian's postgresql package (scripts/install_debian_package.sh, "
    "needs root and apt-get)"
)
RUN_AS = "nobody"  # initdb and postgres refuse to run as root
START_TIMEOUT_S = 30.0
# Durability buys nothing in a throwaway cluster; these settings make it start and write fast.
FAST = (
    "fsync=off",
    "synchronous_commit=off",
    "full_page_writes=off",
    "unix_socket_directories=",
    "max_connections=200",
    "log_min_messages=warning",
)


def find_binaries() -> Path | None:
    """The newest installed version's bin directory holding initdb and postgres."""
    found = [Path(d) for d in glob.glob(BIN_GLOB) if (Path(d) / "initdb").exists() and (Path(d) / "postgres").exists()]
    return max(found, key=lambda d: int(d.parent.name) if d.parent.name.isdigit() else 0) if found else None


def _as_server_user(cmd: list[str], pdeathsig: bool) -> list[str]:
    """`cmd` run by setpriv: as RUN_AS when we are root, stopped (SIGINT: fast shutdown)
    when the process that started it dies."""
    if shutil.which("setpriv") is None:
        if os.geteuid() == 0:
            raise RuntimeError("running as root needs setpriv (util-linux) to start PostgreSQL as another user")
        return cmd
    prefix = ["setpriv"]
    if pdeathsig:
        prefix += ["--pdeathsig", "INT"]
    if os.geteuid() == 0:
        user = pwd.getpwnam(RUN_AS)
        prefix += [f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    return prefix + cmd


class PgServer:
    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="mcbot-pg-"))  # /tmp itself: `nobody` can reach it
        self.data = self.root / "data"
        self.log = self.root / "postgres.log"
        self.port = 0
        self._proc: subprocess.Popen[bytes] | None = None
        if os.geteuid() == 0:
            user = pwd.getpwnam(RUN_AS)
            os.chown(self.root, user.pw_uid, user.pw_gid)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{dbname}"

    def start(self) -> PgServer:
        try:
            self._initdb()
            for _attempt in range(3):  # the free port may be taken before postgres binds it
                self.port = free_port()
                if self._launch():
                    return self
            raise RuntimeError(f"PostgreSQL did not start:\n{self._log_tail()}")
        except BaseException:
            self.stop()
            raise

    def _initdb(self) -> None:
        cmd = [
            str(self.bin_dir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        ]
        done = subprocess.run(_as_server_user(cmd, pdeathsig=False), capture_output=True, text=True, cwd=self.root)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed ({done.returncode}): {done.stderr.strip()}")
        # Only TCP on loopback, trusted: no password exists in this throwaway cluster.
        (self.data / "pg_hba.conf").write_text("host all all 127.0.0.1/32 trust\n", encoding="utf-8")

    def _launch(self) -> bool:
        cmd = [str(self.bin_dir / "postgres"), "-D", str(self.data), "-h", "127.0.0.1", "-p", str(self.port)]
        for setting in FAST:
            cmd += ["-c", setting]
        with open(self.log, "ab") as log:
            self._proc = subprocess.Popen(
                _as_server_user(cmd, pdeathsig=True), stdout=log, stderr=log, stdin=subprocess.DEVNULL, cwd=self.root
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self._proc = None
                return False
            try:
                psycopg.connect(self.url(), connect_timeout=2).close()
                return True
            except psycopg.OperationalError:
                time.sleep(0.05)  # start-up takes a fraction of a second
        raise RuntimeError(f"PostgreSQL did not accept connections within {START_TIMEOUT_S:.0f} s:\n{self._log_tail()}")

    def create_database(self) -> str:
        """A new empty database; returns its URL. Tests each take one, so nothing carries over."""
        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0')
        return self.url(name)

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(encoding="utf-8", errors="replace").splitlines()[-20:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        """Fast shutdown (SIGINT, as `pg_ctl stop -m fast`), immediate if that hangs, then
        the temporary directory goes."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGQUIT)  # immediate shutdown
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        shutil.rmtree(self.root, ignore_errors=True)
