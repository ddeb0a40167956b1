"""python_client.py — what the clients add to the daemon on the dense work cell (issue 21, item 4).

    GJKD_PYTHON_PROTO=build/python /usr/bin/python3 bench/python_client.py [--build build]
        [--repeat 50] [--endpoint tcp://127.0.0.1:PORT | ipc://PATH] [--json]

Needs a build with -DGJK_BUILD_BENCH=ON (gjkd, gjkctl, bench/dense_export). Writes the dense cell
(bench/dense_cell.h, seed 1, 100 waypoints) as a scene and a trajectory with dense_export, starts
its own gjkd on a free loopback port (or --endpoint) with that scene, and times the trajectory
query in mode ALL within 0.1 m (1427 pairs reported for seed 1), warm (a named trajectory, the
same waypoints) and cold (no name), interleaved in every repeat:
  python arrays   Client.query_trajectory_arrays: the request from a numpy array of the link
                  poses (waypoints x links x 7), the reply as numpy arrays (pair columns)
  python dicts    Client.query_trajectory: the same request, the reply as dicts (built from
                  the same columns)
  handler         the daemon's time on each of those requests (Response.handler_seconds)
  C client        gjkctl bench (libgjkd-client, reply as arrays): its round trip and the
                  handler time of the same calls
Ratios (medians of one run; the host is shared, compare within one run):
  python / handler = median Python wall time / median handler time of the same calls
                     (target <= 1.5)
  wire / in-process = median C round trip / median handler time (target <= 1.15): the
                     handler is the daemon's in-process work on the request. """

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--endpoint", default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("GJKD_PYTHON_PROTO", os.path.join(args.build, "python"))
    import numpy as np

    import gjkd

    tools = {"gjkd": os.path.join(args.build, "server", "gjkd"),
             "gjkctl": os.path.join(args.build, "clients", "gjkctl"),
             "dense_export": os.path.join(args.build, "bench", "dense_export")}
    for name, path in tools.items():
        if not os.access(path, os.X_OK):
            sys.exit("python_client.py: %s not found at %s (build with -DGJK_BUILD_BENCH=ON)"
                     % (name, path))
    with tempfile.TemporaryDirectory() as tmp:
        scene, traj = os.path.join(tmp, "scene.json"), os.path.join(tmp, "traj.json")
        subprocess.run([tools["dense_export"], scene, traj], check=True, stdout=subprocess.DEVNULL)
        endpoint = args.endpoint or "tcp://127.0.0.1:%d" % free_port()
        daemon = subprocess.Popen([tools["gjkd"], "--endpoint", endpoint, "--scene", scene,
                                   "--log-level", "warn", "--threads", "1"])
        try:
            with gjkd.Client(endpoint, timeout=30) as c:
                for _ in range(300):  # until the scene is loaded
                    try:
                        if c.scene_summary()["robots"]:
                            break
                    except gjkd.Timeout:
                        pass
                    time.sleep(0.05)
                doc = json.load(open(traj))
                poses = [w["link_poses"] for w in doc["waypoints"]]
                array = np.array([[list(p["position"]) + list(p["quat_wxyz"]) for p in w]
                                  for w in poses])
                kw = dict(max_distance=0.1, mode="all")
                # warm-up: the named cache, and the process's first-call costs
                reference = c.query_trajectory("panda", poses, **kw)
                arrays = c.query_trajectory_arrays("panda", array, name="bench", **kw)
                if arrays.to_dict()["waypoints"] != reference["waypoints"]:
                    sys.exit("python_client.py: arrays and dicts differ")
                rows = {k: ([], []) for k in ("arrays warm", "arrays cold", "dicts warm")}
                r = None
                for _ in range(args.repeat):
                    for kind in rows:
                        name = "bench" if kind.endswith("warm") else None
                        r = None  # the previous result is freed outside the timed call
                        t0 = time.perf_counter()
                        if kind.startswith("arrays"):
                            r = c.query_trajectory_arrays("panda", array, name=name, **kw)
                            handler = r.handler_seconds
                        else:
                            r = c.query_trajectory("panda", array, name=name, **kw)
                            handler = None
                        wall = time.perf_counter() - t0
                        rows[kind][0].append(wall)
                        rows[kind][1].append(handler)
                pairs = len(arrays)
            cbench = json.loads(subprocess.run(
                [tools["gjkctl"], "--endpoint", endpoint, "--json", "bench", scene, traj, "--all",
                 "--max-distance", "0.1", "--repeat", str(args.repeat)],
                check=True, stdout=subprocess.PIPE).stdout)
        finally:
            daemon.terminate()
            daemon.wait(10)
    out = {"pairs_reported": pairs, "repeat": args.repeat, "endpoint": endpoint.split(":")[0]}
    for kind, (walls, handlers) in rows.items():
        wall = statistics.median(walls)
        entry = {"wall_ms": 1e3 * wall}
        if handlers[0] is not None:
            handler = statistics.median(handlers)
            entry.update(handler_ms=1e3 * handler, python_over_handler=wall / handler)
        out["python " + kind] = entry
    for kind in ("cold", "warm"):
        r = cbench[kind]
        out["C client " + kind] = {"round_trip_ms": r["round_trip_ms_median"],
                                   "handler_ms": r["handler_ms_median"],
                                   "wire_over_in_process": r["round_trip_over_handler"]}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print("dense cell, mode ALL within 0.1 m, %d pairs reported, %d repeats, %s, medians"
          % (pairs, args.repeat, out["endpoint"]))
    print("%-22s %10s %12s %8s" % ("", "wall ms", "handler ms", "ratio"))
    for kind, e in out.items():
        if not isinstance(e, dict):
            continue
        wall = e.get("wall_ms", e.get("round_trip_ms"))
        ratio = e.get("python_over_handler", e.get("wire_over_in_process"))
        print("%-22s %10.3f %12s %8s" % (kind, wall, "%.3f" % e["handler_ms"] if "handler_ms" in e
                                         else "-", "%.2f" % ratio if ratio else "-"))
    print("ratio: python = Python wall / handler (target <= 1.5); C client = round trip / "
          "handler, the wire over the daemon's in-process work (target <= 1.15)")


if __name__ == "__main__":
    main()
