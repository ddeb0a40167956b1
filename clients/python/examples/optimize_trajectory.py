#!/usr/bin/python3
"""A small trajectory-optimisation loop on gjkd's signed distances: in joint space with the
daemon's gradients d(distance)/dq (a robot with joints), or on link poses with the normals.

    GJKD_PYTHON_PROTO=build/python /usr/bin/python3 clients/python/examples/optimize_trajectory.py \
        [--endpoint tcp://127.0.0.1:7471] [--trajectory examples/demo/trajectory.json] \
        [--iterations 15] [--safety 0.02]

The trajectory file chooses the mode. With "joint_names" and joint-vector waypoints (e.g.
examples/demo/panda_trajectory.json, the vendored Panda; if the daemon has no robot "panda" the
script loads it as scripts/demo does: URDF + SRDF in the arm's place, its base allowed on the
floor) it optimises in joint space: each iteration queries the whole trajectory with
gradients=True (mode "all", per_part: every part pair within the safety distance plus a
margin) and takes one gradient step on the joints of every inner waypoint (the first and the
last stay put) for the cost

    sum over waypoints w, reported pairs p of  max(0, safety - sd_p(q_w))
      + smooth * sum over w of  |q_{w+1} - q_w|^2

whose collision gradient is -d(sd_p)/dq_w, the daemon's "gradient" of the pair (self pairs:
both chains; pairs flagged "subgradient" give a valid subgradient). Each step is capped at
--max-step radians per joint and kept inside the joint limits (from the stored Robot).

With link poses (the default, examples/demo/trajectory.json, the demo arm):

Each iteration queries the whole trajectory (mode "all" with per_part: every part pair closer
than the safety distance plus a margin, so a link deep in several parts of an obstacle is
pushed by each of them; without per_part each body pair gives its nearest part pair only), and
for every pair with distance d < safety pushes body A by
step * (safety - d) along -normal (away from B; normals point from A to B) and, for self pairs,
body B along +normal. A link's push also moves every link after it in the chain (a translation
of the sub-chain, so the arm stays connected), the base never moves, and the pushes are
smoothed over neighbouring waypoints. The query carries a trajectory name, so each iteration
warm-starts from the previous one (the daemon's named trajectory cache).

This one is a toy (there is no kinematics in it: links are moved as free bodies); the
joint-space mode is the loop a real optimiser runs: signed distances and their joint gradients
in, a better joint trajectory out. Either way the minimum distance is printed per iteration and
rises."""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gjkd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..")
DEMO = os.path.join(ROOT, "examples", "demo", "trajectory.json")


def ensure_panda(c):
    """The vendored Panda in the arm's place, as scripts/demo puts it (if it is not there)."""
    names = [r["name"] for r in c.scene_summary()["robots"]]
    if "panda" in names:
        return
    base = os.path.join(ROOT, "data", "robots", "example-robot-data", "robots",
                        "panda_description")
    if "arm" in names:
        c.remove_robot("arm")
    c.load_urdf(os.path.join(base, "urdf", "panda.urdf"),
                srdf=os.path.join(base, "srdf", "panda.srdf"),
                package_paths=[os.path.join(ROOT, "data", "robots")])
    with open(os.path.join(ROOT, "examples", "demo", "panda_floor.json")) as f:
        c.load_scene(json.load(f), merge=True)
    print("loaded the vendored Panda (URDF + SRDF) in the arm's place")


def joint_limits(c, robot, dof):
    """[(lower, upper)] per DOF from the stored Robot (continuous joints: unbounded)."""
    stored = [r for r in c.scene_summary(include_scene=True)["scene"].robots if r.name == robot]
    by_name = {j.name: j for j in stored[0].joints}
    out = []
    for n in dof:
        j = by_name[n]
        if j.HasField("limits"):
            out.append((j.limits.lower, j.limits.upper))
        else:
            out.append((-float("inf"), float("inf")))
    return out


