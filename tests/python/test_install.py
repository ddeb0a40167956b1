#!/usr/bin/python3
"""Installs the Python client (clients/python) the documented way and uses it from outside the
repository, with no GJKD_* variable and no package index:

    /usr/bin/python3 -m venv --system-site-packages VENV
    VENV/bin/pip install --no-build-isolation --no-deps --no-index ./clients/python

    test_install.py --source-dir . --gjkd BUILD/server/gjkd --python-proto BUILD/python

Checks, in order:
  1. the install succeeds and leaves the source tree as it was (git status --porcelain, and
     every file under clients/python but __pycache__: no build/, *.egg-info or generated file);
  2. the installed package carries gjkd/_generated/gjkd_pb2.py, listed in its RECORD;
  3. from a directory outside the repository (python -I: no source path on sys.path),
     `import gjkd` uses that module; a Request built and serialised with it has the bytes the
     build tree's gjkd_pb2 gives, and parses back;
  4. a Client of the installed package gets a health reply from a gjkd on a free loopback port,
     whose version is the installed package's;
  5. GJKD_PYTHON_PROTO still overrides the packaged module (the build tree's gjkd_pb2 is used),
     and a GJKD_PYTHON_PROTO without gjkd_pb2.py fails the import, naming the variable;
  6. the build hook fails with its message when protoc is missing (PROTOC=a missing path) and
     when clients/python is built away from the repository (no ../../proto).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gjkd_daemon  # noqa: E402
from gjkd_daemon import check  # noqa: E402

STEP_SECONDS = 30  # bound of each venv / pip / probe run (each takes a few seconds)

# Runs in the venv's interpreter with -I from a temporary directory: prints what the harness
# checks as one JSON object. argv: [endpoint or ""].
PROBE = r"""
import importlib.metadata, json, os, sys
import gjkd
req = gjkd.pb.Request(request_id=42)
req.health.SetInParent()
data = req.SerializeToString()
back = gjkd.pb.Request.FromString(data)
out = {"sys_path": sys.path, "gjkd_file": gjkd.__file__, "pb_name": gjkd.pb.__name__,
       "pb_file": gjkd.pb.__file__, "request_hex": data.hex(),
       "parsed": [back.request_id, back.WhichOneof("body")],
       "version": importlib.metadata.version("gjkd"),
       "environment": sorted(k for k in os.environ if k.startswith("GJKD_"))}
client = gjkd.Client(sys.argv[1] or "tcp://127.0.0.1:1", timeout=10.0, retries=1)
out["client_endpoint"] = client.endpoint
if sys.argv[1]:
    with client:
        out["health"] = client.health()
else:
    client.close()
print(json.dumps(out))
"""


def clean_env(**extra):
    """The environment without GJKD_*, PYTHON* or PIP_* variables and without pip's config
    files, so neither the caller's settings nor an index take part."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GJKD_", "PYTHON", "PIP_"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PYTHONNOUSERSITE="1", PIP_NO_INPUT="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.update(extra)
    return env


def run(cmd, cwd, env, expect_ok=True):
    r = subprocess.run(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=STEP_SECONDS)
    if expect_ok and r.returncode != 0:
        raise gjkd_daemon.Failed("%s exited %d:\n%s" % (" ".join(cmd), r.returncode, r.stdout))
    if not expect_ok and r.returncode == 0:
        raise gjkd_daemon.Failed("%s succeeded, expected a failure:\n%s"
                                 % (" ".join(cmd), r.stdout))
    return r.stdout


def pip_install(venv, package_dir, cwd, expect_ok=True, **env):
    return run([os.path.join(venv, "bin", "python"), "-m", "pip", "install",
                "--no-build-isolation", "--no-deps", "--no-index", "--no-cache-dir",
                package_dir], cwd, clean_env(**env), expect_ok)


