#!/usr/bin/python3
"""End-to-end tests of gjkctl's own defects (issue 19). Same harness and arguments as e2e.py,
whose helpers (Daemon, run, gjkctl, check, reaping) it uses:

    /usr/bin/python3 tests/e2e/e2e_cli.py --group GROUP --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

Groups:
  trajectory_name  `gjkctl trajectory FILE --name N` on a FILE without "name": used to die in
                   free() (exit 134 or 139, nothing printed); now the name is sent (the second
                   query warm-starts from the named cache)
  numbers          every double of `gjkctl --json` (query, trajectory) is bit for bit the
                   double of the reply, as the Python client decodes it from the protobuf
                   (cJSON's printer used to keep 15 digits whenever they came within
                   DBL_EPSILON: up to 2 ulp off), a double always reads back as a double and an
                   integer as an integer; `gjkctl scene --export` reads back to the stored
                   scene exactly"""

import json
import os
import struct
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


# ------------------------------------------------------------------ numbers

def bits(x):
    return struct.pack("<d", x)


def same_numbers(cli, ref, path, counts):
    """cli (gjkctl's JSON, parsed) holds every value of ref (the Python client's dict) at the
    same place: doubles bit for bit and as JSON doubles, integers as JSON integers."""
    if isinstance(ref, dict):
        check(isinstance(cli, dict), "%s: expected an object, gjkctl gave %r" % (path, cli))
        for k, v in ref.items():
            check(k in cli, "%s: gjkctl has no %r" % (path, k))
            same_numbers(cli[k], v, "%s.%s" % (path, k), counts)
    elif isinstance(ref, (list, tuple)):
        check(isinstance(cli, list) and len(cli) == len(ref),
              "%s: expected %d values, gjkctl gave %r" % (path, len(ref), cli))
        for i, (a, b) in enumerate(zip(cli, ref)):
            same_numbers(a, b, "%s[%d]" % (path, i), counts)
    elif isinstance(ref, float):
        check(isinstance(cli, float), "%s: the double %r printed as %r (not a JSON double)"
              % (path, ref, cli))
        check(bits(cli) == bits(ref), "%s: gjkctl printed %s, the reply holds %s"
              % (path, cli.hex(), ref.hex()))
        counts[0] += 1
    elif isinstance(ref, bool) or ref is None or isinstance(ref, str):
        check(cli == ref and type(cli) is type(ref), "%s: %r vs %r" % (path, cli, ref))
    else:  # an integer
        check(type(cli) is int and cli == ref, "%s: the integer %r printed as %r"
              % (path, ref, cli))


def group_numbers():
    with tempfile.TemporaryDirectory() as tmp:
        path, doc = nameless_trajectory(tmp)
        waypoints = [w["link_poses"] for w in doc["waypoints"]]
        d = e2e.Daemon()
        gjkctl(d, "poses", demo("poses.json"))
        with d.client() as c:
            ref = c.query_state(max_distance=0.1, mode="all")
            again = c.query_state(max_distance=0.1, mode="all")
            check(ref == again, "the state query answers the same twice (else nothing to "
                  "compare)")
            tref = c.query_trajectory(doc["robot"], waypoints, max_distance=0.1, mode="all")
        counts = [0]
        q = gjkctl_json(d, "query", "--all", "--max-distance", "0.1")
        check(len(ref["pairs"]) >= 2, "the demo pose has pairs within 0.1 m")
        same_numbers(q, ref, "query", counts)
        t = gjkctl_json(d, "trajectory", path, "--all", "--max-distance", "0.1")
        same_numbers(t, tref, "trajectory", counts)
        # Hundreds of doubles with up to 17 digits: with 15-digit printing some differ.
        check(counts[0] > 1000, "compared %d doubles" % counts[0])

        # The scene export reads back to the stored scene, every double exact.
        out, _ = gjkctl(d, "scene", "--export", "-")
        exported = json.loads(out)
        check(type(exported["revision"]) is int, "revision is an integer")
        with d.client() as c:
            stored = c.scene_summary(include_scene=True)["scene"]
        back = e2e.gjkd.documents.scene_to_pb(exported)
        back.revision = stored.revision = 0
        check(back.SerializeToString(deterministic=True) ==
              stored.SerializeToString(deterministic=True),
              "gjkctl scene --export reads back to the stored scene, bit for bit")
        check(d.stop() == 0, "gjkd exit status")


GROUPS = {"trajectory_name": group_trajectory_name, "numbers": group_numbers}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
