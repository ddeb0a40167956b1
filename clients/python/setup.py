"""Build hook of the gjkd Python client (the metadata is in pyproject.toml).

Install from a checkout of the gjkd repository, with Debian's setuptools, protobuf and pyzmq
(no package index is needed or asked):

    /usr/bin/python3 -m venv --system-site-packages VENV
    VENV/bin/pip install --no-build-isolation --no-deps --no-index ./clients/python

What this file adds to a plain setuptools build:
  - build_py runs protoc on proto/gjkd/v1/gjkd.proto of the repository this directory belongs
    to (clients/python/../../proto) and writes the module into the build directory as
    gjkd/_generated/gjkd_pb2.py, so the installed package carries its own wire contract
    (gjkd/_proto.py imports it). The command is the one proto/CMakeLists.txt runs for
    BUILD/python/gjkd_pb2.py, so both modules describe the same file ("gjkd.proto") and may be
    loaded in one process. PROTOC names another protoc (default: protoc on PATH).
  - setuptools' build directory and the .egg-info go to a temporary directory outside the
    source tree, removed when the build ends: pip (>= 21.3) builds a local directory in place,
    and generated files live in build trees only (git status stays clean after an install).
  - the version is the CMake project's (project(gjkd VERSION ...) in the top CMakeLists.txt),
    the same one the daemon reports in its health reply.
The relative paths need the build to run here, inside the checkout: pip >= 21.3 does that; an
sdist does not carry the .proto and cannot be built on its own.
"""

import atexit
import os
import re
import shutil
import subprocess
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import SetupError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PROTO_DIR = os.path.join(ROOT, "proto", "gjkd", "v1")
PROTO = os.path.join(PROTO_DIR, "gjkd.proto")
GENERATED = os.path.join("gjkd", "_generated")  # inside the package, relative to build_lib


def _repository_file(path):
    """path (in the gjkd repository around this directory), or a SetupError saying why not."""
    if not os.path.isfile(path):
        raise SetupError(
            "gjkd: %s is missing. The Python client is built from a checkout of the gjkd "
            "repository, in place (pip >= 21.3 builds a local directory in place: pip install "
            "--no-build-isolation ./clients/python); a copy of clients/python alone or an "
            "sdist does not carry the repository's CMakeLists.txt and proto/" % path)
    return path


def _project_version():
    path = _repository_file(os.path.join(ROOT, "CMakeLists.txt"))
    with open(path, encoding="utf-8") as f:
        m = re.search(r"project\(\s*gjkd\s+VERSION\s+([0-9][0-9.]*)", f.read())
    if not m:
        raise SetupError("gjkd: no 'project(gjkd VERSION x.y.z' in %s" % path)
    return m.group(1)


class build_py_with_proto(build_py):
    """build_py, then protoc --python_out into BUILD_LIB/gjkd/_generated."""

    def run(self):
        super().run()
        if self.editable_mode:
            # An editable install runs the package from the source tree, which finds the
            # build tree's gjkd_pb2 (gjkd/_proto.py); a module generated here would be dropped.
            return
        self._generate()

    def _generate(self):
        protoc_name = os.environ.get("PROTOC") or "protoc"
        protoc = shutil.which(protoc_name)
        if protoc is None:
            raise SetupError("gjkd: protoc not found (%s): install Debian's protobuf-compiler "
                             "(apt-get install protobuf-compiler) or set PROTOC to its path"
                             % protoc_name)
        out = os.path.join(self.build_lib, GENERATED)
        os.makedirs(out, exist_ok=True)
        cmd = [protoc, "--proto_path=" + PROTO_DIR, "--python_out=" + out, PROTO]
        self.announce("running " + " ".join(cmd), level=2)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise SetupError("gjkd: %s failed (exit %d):\n%s"
                             % (" ".join(cmd), r.returncode, r.stdout))
        if not os.path.isfile(os.path.join(out, "gjkd_pb2.py")):
            raise SetupError("gjkd: %s wrote no gjkd_pb2.py into %s" % (" ".join(cmd), out))
        with open(os.path.join(out, "__init__.py"), "w", encoding="utf-8") as f:
            f.write('"""Generated at build time by protoc from proto/gjkd/v1/gjkd.proto '
                    '(see clients/python/setup.py)."""\n')

    def get_outputs(self, include_bytecode=1):
        outputs = super().get_outputs(include_bytecode)
        if self.editable_mode:
            return outputs
        base = os.path.join(self.build_lib, GENERATED)
        return outputs + [os.path.join(base, "__init__.py"), os.path.join(base, "gjkd_pb2.py")]


def _scratch_dir():
    """A build directory outside the source tree, removed when this build process ends."""
    d = tempfile.mkdtemp(prefix="gjkd-python-build-")
    atexit.register(shutil.rmtree, d, ignore_errors=True)
    return d


_repository_file(PROTO)  # before anything else: the build needs the wire contract
_scratch = _scratch_dir()
setup(
    version=_project_version(),
    cmdclass={"build_py": build_py_with_proto},
    # Defaults only: a --build-base or --egg-base on the command line still wins.
    options={"build": {"build_base": os.path.join(_scratch, "build")},
             "egg_info": {"egg_base": _scratch}},
)
