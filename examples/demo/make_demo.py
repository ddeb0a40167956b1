#!/usr/bin/python3
"""Generates the gjkd demo: scene.json, trajectory.json and poses.json (the arm), and
panda_trajectory.json, panda_joints.json and panda_floor.json (the vendored Panda).

    /usr/bin/python3 examples/demo/make_demo.py [OUT_DIR] [--check]   (default: this directory)

--check also prints a rough clearance profile (points against primitives) for tuning.

Deterministic: a fixed-seed generator and rounded coordinates, so running it twice gives
identical files (the committed JSON is exactly what this script writes).

The scene: a 7-link arm standing on the floor at the origin (links are raw point clouds,
hulled by the daemon; some links have several convex parts), a table in front of it (+x)
with boxes and cans on it, a shelf to its left (+y), a pillar, a ball and a cone. The
trajectory: 100 waypoints of link poses; the arm starts folded up, reaches into the shelf,
swings over the table, dips its hand into a box on the table and comes back up, so the
clearance profile has near misses and a stretch of colliding waypoints.

Units are metres and radians; quaternions are [w, x, y, z] (the "quat_wxyz" key)."""

import json
import math
import os
import random
import sys

SEED = 1988  # the year of the GJK paper
DIGITS = 5  # coordinates rounded to 10 micrometres

# --------------------------------------------------------------------------- small math


def qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw)


def qaxis(axis, angle):
    s = math.sin(0.5 * angle)
    return (math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s)


def qrot(q, v):
    w, x, y, z = q
    # t = 2 u x v ; v' = v + w t + u x t
    tx = 2.0 * (y * v[2] - z * v[1])
    ty = 2.0 * (z * v[0] - x * v[2])
    tz = 2.0 * (x * v[1] - y * v[0])
    return (v[0] + w * tx + (y * tz - z * ty),
            v[1] + w * ty + (z * tx - x * tz),
            v[2] + w * tz + (x * ty - y * tx))


def tmul(a, b):
    """Rigid transforms as (q, p): apply b, then a."""
    qa, pa = a
    qb, pb = b
    r = qrot(qa, pb)
    return (qmul(qa, qb), (r[0] + pa[0], r[1] + pa[1], r[2] + pa[2]))


