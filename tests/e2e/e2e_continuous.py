#!/usr/bin/python3
"""End-to-end tests of continuous trajectory checks (issue 23): the wire, the daemon, gjkctl
and the Python client. Same harness and arguments as e2e.py:

    /usr/bin/python3 tests/e2e/e2e_continuous.py --group GROUP --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

Groups:
  thin_wall  a ball crossing a thin wall between two clear waypoints: `gjkctl --json
             trajectory F --continuous` and the Python client give one "segments" entry per
             segment, the first a contact at the closed-form time with the wall's witnesses
             and normal, the second clear with a lower bound below the true clearance; the
             same numbers from both clients; --first-collision evaluates nothing after the
             first contact; the table form and the plot; refused tolerances and budgets
  demo       the 100-waypoint demo trajectory: every segment has a verdict, no segment whose
             waypoints collide is clear, each clear bound is at most both waypoints' distances,
             and without --continuous there are no segments"""

import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, demo, gjkctl, gjkctl_json  # noqa: E402

SCENE = {
    "format": "gjkd-scene/1",
    "robots": [{"name": "bot", "links": [{"name": "tool", "parts": [
        {"name": "ball", "type": "sphere", "radius": 0.05}]}]}],
    "obstacles": [{"name": "wall",
                   "pose": {"position": [0, 0, 0], "quat_wxyz": [1, 0, 0, 0]},
                   "parts": [{"name": "sheet", "type": "box", "half_extents": [0.005, 1, 1]}]}],
}


def pose(x, y, z):
    return {"position": [x, y, z], "quat_wxyz": [1, 0, 0, 0]}


TRAJ = {"format": "gjkd-trajectory/1", "robot": "bot",
        "waypoints": [{"link_poses": [pose(-1, 0, 0)]}, {"link_poses": [pose(1, 0, 0)]},
                      {"link_poses": [pose(1, 0.5, 0)]}]}


