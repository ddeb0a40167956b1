#!/usr/bin/python3
"""End-to-end tests of robots with joints (issue 20) through the daemon, gjkctl and the Python
client. Same harness and arguments as e2e.py, whose helpers (Daemon, run, gjkctl, check,
reaping) it uses:

    /usr/bin/python3 tests/e2e/e2e_kinematics.py --group kinematics --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

The robot is built here from a small joint table (no URDF): a 4-link arm with a revolute
shoulder, a prismatic slide, a revolute elbow and a mimic finger, before two obstacles.

Group kinematics:
  - Python set_joint_positions (full vector, subset), scene_summary's joint names/positions,
    refusals naming the joint (mimic name, out of limits);
  - Python query_state(gradients=True) against central finite differences of the daemon's own
    distances (step 1e-6, kept only where halving the step changes nothing), self pairs too;
  - Python query_trajectory(joint_waypoints=..., joint_names=...) with permuted columns equal
    to the DOF-order query, and each waypoint to the state query there;
  - gjkctl joints ROBOT JOINTS.json, gjkctl --json query --all --gradients ("gradient":
    {ROBOT: [...]} in the order of "joint_names"), gjkctl --json trajectory TRAJ.json with
    "joint_names" and joint-vector waypoints: the same numbers as the Python client;
  - PoseStream.send_joints: joint states over the pose endpoint, a refused one dropped;
  - persistence: after kill -9 and a restart the robot is back with its joints (the stored
    Robot message), at its initial positions (joint positions are state)."""

import json
import math
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, gjkctl, gjkctl_json  # noqa: E402

DOF = ["shoulder", "slide", "elbow"]


def arm_robot(pb):
    """links base, upper, slider, fore, finger; joints: shoulder (revolute z), slide
    (prismatic x), elbow (revolute y), finger (prismatic y, mimic of slide: 0.5 q + 0.02)."""
    r = pb.Robot(name="arm", self_collision=True)
    sizes = {"base": (0.15, 0.15, 0.05), "upper": (0.05, 0.05, 0.2), "slider": (0.12, 0.04, 0.04),
             "fore": (0.2, 0.03, 0.03), "finger": (0.03, 0.05, 0.02)}
    offsets = {"base": (0, 0, 0), "upper": (0, 0, 0.2), "slider": (0.12, 0, 0),
               "fore": (0.2, 0, 0), "finger": (0.03, 0, 0)}
    for name in ("base", "upper", "slider", "fore", "finger"):
        link = r.links.add(name=name)
        part = link.parts.add()
        part.shape.box.half_extents.x, part.shape.box.half_extents.y, \
            part.shape.box.half_extents.z = sizes[name]
        part.pose.position.x, part.pose.position.y, part.pose.position.z = offsets[name]
        part.pose.orientation.w = 1.0
    for a, b in (("base", "upper"), ("upper", "slider"), ("slider", "fore"), ("fore", "finger")):
        r.disabled_pairs.add(a=a, b=b)
    table = [  # name, type, parent, child, xyz, rpy-free axis, limits
        ("shoulder", pb.JOINT_TYPE_REVOLUTE, "base", "upper", (0, 0, 0.05), (0, 0, 1), (-3, 3)),
        ("slide", pb.JOINT_TYPE_PRISMATIC, "upper", "slider", (0, 0, 0.35), (1, 0, 0), (0, 0.3)),
        ("elbow", pb.JOINT_TYPE_REVOLUTE, "slider", "fore", (0.24, 0, 0), (0, 1, 0), (-2, 2)),
        ("finger", pb.JOINT_TYPE_PRISMATIC, "fore", "finger", (0.4, 0, 0), (0, 1, 0), (-1, 1)),
    ]
    for name, kind, parent, child, xyz, axis, limits in table:
        j = r.joints.add(name=name, type=kind, parent=parent, child=child)
        j.origin.position.x, j.origin.position.y, j.origin.position.z = xyz
        j.origin.orientation.w = 1.0
        j.axis.x, j.axis.y, j.axis.z = axis
        j.limits.lower, j.limits.upper = limits
    r.joints[3].mimic.joint = "slide"
    r.joints[3].mimic.multiplier = 0.5
    r.joints[3].mimic.offset = 0.02
    return r