def tree_state(source_dir):
    """git status --porcelain of the checkout (None outside git) and every file under
    clients/python with its size and mtime, __pycache__ excepted (any run of the package from
    the source tree, such as a concurrent e2e test, writes those)."""
    status = None
    if shutil.which("git"):
        r = subprocess.run(["git", "-C", source_dir, "status", "--porcelain"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=STEP_SECONDS)
        status = r.stdout if r.returncode == 0 else None  # None: not a git checkout
    files = {}
    top = os.path.join(source_dir, "clients", "python")
    for d, dirs, names in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for n in names:
            p = os.path.join(d, n)
            st = os.lstat(p)
            files[os.path.relpath(p, source_dir)] = (st.st_size, st.st_mtime_ns)
    return status, files


def within(path, directory):
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return path == directory or path.startswith(directory + os.sep)


def check_tree_unchanged(before, after, what):
    (status0, files0), (status1, files1) = before, after
    check(status0 == status1, "%s changed git status --porcelain:\nbefore:\n%safter:\n%s"
          % (what, status0, status1))
    added = sorted(set(files1) - set(files0))
    removed = sorted(set(files0) - set(files1))
    modified = sorted(p for p in set(files0) & set(files1) if files0[p] != files1[p])
    check(not (added or removed or modified), "%s changed clients/python: added %s, removed "
          "%s, modified %s" % (what, added, removed, modified))


class Daemon(gjkd_daemon.Daemon):
    """gjkd on a free loopback port; ready() asks health with the build tree's gjkd_pb2 over a
    plain DEALER socket (the harness does not import the package under test)."""

    def __init__(self, gjkd, flat_pb):
        self.pb = flat_pb
        super().__init__(gjkd)

    def ready(self, timeout):
        import zmq
        with zmq.Context.instance().socket(zmq.DEALER) as s:
            s.setsockopt(zmq.LINGER, 0)
            s.connect(self.endpoint)
            req = self.pb.Request(request_id=1)
            req.health.SetInParent()
            s.send(req.SerializeToString())
            if not s.poll(int(timeout * 1000)):
                return False
            return self.pb.Response.FromString(s.recv()).HasField("health")


def probe(venv, cwd, endpoint="", expect_ok=True, **env):
    out = run([os.path.join(venv, "bin", "python"), "-I", "-c", PROBE, endpoint], cwd,
              clean_env(**env), expect_ok)
    return json.loads(out) if expect_ok else out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--gjkd", required=True)
    ap.add_argument("--python-proto", required=True, help="the build tree's python/ directory")
    args = ap.parse_args()
    source = os.path.realpath(args.source_dir)
    package_dir = os.path.join(source, "clients", "python")
    python_proto = os.path.realpath(args.python_proto)
    check(os.path.isfile(os.path.join(python_proto, "gjkd_pb2.py")),
          "--python-proto %s: no gjkd_pb2.py (target gjkd_proto_py)" % python_proto)
    sys.path.insert(0, python_proto)
    import gjkd_pb2 as flat_pb

    with tempfile.TemporaryDirectory(prefix="gjkd-python-install-") as tmp:
        tmp = os.path.realpath(tmp)
        venv = os.path.join(tmp, "venv")
        work = os.path.join(tmp, "work")  # cwd of every step: outside the repository
        os.mkdir(work)

        # 1. venv and install; the source tree as it was.
        before = tree_state(source)
        run([sys.executable, "-m", "venv", "--system-site-packages", venv], work, clean_env())
        pip_install(venv, package_dir, work)
        check_tree_unchanged(before, tree_state(source), "pip install ./clients/python")
        print("ok: installed into a venv; source tree unchanged")

        # 2. the generated module is in the installed package and its RECORD.
        purelib = run([os.path.join(venv, "bin", "python"), "-I", "-c",
                       "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                      work, clean_env()).strip()
        generated = os.path.join(purelib, "gjkd", "_generated", "gjkd_pb2.py")
        check(os.path.isfile(generated), "no %s after the install" % generated)
        records = [os.path.join(purelib, d, "RECORD") for d in os.listdir(purelib)
                   if d.startswith("gjkd-") and d.endswith(".dist-info")]
        check(len(records) == 1, "expected one gjkd-*.dist-info in %s, found %s"
              % (purelib, records))
        with open(records[0]) as f:
            listed = {line.split(",")[0] for line in f}
        for name in ("gjkd/_generated/gjkd_pb2.py", "gjkd/_generated/__init__.py"):
            check(name in listed, "%s not in %s" % (name, records[0]))
        print("ok: %s installed and recorded" % os.path.relpath(generated, venv))

        # 3 and 4. import, build a request, talk to a daemon: no GJKD_* variable, no source
        # path on sys.path.
        daemon = Daemon(args.gjkd, flat_pb)
        try:
            got = probe(venv, work, daemon.endpoint)
            check(daemon.alive(), "gjkd exited during the probe: %s" % daemon.stderr())
        finally:
            rc = daemon.stop()
        check(rc == 0, "gjkd exited %d on SIGTERM: %s" % (rc, daemon.stderr()))
        check(got["environment"] == [], "GJKD_* variables reached the probe: %s"
              % got["environment"])
        inside = [p for p in got["sys_path"] if within(p or work, source)]
        check(not inside, "the source tree is on the installed package's sys.path: %s" % inside)
        check(within(got["gjkd_file"], purelib),
              "gjkd imported from %s, not the venv's %s" % (got["gjkd_file"], purelib))
        check(got["pb_name"] == "gjkd._generated.gjkd_pb2"
              and os.path.realpath(got["pb_file"]) == os.path.realpath(generated),
              "gjkd.pb is %s (%s), not the packaged module" % (got["pb_name"], got["pb_file"]))
        expect = flat_pb.Request(request_id=42)
        expect.health.SetInParent()
        check(got["request_hex"] == expect.SerializeToString().hex(),
              "a health Request serialises to %s with the packaged module, %s with the build "
              "tree's" % (got["request_hex"], expect.SerializeToString().hex()))
        check(got["parsed"] == [42, "health"], "parsed back as %s" % got["parsed"])
        check(got["client_endpoint"] == daemon.endpoint, "client endpoint %s, daemon %s"
              % (got["client_endpoint"], daemon.endpoint))
        health = got["health"]
        check(health["state"] == "serving", "health: %s" % health)
        check(health["version"] == got["version"],
              "the daemon reports version %s, the installed package is %s (the package's comes "
              "from project(gjkd VERSION) in CMakeLists.txt, the daemon's from "
              "core/include/gjk/base.h)" % (health["version"], got["version"]))
        print("ok: import gjkd from %s, Request serialised (%d bytes), health from gjkd %s"
              % (work, len(got["request_hex"]) // 2, health["version"]))

        # 5. GJKD_PYTHON_PROTO stays an explicit override of the packaged module.
        got = probe(venv, work, GJKD_PYTHON_PROTO=python_proto)
        check(got["pb_name"] == "gjkd_pb2"
              and os.path.dirname(os.path.realpath(got["pb_file"])) == python_proto,
              "with GJKD_PYTHON_PROTO=%s gjkd.pb is %s (%s)"
              % (python_proto, got["pb_name"], got["pb_file"]))
        empty = os.path.join(tmp, "empty")
        os.mkdir(empty)
        out = probe(venv, work, expect_ok=False, GJKD_PYTHON_PROTO=empty)
        check("GJKD_PYTHON_PROTO=%s: no gjkd_pb2.py there" % empty in out,
              "an empty GJKD_PYTHON_PROTO failed without naming it:\n%s" % out)
        print("ok: GJKD_PYTHON_PROTO overrides the packaged module; a wrong one is named")

        # 6. the build hook's failures say what is missing.
        before = tree_state(source)
        missing = os.path.join(tmp, "no-such-protoc")
        out = pip_install(venv, package_dir, work, expect_ok=False, PROTOC=missing)
        check("gjkd: protoc not found (%s)" % missing in out,
              "a missing protoc failed without the hook's message:\n%s" % out)
        check_tree_unchanged(before, tree_state(source), "the failed install (no protoc)")
        alone = os.path.join(tmp, "alone", "python")
        shutil.copytree(package_dir, alone, ignore=shutil.ignore_patterns("__pycache__"))
        out = pip_install(venv, alone, work, expect_ok=False)
        check("is missing. The Python client is built from a checkout of the gjkd repository"
              in out, "clients/python away from the repository failed without the hook's "
              "message:\n%s" % out)
        print("ok: the build fails with its message without protoc or without the repository")


if __name__ == "__main__":
    try:
        main()
    except gjkd_daemon.Failed as e:
        print("FAIL:", e, file=sys.stderr)
        sys.exit(1)
    finally:
        gjkd_daemon.reap_all()
