"""Finds and imports gjkd_pb2, the protobuf module generated from proto/gjkd/v1/gjkd.proto.

Search order (the first that exists is used):
  1. GJKD_PYTHON_PROTO, if set: the directory holding a build tree's gjkd_pb2.py (e.g.
     build/python, target gjkd_proto_py). An explicit override, for running the package from
     a source tree against a build tree (the e2e tests, docker/farm-client.py); when it is set
     and the file is missing, the import fails rather than falling through.
  2. gjkd._generated.gjkd_pb2: the module an installed package carries (pip install
     ./clients/python generates it at build time, see clients/python/setup.py).
  3. an importable top-level gjkd_pb2 on sys.path.
  4. build/python and build*/python of the repository, when this package is still in its
     source tree (clients/python/gjkd beside proto/gjkd/v1/gjkd.proto).
The packaged module and the build tree's come from the same protoc command: both describe the
file "gjkd.proto", so a process may load both.
"""

import glob
import importlib
import os
import sys

_PACKAGED = __name__.rpartition(".")[0] + "._generated.gjkd_pb2"
_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def _import_missing_ok(name):
    """The module, or None when it (or its package) does not exist; other errors propagate
    (e.g. a gjkd_pb2 too new for the installed protobuf runtime)."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        parts = name.split(".")
        if e.name in [".".join(parts[:i]) for i in range(1, len(parts) + 1)]:
            return None
        raise


def _import_from(directory):
    if directory not in sys.path:
        sys.path.insert(0, directory)
    return importlib.import_module("gjkd_pb2")


def _load():
    env = os.environ.get("GJKD_PYTHON_PROTO")
    if env:
        if not os.path.isfile(os.path.join(env, "gjkd_pb2.py")):
            raise ImportError("GJKD_PYTHON_PROTO=%s: no gjkd_pb2.py there (build the target "
                              "gjkd_proto_py: cmake --build BUILD --target gjkd_proto_py, or "
                              "unset the variable to use the installed package's module)" % env)
        return _import_from(env)
    tried = ["GJKD_PYTHON_PROTO (not set)",
             "%s (present once the package is installed: pip install --no-build-isolation "
             "--no-deps --no-index ./clients/python)" % _PACKAGED,
             "gjkd_pb2 on sys.path"]
    for name in (_PACKAGED, "gjkd_pb2"):
        module = _import_missing_ok(name)
        if module is not None:
            return module
    if os.path.isfile(os.path.join(_ROOT, "proto", "gjkd", "v1", "gjkd.proto")):
        build_dirs = [os.path.join(_ROOT, "build", "python")] + sorted(
            glob.glob(os.path.join(_ROOT, "build*", "python")))
        for d in build_dirs:
            if os.path.isfile(os.path.join(d, "gjkd_pb2.py")):
                return _import_from(d)
        tried.append("%s and %s" % (build_dirs[0], os.path.join(_ROOT, "build*", "python")))
    raise ImportError("gjkd: the generated protobuf module gjkd_pb2 was not found; looked "
                      "for\n  " + "\n  ".join(tried) + "\nInstall the package, or build the "
                      "target gjkd_proto_py and export GJKD_PYTHON_PROTO=BUILD/python.")


pb = _load()