def obstacles(c):
    c.put_obstacle({"name": "post", "pose": {"position": [0.55, 0.25, 0.4]},
                    "parts": [{"type": "box", "half_extents": [0.05, 0.05, 0.4]}]})
    c.put_obstacle({"name": "ball", "pose": {"position": [-0.3, 0.45, 0.45]},
                    "parts": [{"type": "sphere", "radius": 0.1}]})


def key(p):
    return (p["a"]["link"], p["a"]["part_index"], p["b"].get("obstacle"), p["b"].get("link"),
            p["b"]["part_index"])


def distances(c, max_distance=0.6):
    s = c.query_state(max_distance=max_distance, mode="all", per_part=True)
    return {key(p): p["distance"] for p in s["pairs"]}


def finite_differences(c, q, p, h):
    out = []
    for j in range(len(q)):
        vals = []
        for sign in (1, -1):
            qq = list(q)
            qq[j] += sign * h
            c.set_joint_positions("arm", None, qq)
            vals.append(distances(c).get(key(p), math.nan))
        out.append((vals[0] - vals[1]) / (2 * h))
    c.set_joint_positions("arm", None, q)
    return out


def python_checks(c):
    s = c.scene_summary()
    r = s["robots"][0]
    check(r["joint_names"] == DOF, "scene summary DOF names: %r" % r["joint_names"])
    check(r["positions"] == [0.0, 0.0, 0.0], "initial positions: %r" % r["positions"])
    c.set_joint_positions("arm", None, [0.4, 0.1, -0.3])
    c.set_joint_positions("arm", ["elbow", "shoulder"], [0.5, 0.6])  # a subset, any order
    check(c.scene_summary()["robots"][0]["positions"] == [0.6, 0.1, 0.5], "subset applied")
    for names, values, code, text in ((["finger"], [0.1], "INVALID_ARGUMENT",
                                       "joint 'finger' is a mimic joint"),
                                      (["slide"], [0.5], "INVALID_INPUT",
                                       "joint 'slide': 0.5 is outside its limits [0, 0.3]")):
        try:
            c.set_joint_positions("arm", names, values)
            check(False, "refused: %r" % names)
        except e2e.gjkd.GjkdError as err:
            check(err.name == code and text in str(err), "refusal: %s" % err)

    # Gradients against central differences of the daemon's own distances.
    checked, flagged = 0, 0
    for q in ([0.6, 0.1, 0.5], [1.1, 0.22, -0.9], [-0.4, 0.05, 1.3], [2.2, 0.15, 0.2]):
        c.set_joint_positions("arm", None, q)
        st = c.query_state(max_distance=0.6, mode="all", per_part=True, gradients=True)
        check(st["joint_names"] == {"arm": DOF}, "joint_names: %r" % st["joint_names"])
        for p in st["pairs"]:
            g = p["gradient"]["arm"]
            check(len(g) == 3, "gradient length")
            if p["subgradient"]:
                flagged += 1
                continue
            f1 = finite_differences(c, q, p, 1e-6)
            f2 = finite_differences(c, q, p, 5e-7)
            for j in range(3):
                if math.isnan(f1[j]) or abs(f1[j] - f2[j]) > 1e-5 * (1 + abs(f1[j])):
                    continue  # not smooth within the step
                check(abs(g[j] - f1[j]) <= 2e-5 * (1 + abs(f1[j])),
                      "pair %r dof %s: gradient %.9g, finite difference %.9g"
                      % (key(p), DOF[j], g[j], f1[j]))
                checked += 1
    check(checked >= 20, "gradient components checked: %d (flagged pairs %d)" % (checked, flagged))
    print("gradient components checked against finite differences: %d (flagged pairs %d)"
          % (checked, flagged))

    # Joint-space trajectories: permuted columns == DOF order; each waypoint == state query.
    n = 17
    wps = [[-0.5 + 0.15 * i, 0.3 * i / (n - 1), 1.0 - 0.12 * i] for i in range(n)]
    t1 = c.query_trajectory("arm", joint_waypoints=wps, max_distance=0.5, mode="all",
                            gradients=True)
    perm = [[w[2], w[0], w[1]] for w in wps]
    t2 = c.query_trajectory("arm", joint_waypoints=perm, joint_names=["elbow", "shoulder", "slide"],
                            max_distance=0.5, mode="all", gradients=True)
    check(t1["waypoints"] == t2["waypoints"], "permuted joint columns give the same trajectory")
    check(t1["joint_names"] == {"arm": DOF}, "trajectory joint_names")
    check(sum(len(w["pairs"]) for w in t1["waypoints"]) > n, "pairs along the trajectory")
    for i in (0, 8, 16):
        c.set_joint_positions("arm", None, wps[i])
        st = c.query_state(max_distance=0.5, mode="all", gradients=True)
        a, b = t1["waypoints"][i]["pairs"], st["pairs"]
        check([key(p) for p in a] == [key(p) for p in b], "waypoint %d: same pairs" % i)
        for x, y in zip(a, b):
            check(abs(x["distance"] - y["distance"]) <= 1e-9, "waypoint %d distance" % i)
    closest = c.query_trajectory("arm", joint_waypoints=wps, max_distance=0.5, gradients=True)
    check(all(w["closest"] is None or len(w["closest"]["gradient"]["arm"]) == 3
              for w in closest["waypoints"]), "CLOSEST mode (compact form) keeps gradients")
    try:
        c.query_trajectory("arm", joint_waypoints=[[0, 0.4, 0]], max_distance=0.5)
        check(False, "an out-of-limit waypoint is refused")
    except e2e.gjkd.GjkdError as err:
        check("waypoint 0: joint 'slide'" in str(err), "trajectory refusal: %s" % err)
    return wps, t1


