"""gjkd — Python client of the gjkd distance-query daemon.

Runs on Debian's python3-zmq and python3-protobuf (/usr/bin/python3). Install it from a checkout
of the gjkd repository (no package index is used; the build runs protoc and puts the generated
module into the package as gjkd._generated.gjkd_pb2):

    /usr/bin/python3 -m venv --system-site-packages VENV
    VENV/bin/pip install --no-build-isolation --no-deps --no-index ./clients/python

Then `import gjkd` needs no environment variable. Run from the source tree instead
(PYTHONPATH=clients/python), the package finds the build tree's gjkd_pb2 through
GJKD_PYTHON_PROTO=BUILD/python or in build*/python; GJKD_PYTHON_PROTO also overrides an
installed package's own module (_proto.py gives the order).

    import gjkd
    with gjkd.Client("tcp://127.0.0.1:7471") as c:
        c.load_scene("examples/demo/scene.json")
        c.set_link_poses("arm", poses)                       # poses: one per link
        s = c.query_state(max_distance=0.1, mode="all")
        print(s["min_distance"], s["closest"]["normal"])

With CURVE: gjkd.Client(endpoint, server_key="server.pub", secret_key="client.key").
"""

from ._proto import pb
from .client import (DEFAULT_ENDPOINT, Client, GjkdError, Monitor, PoseStream, Timeout,
                     Unauthenticated, load_key, status_name)
from .documents import DocumentError

__all__ = ["Client", "PoseStream", "Monitor", "GjkdError", "Timeout", "Unauthenticated",
           "DocumentError", "status_name", "load_key", "DEFAULT_ENDPOINT", "pb"]
