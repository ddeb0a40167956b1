"""Starting, waiting for and reaping gjkd for the Python test harnesses (tests/e2e/e2e.py,
tests/e2e/e2e_security.py, tests/reliability/reliability.py): one copy of the start-up loop,
the stop with a bounded wait and the reaping of every process a harness started.

The daemon runs as GJKD_WRAPPER (split like a shell command, e.g. "valgrind -q") followed by
its path and arguments; under a wrapper the waits for start-up and exit are longer (memcheck
loads the demo scene and checks for leaks at exit many times slower)."""

import os
import shlex
import signal
import socket
import subprocess
import tempfile
import time

PROCS = []  # every process started by a harness, reaped at exit


class Failed(AssertionError):
    pass


def check(cond, message):
    if not cond:
        raise Failed(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def content_revision(data):
    """The revision gjkd gives a --scene file's bytes (server/scene.h), computed independently:
    FNV-1a 64, folded to 53 bits, never 0."""
    h = 14695981039346656037
    for b in data:
        h = ((h ^ b) * 1099511628211) & (2**64 - 1)
    r = (h ^ (h >> 53)) & (2**53 - 1)
    return r or 1


def wrapper():
    """The command GJKD_WRAPPER puts before gjkd (empty list: none)."""
    return shlex.split(os.environ.get("GJKD_WRAPPER", ""))


def wrapped():
    """True when gjkd runs under a wrapper (slower: workloads and waits are sized for it)."""
    return bool(wrapper())


def reap_all():
    for p in PROCS:
        if p.poll() is None:
            p.kill()
        try:
            p.wait(5)
        except subprocess.TimeoutExpired:
            pass


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise Failed("no VmRSS for pid %d" % pid)


def cpu_seconds(pid):
    """User + system CPU time of a process so far."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Daemon:
    """A gjkd on a free loopback port (demo scene unless demo=False). Subclasses give
    ready(timeout): one health round trip that says whether the daemon answers."""

    READY_SECONDS = 20.0
    STOP_SECONDS = 20.0

    def __init__(self, gjkd, *extra, demo=True, state_dir=None, stream=False):
        last = ""
        slow = 6.0 if wrapped() else 1.0
        for _ in range(5):  # the port was taken between free_port() and bind: another one
            self.port = free_port()
            self.endpoint = "tcp://127.0.0.1:%d" % self.port
            # Every daemon has its own HTTP endpoint (metrics, probes): the default port
            # would be shared by every test running at once.
            self.http = "127.0.0.1:%d" % free_port()
            cmd = wrapper() + [gjkd, "--endpoint", self.endpoint, "--http", self.http,
                               "--log-level", "warn"]
            if demo:
                cmd.append("--demo")
            if state_dir:
                cmd += ["--state-dir", state_dir]
            if stream:
                self.pose_endpoint = "tcp://127.0.0.1:%d" % free_port()
                self.monitor_endpoint = "tcp://127.0.0.1:%d" % free_port()
                cmd += ["--pose-endpoint", self.pose_endpoint,
                        "--monitor-endpoint", self.monitor_endpoint]
            cmd += list(extra)
            self.log = tempfile.TemporaryFile()
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=self.log)
            PROCS.append(self.proc)
            if self._wait_ready(slow * self.READY_SECONDS):
                return
            last = self.stderr()
            if "in use" not in last:
                break
        raise RuntimeError("gjkd did not start: %s" % last.strip())

    def ready(self, timeout):
        raise NotImplementedError

    def http_get(self, path, timeout=10.0):
        """(status, body) of GET http://<self.http><path>."""
        import urllib.error
        import urllib.request
        try:
            with urllib.request.urlopen("http://%s%s" % (self.http, path), timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def _wait_ready(self, timeout):
        # Each attempt waits long enough for a (CURVE) handshake to complete: an abandoned
        # one is counted as refused by the daemon.
        attempt = 2.0 if wrapped() else 0.2
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            if self.ready(attempt):
                return True
        return False

    def stderr(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def rss(self):
        return rss_kib(self.proc.pid)

    def alive(self):
        return self.proc.poll() is None

    def stop(self, sig=signal.SIGTERM, timeout=None):
        """Sends sig, waits (bounded) and returns the exit status."""
        if timeout is None:
            timeout = self.STOP_SECONDS * (6.0 if wrapped() else 1.0)
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise Failed("gjkd did not exit within %g s of signal %d" % (timeout, sig))