def gjkctl_checks(d, c, tmp, wps, t1):
    path = os.path.join(tmp, "joints.json")
    with open(path, "w") as f:
        json.dump({"name": ["elbow", "slide", "shoulder"], "position": [0.5, 0.1, 0.6]}, f)
    out, _ = gjkctl(d, "joints", "arm", path)
    check("3 joint positions set for arm" in out, "gjkctl joints: %r" % out)
    check(c.scene_summary()["robots"][0]["positions"] == [0.6, 0.1, 0.5], "gjkctl joints applied")
    q = gjkctl_json(d, "query", "--all", "--max-distance", "0.6", "--gradients")
    ref = c.query_state(max_distance=0.6, mode="all", gradients=True)
    check(q["joint_names"] == {"arm": DOF}, "gjkctl joint_names: %r" % q.get("joint_names"))
    check([p["gradient"] for p in q["pairs"]] == [p["gradient"] for p in ref["pairs"]],
          "gjkctl --gradients: the Python client's numbers")
    with open(path, "w") as f:
        json.dump({"name": ["finger"], "position": [0.1]}, f)
    _, err = gjkctl(d, "joints", "arm", path, expect=1)
    check("'finger' is a mimic joint" in err, "gjkctl joints refusal names the joint: %r" % err)
    # A base pose with the joints (a mobile base), and a JointState as ROS dumps it (header,
    # velocity, effort ignored): the same state as the Python client's.
    base = {"position": [0.05, -0.1, 0.02], "quat_wxyz": [0.8, 0.0, 0.0, 0.6]}
    with open(path, "w") as f:
        json.dump({"header": {"frame_id": ""}, "name": ["shoulder", "elbow"],
                   "position": [0.3, -0.2], "velocity": [], "effort": [], "base_pose": base}, f)
    gjkctl(d, "joints", "arm", path)
    via_cli = c.query_state(max_distance=0.6, mode="all")["pairs"]
    c.set_joint_positions("arm", ["shoulder", "elbow"], [0.3, -0.2], base_pose=base)
    check(c.query_state(max_distance=0.6, mode="all")["pairs"] == via_cli and via_cli,
          "gjkctl joints with base_pose: the Python client's state")
    c.set_joint_positions("arm", None, [0.6, 0.1, 0.5], base_pose={"position": [0, 0, 0]})
    # The poses document takes a joint state per robot too.
    poses = os.path.join(tmp, "jposes.json")
    with open(poses, "w") as f:
        json.dump({"robots": [{"robot": "arm", "name": ["slide"], "position": [0.2]}]}, f)
    gjkctl(d, "poses", poses)
    check(c.scene_summary()["robots"][0]["positions"] == [0.6, 0.2, 0.5],
          "gjkctl poses with a joint state")
    for doc, text in (({"name": ["elbow"], "position": [0.1, 0.2]}, "1 names for 2 positions"),
                      ({"name": ["elbow"]}, "$.position: missing"),
                      ({"position": [0.1], "speed": 1}, "unknown key \"speed\"")):
        with open(path, "w") as f:
            json.dump(doc, f)
        _, err = gjkctl(d, "joints", "arm", path, expect=2)
        check(text in err and path in err, "gjkctl joints bad file: %r" % err)
    check(c.scene_summary()["robots"][0]["positions"] == [0.6, 0.2, 0.5],
          "bad joint files changed nothing")
    c.set_joint_positions("arm", None, [0.6, 0.1, 0.5])
    traj = os.path.join(tmp, "traj.json")
    with open(traj, "w") as f:
        json.dump({"robot": "arm", "joint_names": DOF, "waypoints": wps}, f)
    t = gjkctl_json(d, "trajectory", traj, "--all", "--max-distance", "0.5", "--gradients")
    check(t["joint_names"] == {"arm": DOF}, "gjkctl trajectory joint_names")
    check([[p["distance"] for p in w["pairs"]] for w in t["waypoints"]]
          == [[p["distance"] for p in w["pairs"]] for w in t1["waypoints"]],
          "gjkctl trajectory with joint vectors: the Python client's distances")
    check([[p["gradient"]["arm"] for p in w["pairs"]] for w in t["waypoints"]]
          == [[p["gradient"]["arm"] for p in w["pairs"]] for w in t1["waypoints"]],
          "gjkctl trajectory gradients: the Python client's")


