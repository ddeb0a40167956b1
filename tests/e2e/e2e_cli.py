#!/usr/bin/python3
"""End-to-end tests of gjkctl's own defects (issue 19). Same harness and arguments as e2e.py,
whose helpers (Daemon, run, gjkctl, check, reaping) it uses:

    /usr/bin/python3 tests/e2e/e2e_cli.py --group GROUP --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

Groups:
  trajectory_name  `gjkctl trajectory FILE --name N` on a FILE without "name": used to die in
                   free() (exit 134 or 139, nothing printed); now the name is sent (the second
                   query warm-starts from the named cache)"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, demo, gjkctl, gjkctl_json, load_json  # noqa: E402


def nameless_trajectory(tmp):
    """The demo trajectory without its "name" key (no named cache unless --name gives one)."""
    doc = load_json("trajectory.json")
    del doc["name"]
    path = os.path.join(tmp, "nameless.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return path, doc


def group_trajectory_name():
    with tempfile.TemporaryDirectory() as tmp:
        path, _ = nameless_trajectory(tmp)
        d = e2e.Daemon()
        gjkctl(d, "poses", demo("poses.json"))
        # Without --name: no cache, both queries cold.
        for _ in range(2):
            t = gjkctl_json(d, "trajectory", path, "--max-distance", "0.1")
            check(not t["cache_hit"], "a nameless trajectory never hits the cache")
        # With --name (the crash): the name reaches the daemon, the second query is warm.
        t = gjkctl_json(d, "trajectory", path, "--max-distance", "0.1", "--name", "given")
        check(len(t["waypoints"]) == 100 and not t["cache_hit"], "first named query: cold")
        t = gjkctl_json(d, "trajectory", path, "--max-distance", "0.1", "--name", "given")
        check(t["cache_hit"], "second query under --name warm-starts from the named cache")
        # The table form too (its title names the trajectory).
        out, _ = gjkctl(d, "trajectory", path, "--max-distance", "0.1", "--name", "other",
                        "--plot", os.path.join(tmp, "plot.svg"))
        check("100 waypoints" in out, "trajectory table with --name: %r" % out[-300:])
        with open(os.path.join(tmp, "plot.svg")) as f:
            check("arm / other" in f.read(), "the plot's title names the trajectory")
        # --name replacing a name the file has.
        t = gjkctl_json(d, "trajectory", demo("trajectory.json"), "--max-distance", "0.1",
                        "--name", "given")
        check(t["cache_hit"], "--name overrides the file's name")
        check(d.stop() == 0, "gjkd exit status")


GROUPS = {"trajectory_name": group_trajectory_name}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
