#!/usr/bin/python3
"""Every program's command line (issue 19): --help (and -h) prints the usage on stdout and
exits 0 without doing any work; an unknown option exits 2 with a one-line error on stderr.

    /usr/bin/python3 tests/cli_help.py [--gjkd PATH] [--gjkctl PATH] [PROGRAM...]

PROGRAMs get the generic checks (empty arguments are skipped: tests/cli.cmake passes the
benchmarks only when they are built). The daemon and gjkctl also get theirs:
  gjkd    --help with an endpoint whose port this script holds and a state directory: exit 0,
          neither touched (binding would have failed: exit 1); the same for an unknown option
  gjkctl  COMMAND --help for every command, against an endpoint nobody serves: exit 0 at
          once with the usage (any request would time out: exit 3); keygen NAME --help
          writes no key; COMMAND --no-such-option exits 2
Regressions: bench_e2e --help ran the whole benchmark (its loop read options in pairs only);
gjkctl's, gjk-cases' and bench_peers' errors took two or more lines (gjkctl's "--no-such-option"
as the last argument said "needs a value"), bench_e2e and bench_curve exited 1 on an unknown
option, gjkctl -h was taken for a command."""

import argparse
import os
import signal
import socket
import subprocess
import sys
import tempfile

TIMEOUT = 30  # seconds per run: --help must not start the work (bench_e2e's takes minutes)
FAILURES = []


def run(cmd, cwd=None):
    """(exit status, stdout, stderr); status None if it ran past TIMEOUT. Each run is its own
    process group, killed whole on a timeout: a program doing its work despite --help may have
    started children (bench_e2e starts a gjkd)."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return None, "", ""
    return p.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def expect(cond, what):
    if not cond:
        FAILURES.append(what)
        print("FAIL " + what)
    return cond


def check_help(cmd, name, cwd=None):
    rc, out, err = run(cmd, cwd)
    label = "%s: %s" % (name, " ".join(os.path.basename(c) if i == 0 else c
                                         for i, c in enumerate(cmd)))
    if not expect(rc is not None, "%s: no exit within %d s (doing work?)" % (label, TIMEOUT)):
        return
    expect(rc == 0, "%s: exit %s, expected 0 (stderr %r)" % (label, rc, err[-300:]))
    expect("usage" in out.lower(), "%s: no usage on stdout (got %r)" % (label, out[:200]))
    expect(err == "", "%s: stderr not empty: %r" % (label, err[-300:]))


def check_unknown(cmd, name, cwd=None):
    rc, out, err = run(cmd, cwd)
    label = "%s: %s" % (name, " ".join(os.path.basename(c) if i == 0 else c
                                         for i, c in enumerate(cmd)))
    if not expect(rc is not None, "%s: no exit within %d s" % (label, TIMEOUT)):
        return
    expect(rc == 2, "%s: exit %s, expected 2" % (label, rc))
    lines = err.splitlines()
    expect(len(lines) == 1 and err.endswith("\n") and lines[0].strip() != "",
           "%s: expected a one-line error on stderr, got %r" % (label, err))
    expect(out == "", "%s: stdout not empty: %r" % (label, out[:200]))


def generic(path):
    name = os.path.basename(path)
    check_help([path, "--help"], name)
    check_help([path, "-h"], name)
    check_unknown([path, "--no-such-option"], name)
    check_unknown([path, "--no-such-option", "value"], name)


def held_port():
    """A loopback TCP port bound and listening here, so that nobody else can bind it."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    return s


def daemon(path):
    generic(path)
    with tempfile.TemporaryDirectory() as tmp, held_port() as held:
        state = os.path.join(tmp, "state")
        args = ["--endpoint", "tcp://127.0.0.1:%d" % held.getsockname()[1], "--state-dir", state,
                "--demo"]
        check_help([path] + args + ["--help"], "gjkd")
        check_help([path, "--help"] + args, "gjkd")
        expect(not os.path.exists(state), "gjkd --help created its state directory")
        check_unknown([path] + args + ["--no-such-option"], "gjkd")
        expect(not os.path.exists(state), "gjkd --no-such-option created its state directory")
        # The check can fail: the same start without --help does bind (and fails on the port).
        rc, _, err = run([path] + args + ["--log-level", "error"])
        expect(rc not in (0, 2, None) and "in use" in err,
               "gjkd without --help on a held port: exit %s, stderr %r (the check above would "
               "not notice a bind)" % (rc, err[-300:]))


COMMANDS = [["health"], ["stats"], ["scene"], ["scene", "--export", "out.json"],
            ["load", "scene.json"], ["remove", "robot", "arm"], ["poses", "poses.json"],
            ["query", "--all"], ["trajectory", "t.json", "--name", "n", "--plot", "p.svg"],
            ["keygen", "k"], ["load-urdf", "r.urdf", "--package-path", "p", "--dry-run"],
            ["urdf-to-proto", "r.urdf"], ["urdf-to-json", "r.urdf"]]


def ctl(path):
    generic(path)
    with tempfile.TemporaryDirectory() as tmp, held_port() as held:
        # A port that accepts TCP but never speaks ZMTP: any request would time out (exit 3).
        base = [path, "--endpoint", "tcp://127.0.0.1:%d" % held.getsockname()[1], "--timeout",
                "0.2", "--retries", "0"]
        for cmd in COMMANDS:
            check_help(base + cmd + ["--help"], "gjkctl", cwd=tmp)
            check_help(base + cmd + ["-h"], "gjkctl", cwd=tmp)
            check_unknown(base + cmd + ["--no-such-option"], "gjkctl", cwd=tmp)
        expect(os.listdir(tmp) == [], "gjkctl COMMAND --help wrote %r" % os.listdir(tmp))
        # Without --help the same command does reach for the daemon (the check can fail).
        rc, _, _ = run(base + ["health"])
        expect(rc == 3, "gjkctl health on a silent port: exit %s, expected 3" % rc)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gjkd", default="")
    ap.add_argument("--gjkctl", default="")
    ap.add_argument("programs", nargs="*")
    args = ap.parse_args()
    if args.gjkd:
        args.gjkd = os.path.abspath(args.gjkd)
    if args.gjkctl:
        args.gjkctl = os.path.abspath(args.gjkctl)
    checked = []
    if args.gjkd:
        daemon(args.gjkd)
        checked.append("gjkd")
    if args.gjkctl:
        ctl(args.gjkctl)
        checked.append("gjkctl")
    for p in args.programs:
        if p:
            generic(os.path.abspath(p))
            checked.append(os.path.basename(p))
    if not checked:
        print("FAIL no program to check")
        return 1
    if FAILURES:
        print("FAILED cli_help: %d checks" % len(FAILURES))
        return 1
    print("passed cli_help: %s" % ", ".join(checked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