def stream_checks(d, c):
    """PoseStream.send_joints: joint states on the pose endpoint reach the robot (PUB/SUB
    drops what is sent before the subscription is joined, so the first update is resent until
    it shows); a refused update (outside the limits) changes nothing."""
    import time
    q = [0.25, 0.05, -0.75]
    ps = e2e.gjkd.PoseStream(d.pose_endpoint)
    try:
        for _ in range(200):
            ps.send_joints("arm", None, q)
            time.sleep(0.02)
            if c.scene_summary()["robots"][0]["positions"] == q:
                break
        check(c.scene_summary()["robots"][0]["positions"] == q, "send_joints reached the arm")
        before = c.stats()["pose_updates"]
        ps.send_joints("arm", ["slide"], [0.5])  # outside [0, 0.3]: dropped
        ps.send_joints("arm", ["elbow", "shoulder"], [0.125, -0.5])  # a subset, any order
        want = [-0.5, 0.05, 0.125]
        for _ in range(200):
            if c.scene_summary()["robots"][0]["positions"] == want:
                break
            time.sleep(0.02)
        check(c.scene_summary()["robots"][0]["positions"] == want,
              "the refused update changed nothing, the next one applied")
        check(c.stats()["pose_updates"] == before + 1, "only the applied update is counted")
    finally:
        ps.close()


def group_kinematics():
    with tempfile.TemporaryDirectory() as tmp:
        state = os.path.join(tmp, "state")
        os.mkdir(state)
        d = e2e.Daemon(demo=False, state_dir=state, stream=True)
        with d.client() as c:
            c.put_robot(arm_robot(e2e.pb))
            obstacles(c)
            wps, t1 = python_checks(c)
            gjkctl_checks(d, c, tmp, wps, t1)
            stream_checks(d, c)
        d.stop(signal.SIGKILL)
        d = e2e.Daemon(demo=False, state_dir=state)
        with d.client() as c:
            r = c.scene_summary(include_scene=True)
            check(r["robots"][0]["joint_names"] == DOF, "after restart: the joints are back")
            check(r["robots"][0]["positions"] == [0.0, 0.0, 0.0],
                  "after restart: initial positions (joint positions are state)")
            check(len(r["scene"].robots[0].joints) == 4, "the stored Robot keeps its joints")
        check(d.stop() == 0, "gjkd exit status")


GROUPS = {"kinematics": group_kinematics}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
