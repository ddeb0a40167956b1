"""Finds and imports the generated gjkd_pb2 (protoc --python_out, built into the build tree).

Search order:
  1. the directory in the environment variable GJKD_PYTHON_PROTO (e.g. build/python);
  2. an importable gjkd_pb2 already on sys.path;
  3. build/python and build-*/python next to the repository root this package lives in.
"""

import glob
import importlib
import os
import sys


def _load():
    env = os.environ.get("GJKD_PYTHON_PROTO")
    if env:
        if not os.path.isfile(os.path.join(env, "gjkd_pb2.py")):
            raise ImportError("GJKD_PYTHON_PROTO=%s: no gjkd_pb2.py there (build the target "
                              "gjkd_proto_py: cmake --build BUILD --target gjkd_proto_py)" % env)
        if env not in sys.path:
            sys.path.insert(0, env)
        return importlib.import_module("gjkd_pb2")
    try:
        return importlib.import_module("gjkd_pb2")
    except ImportError:
        pass
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    for d in [os.path.join(root, "build", "python")] + sorted(
            glob.glob(os.path.join(root, "build*", "python"))):
        if os.path.isfile(os.path.join(d, "gjkd_pb2.py")):
            sys.path.insert(0, d)
            return importlib.import_module("gjkd_pb2")
    raise ImportError("gjkd_pb2 not found: set GJKD_PYTHON_PROTO to the build tree's python/ "
                      "directory (e.g. export GJKD_PYTHON_PROTO=$PWD/build/python)")


pb = _load()