def write(tmp, name, doc):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def group_thin_wall():
    with tempfile.TemporaryDirectory() as tmp:
        d = e2e.Daemon(demo=False)
        gjkctl(d, "load", write(tmp, "scene.json", SCENE))
        traj = write(tmp, "traj.json", TRAJ)
        t = gjkctl_json(d, "trajectory", traj)
        check(t["first_collision"] == -1, "the waypoints miss the wall")
        check("segments" not in t, "no segments without --continuous")
        t = gjkctl_json(d, "trajectory", traj, "--continuous")
        segs = t["segments"]
        check(len(segs) == 2, "one entry per segment: %r" % segs)
        check(t["first_contact_segment"] == 0 and t["undecided_segments"] == 0,
              "summary: %r" % {k: t[k] for k in ("first_contact_segment", "undecided_segments")})
        s = segs[0]
        exact = (1.0 - 0.055) / 2.0
        check(s["verdict"] == "contact", "segment 0 is a contact: %r" % s)
        check(s["t"] <= exact + 1e-12 and exact <= s["t"] + 1e-6 + 1e-12,
              "time of contact %r within 1e-6 of %r" % (s["t"], exact))
        check("clearance_lower_bound" not in s, "no bound on a contact segment")
        p = s["pair"]
        check(p["a"]["robot"] == "bot" and p["b"]["obstacle"] == "wall", "pair names: %r" % p)
        check(abs(p["normal"][0] - 1.0) < 1e-6, "normal from the ball to the wall: %r" % p)
        check(abs(p["point_b"][0] + 0.005) < 1e-5, "witness on the wall's face: %r" % p)
        s = segs[1]
        check(s["verdict"] == "clear", "segment 1 is clear: %r" % s)
        check(0.4 < s["clearance_lower_bound"] <= 0.945 + 1e-12,
              "certified bound below the true 0.945: %r" % s["clearance_lower_bound"])
        # --first-collision: nothing after the first contact segment.
        t3 = gjkctl_json(d, "trajectory", traj, "--continuous", "--first-collision")
        check(t3["segments"][0]["verdict"] == "contact" and
              t3["segments"][1] == {"segment": 1, "evaluated": False},
              "first-collision segments: %r" % t3["segments"])
        # A tolerance asked for is met.
        t2 = gjkctl_json(d, "trajectory", traj, "--continuous", "--continuous-tolerance", "1e-3")
        c = t2["segments"][0]["t"]
        check(c <= exact + 1e-12 and exact <= c + 1e-3 + 1e-12, "tolerance 1e-3: %r" % c)
        # The Python client gives the same fields and numbers.
        with d.client() as cl:
            py = cl.query_trajectory("bot", [[(w["link_poses"][0]["position"],
                                               w["link_poses"][0]["quat_wxyz"])]
                                             for w in TRAJ["waypoints"]], continuous=True)
        check(len(py["segments"]) == 2, "python: two segments")
        for a, b in zip(py["segments"], segs):
            check(a["verdict"] == b["verdict"] and a["t"] == b["t"],
                  "python and gjkctl agree: %r / %r" % (a, b))
            check(a.get("clearance_lower_bound") == b.get("clearance_lower_bound"),
                  "same bound: %r / %r" % (a, b))
            check(a["pair"]["normal"] == tuple(b["pair"]["normal"]), "same normal")
        check(py["first_contact_segment"] == 0, "python: first contact segment")
        # The table form, and the plot with the segments' verdicts.
        svg = os.path.join(tmp, "plot.svg")
        out, _ = gjkctl(d, "trajectory", traj, "--continuous", "--plot", svg)
        check("contact" in out and "first contact in segment 0" in out, "table: %r" % out[-600:])
        with open(svg) as f:
            plot = f.read()
        check("segment 0: contact at t = " in plot and "segment 1: clear, clearance" in plot,
              "the plot marks the segments")
        # Refusals: gjkctl's own, then the daemon's (raw requests).
        gjkctl(d, "trajectory", traj, "--continuous", "--continuous-tolerance", "0.7", expect=2)
        gjkctl(d, "trajectory", traj, "--continuous", "--continuous-budget", "0", expect=2)
        req = e2e.pb.Request()
        req.trajectory_query.robot = "bot"
        for w in TRAJ["waypoints"]:
            wp = req.trajectory_query.waypoints.add()
            lp = wp.link_poses.poses.add()
            lp.position.x = w["link_poses"][0]["position"][0]
            lp.position.y = w["link_poses"][0]["position"][1]
            lp.orientation.w = 1.0
        req.trajectory_query.continuous = True
        req.trajectory_query.continuous_time_tolerance = 0.7
        r = e2e.raw_call(d.endpoint, [b"", req.SerializeToString()])
        check(r is not None and r.status.code == e2e.pb.STATUS_CODE_INVALID_INPUT,
              "tolerance 0.7 refused: %r" % r)
        req.trajectory_query.continuous_time_tolerance = 0.0
        req.trajectory_query.continuous_max_evaluations = 1000000
        r = e2e.raw_call(d.endpoint, [b"", req.SerializeToString()])
        check(r is not None and r.status.code == e2e.pb.STATUS_CODE_RESOURCE_EXHAUSTED,
              "budget 1e6 refused: %r" % r)
        check(d.stop() == 0, "gjkd exit status")


def group_demo():
    d = e2e.Daemon()
    gjkctl(d, "poses", demo("poses.json"))
    t = gjkctl_json(d, "trajectory", demo("trajectory.json"), "--continuous")
    wps, segs = t["waypoints"], t["segments"]
    check(len(segs) == len(wps) - 1 == 99, "99 segments for 100 waypoints")
    counts = {}
    for i, s in enumerate(segs):
        counts[s["verdict"]] = counts.get(s["verdict"], 0) + 1
        check(s["verdict"] in ("clear", "contact", "undecided"), "verdict %r" % s)
        if wps[i]["colliding"] or wps[i + 1]["colliding"]:
            check(s["verdict"] != "clear", "segment %d ends in a collision: not clear" % i)
        if s["verdict"] == "clear" and s["clearance_lower_bound"] is not None:
            for w in (wps[i], wps[i + 1]):
                check(s["clearance_lower_bound"] <= w["min_distance"] + 1e-12,
                      "segment %d bound %r above a waypoint's %r"
                      % (i, s["clearance_lower_bound"], w["min_distance"]))
    print("demo segments: %r" % counts)
    check(d.stop() == 0, "gjkd exit status")


GROUPS = {"thin_wall": group_thin_wall, "demo": group_demo}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