IDENTITY = ((1.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
X_AXIS, Y_AXIS, Z_AXIS = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)


def rnd(x):
    v = round(x, DIGITS)
    return 0.0 if v == 0.0 else v  # no "-0.0" in the files


def pose_json(t):
    q, p = t
    n = math.sqrt(sum(c * c for c in q))
    return {"position": [rnd(c) for c in p],
            "quat_wxyz": [round(c / n, 9) + 0.0 for c in q]}


# --------------------------------------------------------------------------- point clouds
# Raw points for hull parts: surface samples plus a few interior points (which the daemon's
# hull drops), in the link frame. A link frame sits at the joint; the link extends along +z.


def rounded_tube(rng, radius, z0, z1, n_ring, n_rings, n_inner, squash=1.0):
    """Points on a tube of `radius` from z0 to z1 with hemispherical-ish caps (3 cap rings each
    end) plus interior points. squash < 1 flattens the cross-section in y."""
    pts = []
    for i in range(n_rings):
        z = z0 + (z1 - z0) * i / (n_rings - 1)
        phase = rng.uniform(0.0, 2.0 * math.pi)
        for k in range(n_ring):
            a = phase + 2.0 * math.pi * k / n_ring
            pts.append((radius * math.cos(a), squash * radius * math.sin(a), z))
    for end, sign in ((z0, -1.0), (z1, 1.0)):
        for j, f in enumerate((0.85, 0.55, 0.2)):
            r = radius * f
            dz = radius * math.sqrt(1.0 - f * f) * 0.8
            m = max(3, n_ring * (3 - j) // 4)
            for k in range(m):
                a = 2.0 * math.pi * (k + 0.5 * j) / m
                pts.append((r * math.cos(a), squash * r * math.sin(a), end + sign * dz))
    for _ in range(n_inner):
        a = rng.uniform(0.0, 2.0 * math.pi)
        r = radius * 0.7 * math.sqrt(rng.random())
        pts.append((r * math.cos(a), squash * r * math.sin(a), rng.uniform(z0, z1)))
    return pts


def blob(rng, centre, radii, n_surface, n_inner):
    """Points on (and inside) an ellipsoid: a joint housing."""
    pts = []
    golden = math.pi * (3.0 - math.sqrt(5.0))
    for i in range(n_surface):
        y = 1.0 - 2.0 * (i + 0.5) / n_surface
        r = math.sqrt(1.0 - y * y)
        a = golden * i
        d = (r * math.cos(a), y, r * math.sin(a))
        pts.append(tuple(centre[j] + radii[j] * d[j] for j in range(3)))
    for _ in range(n_inner):
        d = [rng.gauss(0.0, 1.0) for _ in range(3)]
        n = math.sqrt(sum(c * c for c in d)) or 1.0
        s = 0.8 * rng.random()
        pts.append(tuple(centre[j] + radii[j] * s * d[j] / n for j in range(3)))
    return pts


def cuboid(rng, lo, hi, per_face, n_inner):
    """Points on the faces of an axis-aligned box [lo, hi] plus its 8 corners."""
    pts = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    for axis in range(3):
        for side in (lo[axis], hi[axis]):
            for _ in range(per_face):
                p = [rng.uniform(lo[j], hi[j]) for j in range(3)]
                p[axis] = side
                pts.append(tuple(p))
    for _ in range(n_inner):
        pts.append(tuple(rng.uniform(lo[j], hi[j]) for j in range(3)))
    return pts


def hull_part(name, pts, margin=0.0, pose=None):
    part = {"name": name, "type": "hull", "margin": margin,
            "points": [[rnd(c) for c in p] for p in pts]}
    if pose is not None:
        part["pose"] = pose_json(pose)
    return part


# --------------------------------------------------------------------------- the arm
# Joint i sits at the end of link i-1 (offset along that link's +z) and turns link i about
# the axis below; link 0 (the base) is fixed at the world origin.
LINK_NAMES = ["base", "shoulder", "upper_arm", "elbow", "forearm", "wrist", "hand"]
JOINT_OFFSETS = [None, 0.30, 0.20, 0.45, 0.12, 0.38, 0.10]  # along the parent link's z, m
JOINT_AXES = [None, Z_AXIS, Y_AXIS, Z_AXIS, Y_AXIS, Z_AXIS, Y_AXIS]


def arm_links(rng):
    links = []
    # base: a pedestal (one part).
    links.append([hull_part("pedestal", rounded_tube(rng, 0.13, 0.03, 0.27, 18, 7, 20))])
    # shoulder: a short drum plus the pitch-joint housing across it (two parts).
    links.append([
        hull_part("drum", rounded_tube(rng, 0.11, 0.02, 0.14, 16, 5, 15)),
        hull_part("housing", blob(rng, (0.0, 0.0, 0.17), (0.09, 0.12, 0.07), 90, 15)),
    ])
    # upper arm: a long flattened tube plus the elbow housing (two parts).
    links.append([
        hull_part("tube", rounded_tube(rng, 0.075, 0.06, 0.40, 14, 9, 25, squash=0.8)),
        hull_part("elbow_housing", blob(rng, (0.0, 0.0, 0.44), (0.08, 0.09, 0.06), 80, 10)),
    ])
    # elbow: a roll-joint collar (one part).
    links.append([hull_part("collar", rounded_tube(rng, 0.07, 0.01, 0.11, 16, 6, 20))])
    # forearm: a tapered tube (hull of two rings of different radius) and the wrist housing.
    taper = rounded_tube(rng, 0.06, 0.03, 0.20, 12, 4, 8) + \
        [(0.8 * x, 0.8 * y, z + 0.15) for (x, y, z) in rounded_tube(rng, 0.06, 0.03, 0.20, 12, 3, 6)]
    links.append([
        hull_part("tube", taper),
        hull_part("wrist_housing", blob(rng, (0.0, 0.0, 0.37), (0.055, 0.065, 0.05), 56, 8)),
    ])
    # wrist: a small roll collar (one part).
    links.append([hull_part("collar", rounded_tube(rng, 0.05, 0.01, 0.09, 14, 6, 15))])
    # hand: a palm and two fingers (three parts), a 5 mm rubber margin on the fingers.
    links.append([
        hull_part("palm", cuboid(rng, (-0.04, -0.08, 0.0), (0.04, 0.08, 0.06), 16, 12)),
        hull_part("finger_left", cuboid(rng, (-0.02, 0.045, 0.06), (0.02, 0.07, 0.16), 10, 8),
                  margin=0.005),
        hull_part("finger_right", cuboid(rng, (-0.02, -0.07, 0.06), (0.02, -0.045, 0.16), 10, 8),
                  margin=0.005),
    ])
    return links


def forward_kinematics(q):
    """World poses of the 7 links for joint angles q[1..6] (q[0] unused)."""
    poses = [IDENTITY]
    for i in range(1, 7):
        offset = ((1.0, 0.0, 0.0, 0.0), (0.0, 0.0, JOINT_OFFSETS[i]))
        turn = (qaxis(JOINT_AXES[i], q[i]), (0.0, 0.0, 0.0))
        poses.append(tmul(tmul(poses[-1], offset), turn))
    return poses


# --------------------------------------------------------------------------- obstacles


def box(name, half, pose=IDENTITY, margin=0.0):
    part = {"name": name, "type": "box", "half_extents": [rnd(h) for h in half], "margin": margin}
    if pose is not IDENTITY:
        part["pose"] = pose_json(pose)
    return part


def at(x, y, z, yaw=0.0):
    return (qaxis(Z_AXIS, yaw), (x, y, z))


def obstacles(rng):
    obs = []
    # The floor: a thin slab under everything (the base stands on it: an allowed pair).
    obs.append({"name": "floor", "pose": pose_json(at(0.0, 0.0, -0.025)),
                "parts": [box("slab", (2.5, 2.5, 0.025))]})
    # The table in front of the arm: a top and four legs (five parts), top surface z = 0.72.
    tx, ty = 0.80, -0.05
    legs = [box("leg_%d" % i, (0.025, 0.025, 0.35), at(sx * 0.33, sy * 0.43, -0.37))
            for i, (sx, sy) in enumerate(((1, 1), (1, -1), (-1, 1), (-1, -1)))]
    obs.append({"name": "table", "pose": pose_json(at(tx, ty, 0.70)),
                "parts": [box("top", (0.36, 0.48, 0.02))] + legs})
    # The shelf on the left (+y): two sides, a back, three boards.
    sides = [box("side_%d" % i, (0.015, 0.20, 0.60), at(sx * 0.30, 0.0, 0.60))
             for i, sx in enumerate((-1, 1))]
    boards = [box("board_%d" % i, (0.285, 0.19, 0.012), at(0.0, 0.0, z))
              for i, z in enumerate((0.35, 0.70, 1.05))]
    obs.append({"name": "shelf", "pose": pose_json(at(0.10, 0.78, 0.0)),
                "parts": sides + [box("back", (0.30, 0.01, 0.60), at(0.0, 0.20, 0.60))] + boards})
    # Boxes: on the table (one is the dip target), on the floor and on the shelf.
    for name, (x, y, z), half, yaw in (
            ("box_a", (0.70, -0.18, 0.80), (0.08, 0.06, 0.08), 0.3),
            ("box_b", (0.95, 0.20, 0.77), (0.10, 0.07, 0.05), -0.5),
            ("box_c", (0.55, -0.55, 0.15), (0.15, 0.12, 0.15), 0.1),
            ("box_d", (1.05, -0.30, 0.79), (0.05, 0.05, 0.07), 0.9),
            ("crate", (-0.45, -0.50, 0.20), (0.20, 0.20, 0.20), 0.4),
            ("book", (-0.12, 0.76, 0.822), (0.03, 0.10, 0.11), 0.0)):
        obs.append({"name": name, "pose": pose_json(at(x, y, z, yaw)), "parts": [box("body", half)]})
    # Cylinders: cans on the table, a pillar, a bottle on the shelf.
    for name, (x, y, z), radius, half_height in (
            ("can_a", (0.62, 0.12, 0.78), 0.035, 0.06),
            ("can_b", (0.84, -0.36, 0.785), 0.04, 0.065),
            ("bottle", (0.22, 0.74, 0.47), 0.04, 0.11),
            ("pillar", (-0.60, 0.55, 0.75), 0.10, 0.75)):
        obs.append({"name": name, "pose": pose_json(at(x, y, z)),
                    "parts": [{"name": "body", "type": "cylinder", "radius": radius,
                               "half_height": half_height, "margin": 0.0}]})
    # A ball, a traffic cone and a capsule-shaped bar (the other primitive kinds).
    obs.append({"name": "ball", "pose": pose_json(at(0.35, -0.75, 0.12)),
                "parts": [{"name": "body", "type": "sphere", "radius": 0.12, "margin": 0.0}]})
    obs.append({"name": "cone", "pose": pose_json(at(-0.25, -0.85, 0.2)),
                "parts": [{"name": "body", "type": "cone", "radius": 0.12, "half_height": 0.2,
                           "margin": 0.0}]})
    obs.append({"name": "bar", "pose": pose_json((qaxis(X_AXIS, 0.5 * math.pi), (-0.13, 0.0, 1.55))),
                "parts": [{"name": "body", "type": "capsule", "radius": 0.03, "half_height": 0.5,
                           "margin": 0.0}]})
    # A rock: raw points hulled by the daemon, as an obstacle part.
    obs.append({"name": "rock", "pose": pose_json(at(1.15, 0.35, 0.80, 0.7)),
                "parts": [hull_part("body", blob(rng, (0.0, 0.0, 0.0), (0.07, 0.05, 0.06), 60, 20))]})
    return obs


# --------------------------------------------------------------------------- trajectory
# Keyframes of joint angles (radians), q[0] unused; the path is a smooth (cosine-eased)
# interpolation between consecutive keyframes, with the waypoints spread evenly in time.
KEYFRAMES = [
    (0, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),            # folded up, pointing at the sky
    (18, [0.0, 1.50, 0.50, 0.0, 1.20, 0.0, -0.20]),       # reaching into the shelf (+y)
    (32, [0.0, 0.80, 0.30, 0.3, 0.90, 0.0, 0.20]),        # backing out, over the table edge
    (52, [0.0, -0.05, 0.55, 0.0, 1.10, 0.0, 0.35]),       # over the table, hand high
    (64, [0.0, -0.32, 0.70, 0.0, 1.45, 0.0, 0.55]),       # dipping into box_a
    (74, [0.0, -0.40, 0.55, 0.0, 1.45, 0.0, 0.45]),       # dragging along the table
    (88, [0.0, -0.95, 0.30, -0.4, 1.20, 0.6, 0.20]),      # swinging right, past box_c
    (99, [0.0, -1.40, 0.0, 0.0, 0.60, 0.0, 0.0]),         # rising again
]
N_WAYPOINTS = 100


def joint_path():
    path = []
    for (i0, q0), (i1, q1) in zip(KEYFRAMES, KEYFRAMES[1:]):
        for i in range(i0, i1):
            s = (i - i0) / (i1 - i0)
            e = 0.5 - 0.5 * math.cos(math.pi * s)
            path.append([a + e * (b - a) for a, b in zip(q0, q1)])
    path.append(list(KEYFRAMES[-1][1]))
    assert len(path) == N_WAYPOINTS
    return path


# --------------------------------------------------------------------------- the Panda

# The vendored Franka Panda (data/robots/example-robot-data), loaded by scripts/demo with
# `gjkctl load-urdf` (its SRDF too) in place of the arm, base at the origin. Its trajectory is
# in joint space: 60 joint vectors in this DOF order, keyframes blended with a cosine ramp. It
# starts at the Panda's "ready" pose, leans out over the table's near edge (grazing it), comes
# back, swings left and puts its hand into the shelf, and returns.
PANDA_DOF = ["panda_joint%d" % i for i in range(1, 8)] + ["panda_finger_joint1"]
PANDA_READY = [0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785, 0.04]
PANDA_KEYFRAMES = [
    (0, PANDA_READY),
    (15, [-0.25, 0.35, 0.0, -1.75, 0.0, 2.1, 0.785, 0.04]),
    (25, [-0.25, 0.62, 0.0, -1.45, 0.0, 2.05, 0.785, 0.02]),
    (35, [-0.25, 0.35, 0.0, -1.75, 0.0, 2.1, 0.785, 0.04]),
    (50, [1.3, 0.25, 0.0, -1.9, 0.0, 2.1, 0.785, 0.04]),
    (59, PANDA_READY),
]
PANDA_WAYPOINTS = 60


def blend(keyframes, n):
    path = []
    for (i0, q0), (i1, q1) in zip(keyframes, keyframes[1:]):
        for i in range(i0, i1):
            e = 0.5 - 0.5 * math.cos(math.pi * (i - i0) / (i1 - i0))
            path.append([rnd(a + e * (b - a)) for a, b in zip(q0, q1)])
    path.append(list(keyframes[-1][1]))
    assert len(path) == n
    return path


def build_panda():
    path = blend(PANDA_KEYFRAMES, PANDA_WAYPOINTS)
    trajectory = {"format": "gjkd-trajectory/1", "robot": "panda", "name": "panda-sweep",
                  "joint_names": PANDA_DOF, "waypoints": path}
    # One state for `gjkctl joints` (a sensor_msgs/JointState): waypoint 7, the deepest of
    # the lean, panda_link6 5 cm into the table's edge.
    joints = {"name": PANDA_DOF, "position": path[7]}
    # The Panda's base stands on the floor: that contact is allowed (a merge keeps the rest).
    floor = {"format": "gjkd-scene/1", "allowed_pairs": [["panda/panda_link0", "floor"]]}
    return trajectory, joints, floor


# --------------------------------------------------------------------------- files


def build():
    rng = random.Random(SEED)
    links = arm_links(rng)
    robot = {
        "name": "arm",
        "self_collision": True,
        "padding": 0.0,
        "links": [{"name": n, "parts": p} for n, p in zip(LINK_NAMES, links)],
        # Adjacent links touch at their joints by construction: never checked.
        "disabled_pairs": [[LINK_NAMES[i], LINK_NAMES[i + 1]] for i in range(6)]
        + [["upper_arm", "forearm"], ["forearm", "hand"]],
    }
    scene = {
        "format": "gjkd-scene/1",
        "robots": [robot],
        "obstacles": obstacles(rng),
        "allowed_pairs": [["arm/base", "floor"], ["arm/shoulder", "floor"]],
    }
    path = joint_path()
    waypoints = [{"link_poses": [pose_json(t) for t in forward_kinematics(q)]} for q in path]
    trajectory = {"format": "gjkd-trajectory/1", "robot": "arm", "name": "demo-sweep",
                  "waypoints": waypoints}
    poses = {"format": "gjkd-poses/1", "robot": "arm",
             "link_poses": [pose_json(t) for t in forward_kinematics(path[64])]}
    return scene, trajectory, poses


def dumps(v, indent=0):
    """JSON with objects indented and numeric arrays ([x, y, z], [w, x, y, z]) on one line;
    an array of numeric arrays (a point cloud) puts four points per line."""
    pad = " " * indent
    if isinstance(v, dict):
        if not v:
            return "{}"
        if all(not isinstance(x, (dict, list)) or
               (isinstance(x, list) and all(not isinstance(y, (dict, list)) for y in x))
               for x in v.values()) and len(v) <= 2:
            return "{" + ", ".join("%s: %s" % (json.dumps(k), dumps(x)) for k, x in v.items()) + "}"
        items = ['%s  %s: %s' % (pad, json.dumps(k), dumps(x, indent + 2)) for k, x in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list):
        if all(not isinstance(x, (dict, list)) for x in v):
            return "[" + ", ".join(json.dumps(x) for x in v) + "]"
        if all(isinstance(x, list) and all(not isinstance(y, (dict, list)) for y in x) for x in v):
            rows = [", ".join(dumps(x) for x in v[i:i + 4]) for i in range(0, len(v), 4)]
            return "[\n" + ",\n".join(pad + "  " + r for r in rows) + "\n" + pad + "]"
        return "[\n" + ",\n".join(pad + "  " + dumps(x, indent + 2) for x in v) + "\n" + pad + "]"
    return json.dumps(v)


def write(path, doc):
    text = dumps(doc) + "\n"
    if json.loads(text) != doc:
        raise SystemExit("make_demo: the writer changed %s" % path)
    with open(path, "w", encoding="ascii") as f:
        f.write(text)


def rough_clearance(scene, trajectory):
    """A rough clearance profile for sanity checks of the demo itself (not used by gjkd): per
    waypoint, the smallest signed distance from any raw point of the arm to the primitive
    obstacles, minus the part margins. Points only, so it overestimates the distance a little
    where the hull surface between points comes closer."""
    def sd_local(part, p):
        t = part["type"]
        if t == "box":
            h = part["half_extents"]
            d = [abs(p[i]) - h[i] for i in range(3)]
            out = math.sqrt(sum(max(c, 0.0) ** 2 for c in d))
            return out + min(max(d), 0.0)
        if t == "cylinder":
            dr = math.hypot(p[0], p[1]) - part["radius"]
            dz = abs(p[2]) - part["half_height"]
            return math.hypot(max(dr, 0.0), max(dz, 0.0)) + min(max(dr, dz), 0.0)
        if t == "sphere":
            return math.sqrt(sum(c * c for c in p)) - part["radius"]
        if t == "capsule":
            z = max(-part["half_height"], min(part["half_height"], p[2]))
            return math.sqrt(p[0] ** 2 + p[1] ** 2 + (p[2] - z) ** 2) - part["radius"]
        if t == "cone":  # bounded by its cylinder: a lower bound is good enough here
            dr = math.hypot(p[0], p[1]) - part["radius"] * (0.5 - 0.5 * p[2] / part["half_height"])
            dz = abs(p[2]) - part["half_height"]
            return math.hypot(max(dr, 0.0), max(dz, 0.0)) + min(max(dr, dz), 0.0)
        return float("inf")

    def to_local(pose, p):
        q = tuple(pose["quat_wxyz"])
        c = (q[0], -q[1], -q[2], -q[3])
        return qrot(c, tuple(p[i] - pose["position"][i] for i in range(3)))

    allowed = {tuple(a) for a in scene["allowed_pairs"]}
    robot = scene["robots"][0]
    out = []
    for w in trajectory["waypoints"]:
        best = (float("inf"), "")
        for link, lp in zip(robot["links"], w["link_poses"]):
            q, t = tuple(lp["quat_wxyz"]), tuple(lp["position"])
            for part in link["parts"]:
                world = [tuple(a + b for a, b in zip(qrot(q, p), t)) for p in part["points"]]
                for ob in scene["obstacles"]:
                    if ("arm/" + link["name"], ob["name"]) in allowed:
                        continue
                    for op in ob["parts"]:
                        opose = op.get("pose", {"position": [0, 0, 0], "quat_wxyz": [1, 0, 0, 0]})
                        for p in world:
                            d = sd_local(op, to_local(opose, to_local(ob["pose"], p)))
                            d -= part["margin"] + op["margin"]
                            if d < best[0]:
                                best = (d, "%s/%s - %s/%s" % (link["name"], part["name"],
                                                            ob["name"], op["name"]))
        out.append(best)
    return out


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out_dir = args[0] if args else os.path.dirname(os.path.abspath(__file__))
    scene, trajectory, poses = build()
    write(os.path.join(out_dir, "scene.json"), scene)
    write(os.path.join(out_dir, "trajectory.json"), trajectory)
    write(os.path.join(out_dir, "poses.json"), poses)
    panda_trajectory, panda_joints, panda_floor = build_panda()
    write(os.path.join(out_dir, "panda_trajectory.json"), panda_trajectory)
    write(os.path.join(out_dir, "panda_joints.json"), panda_joints)
    write(os.path.join(out_dir, "panda_floor.json"), panda_floor)
    n = [sum(len(p.get("points", [])) for p in l["parts"]) for l in scene["robots"][0]["links"]]
    print("make_demo: %d links (%s raw points), %d obstacles, %d waypoints"
          % (len(n), "/".join(map(str, n)), len(scene["obstacles"]), len(trajectory["waypoints"])))
    if "--check" in sys.argv:
        for i, (d, pair) in enumerate(rough_clearance(scene, trajectory)):
            print("%3d %8.4f %s %s" % (i, d, "#" if d < 0 else " ", pair))


if __name__ == "__main__":
    main()