def optimize_joints(args, traj):
    """Gradient steps on the joints: hinge on max(0, safety - sd) per pair, plus smoothness."""
    robot = traj["robot"]
    q = [[float(v) for v in w] for w in traj["waypoints"]]
    with gjkd.Client(args.endpoint, timeout=30.0, retries=1) as c:
        if robot == "panda":
            ensure_panda(c)
        dof = next((r["joint_names"] for r in c.scene_summary()["robots"] if r["name"] == robot),
                   None)
        if not dof:
            sys.exit("optimize_trajectory: the daemon has no robot %r with joints" % robot)
        # The file's columns in the robot's DOF order.
        cols = [traj["joint_names"].index(n) for n in dof]
        q = [[w[k] for k in cols] for w in q]
        limits = joint_limits(c, robot, dof)
        n, m = len(q), len(dof)

        def evaluate(qs):
            r = c.query_trajectory(robot, joint_waypoints=qs, name="optimize-joints", mode="all",
                                   per_part=True, max_distance=args.safety + 0.05,
                                   gradients=True)
            hinge = sum(max(0.0, args.safety - p["distance"])
                        for s in r["waypoints"] for p in s["pairs"])
            smooth = args.smooth * sum((qs[w + 1][j] - qs[w][j]) ** 2
                                       for w in range(n - 1) for j in range(m))
            return r, hinge + smooth, hinge

        def report(it, r, cost, hinge, ms, note=""):
            d = r["min_distance"]
            print("iteration %2d  min distance %+.4f m  colliding waypoints %3d  cost %.4f "
                  "(hinge %.4f)  (%.1f ms)%s" % (it, d if d is not None else float("inf"),
                                                 r["colliding_waypoints"], cost, hinge, ms, note))

        t0 = time.monotonic()
        r, cost, hinge = evaluate(q)
        report(0, r, cost, hinge, 1e3 * (time.monotonic() - t0))
        history = [r["min_distance"]]
        rate = args.rate
        for it in range(1, args.iterations + 1):
            if r["min_distance"] is None or r["min_distance"] >= args.safety:
                break
            grad = [[0.0] * m for _ in range(n)]
            for w, s in enumerate(r["waypoints"]):
                for p in s["pairs"]:
                    if p["distance"] >= args.safety:
                        continue
                    g = p["gradient"][robot]
                    for j in range(m):
                        grad[w][j] -= g[j]  # d/dq of (safety - sd)
            for w in range(1, n - 1):
                for j in range(m):
                    grad[w][j] += 2.0 * args.smooth * (2.0 * q[w][j] - q[w - 1][j] - q[w + 1][j])
            # A step along -gradient, capped and inside the limits; the end points stay. If it
            # does not lower the cost (the hinge is not smooth), halve the rate and try again.
            for tries in range(8):
                qn = [list(w) for w in q]
                for w in range(1, n - 1):
                    for j in range(m):
                        step = max(-args.max_step, min(args.max_step, rate * grad[w][j]))
                        lo, hi = limits[j]
                        qn[w][j] = max(lo, min(hi, q[w][j] - step))
                t0 = time.monotonic()
                rn, cn, hn = evaluate(qn)
                ms = 1e3 * (time.monotonic() - t0)
                if cn < cost:
                    break
                rate *= 0.5
            else:
                print("iteration %2d  no step lowers the cost: stopping" % it)
                break
            q, r, cost, hinge = qn, rn, cn, hn
            report(it, r, cost, hinge, ms, "  rate %.3g%s" % (rate, " (%d halvings)" % tries
                                                              if tries else ""))
            history.append(r["min_distance"])
            rate = min(args.rate, 1.5 * rate)
        rising = all(b is None or a is None or b >= a - 1e-9 for a, b in zip(history, history[1:]))
        print("minimum distance %s over %d iterations%s"
              % (" -> ".join("%+.4f" % h for h in history if h is not None), len(history) - 1,
                 "" if rising else " (not monotone)"))
        if args.output:
            with open(args.output, "w") as f:
                json.dump({"format": "gjkd-trajectory/1", "robot": robot, "joint_names": dof,
                           "waypoints": q}, f)
            print("optimised trajectory written to %s" % args.output)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--endpoint", default=None)
    ap.add_argument("--trajectory", default=DEMO)
    ap.add_argument("--iterations", type=int, default=15)
    ap.add_argument("--safety", type=float, default=0.02, help="wanted clearance, metres")
    ap.add_argument("--step", type=float, default=0.8,
                    help="link poses: fraction of the deficit per step")
    ap.add_argument("--rate", type=float, default=0.1,
                    help="joint space: step = rate * gradient of the cost, radians")
    ap.add_argument("--max-step", type=float, default=0.05,
                    help="joint space: largest change of one joint per iteration, radians")
    ap.add_argument("--smooth", type=float, default=0.1,
                    help="joint space: weight of the smoothness term")
    ap.add_argument("--output", default=None,
                    help="joint space: write the optimised trajectory (TRAJ.json) here")
    args = ap.parse_args()

    with open(args.trajectory) as f:
        traj = json.load(f)
    if "joint_names" in traj:
        return optimize_joints(args, traj)
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
