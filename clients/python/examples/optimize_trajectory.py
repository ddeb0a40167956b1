#!/usr/bin/python3
"""A small trajectory-optimisation loop on gjkd's signed distances and normals.

    GJKD_PYTHON_PROTO=build/python /usr/bin/python3 clients/python/examples/optimize_trajectory.py \
        [--endpoint tcp://127.0.0.1:7471] [--trajectory examples/demo/trajectory.json] \
        [--iterations 15] [--safety 0.02]

Each iteration queries the whole trajectory (mode "all" with per_part: every part pair closer
than the safety distance plus a margin, so a link deep in several parts of an obstacle is
pushed by each of them; without per_part each body pair gives its nearest part pair only), and
for every pair with distance d < safety pushes body A by
step * (safety - d) along -normal (away from B; normals point from A to B) and, for self pairs,
body B along +normal. A link's push also moves every link after it in the chain (a translation
of the sub-chain, so the arm stays connected), the base never moves, and the pushes are
smoothed over neighbouring waypoints. The query carries a trajectory name, so each iteration
warm-starts from the previous one (the daemon's named trajectory cache).

This is a toy on link poses (there is no kinematics here: links are moved as free bodies), but
it shows the loop an optimiser runs: signed distances and normals in, a better trajectory out,
and the minimum distance rises iteration by iteration."""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gjkd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "..", "..", "examples", "demo", "trajectory.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--endpoint", default=None)
    ap.add_argument("--trajectory", default=DEMO)
    ap.add_argument("--iterations", type=int, default=15)
    ap.add_argument("--safety", type=float, default=0.02, help="wanted clearance, metres")
    ap.add_argument("--step", type=float, default=0.8, help="fraction of the deficit per step")
    args = ap.parse_args()

    with open(args.trajectory) as f:
        traj = json.load(f)
    robot = traj["robot"]
    # positions[w][l] as mutable lists; orientations are kept.
    wps = [[{"position": list(p.get("position", [0.0, 0.0, 0.0])),
             "quat_wxyz": list(p.get("quat_wxyz", [1.0, 0.0, 0.0, 0.0]))} for p in w["link_poses"]]
           for w in traj["waypoints"]]
    with gjkd.Client(args.endpoint, timeout=10.0, retries=1) as c:
        links = next((r["links"] for r in c.scene_summary()["robots"] if r["name"] == robot), None)
        if links is None:
            sys.exit("optimize_trajectory: the daemon has no robot %r (start it with --demo)" % robot)
        index = {name: i for i, name in enumerate(links)}
        history = []
        for it in range(args.iterations + 1):
            t0 = time.monotonic()
            r = c.query_trajectory(robot, wps, name="optimize-demo", mode="all", per_part=True,
                                   max_distance=args.safety + 0.05)
            ms = 1e3 * (time.monotonic() - t0)
            d = r["min_distance"]
            history.append(d)
            print("iteration %2d  min distance %+.4f m  colliding waypoints %3d  (%.1f ms%s)"
                  % (it, d if d is not None else float("inf"), r["colliding_waypoints"], ms,
                     ", warm" if r["cache_hit"] else ""))
            if it == args.iterations or d is None or d >= args.safety:
                break
            # Pushes per waypoint and link, from every pair closer than the safety distance.
            push = [[[0.0, 0.0, 0.0] for _ in links] for _ in wps]
            for w, s in enumerate(r["waypoints"]):
                for p in s["pairs"] or ([s["closest"]] if s["closest"] else []):
                    deficit = args.safety - p["distance"]
                    if deficit <= 0.0 or p["normal"] == (0.0, 0.0, 0.0):
                        continue
                    la = index[p["a"]["link"]]
                    for k in range(3):
                        push[w][la][k] -= args.step * deficit * p["normal"][k]
                    if "link" in p["b"] and p["b"].get("robot") == robot:
                        lb = index[p["b"]["link"]]
                        for k in range(3):
                            push[w][lb][k] += args.step * deficit * p["normal"][k]
            for w in range(len(wps)):
                offset = [0.0, 0.0, 0.0]
                for l in range(1, len(links)):  # the base (link 0) stays put
                    # Smooth over neighbouring waypoints, then carry down the chain.
                    nb = [push[j][l] for j in (w - 1, w, w + 1) if 0 <= j < len(wps)]
                    for k in range(3):
                        offset[k] += 0.25 * sum(v[k] for v in nb) + 0.25 * push[w][l][k]
                    for k in range(3):
                        wps[w][l]["position"][k] += offset[k]
        rising = all(b is None or a is None or b >= a - 1e-9 for a, b in zip(history, history[1:]))
        print("minimum distance %s over %d iterations%s"
              % (" -> ".join("%+.4f" % h for h in history if h is not None), len(history) - 1,
                 "" if rising else " (not monotone)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
