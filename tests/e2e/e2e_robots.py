#!/usr/bin/python3
"""End-to-end tests of the vendored real robot descriptions (data/robots: the Panda and the
UR5, written by others) through the whole path: URDF/SRDF/mesh import in the client, the wire,
the daemon's kinematics, queries and gradients. Same harness and arguments as e2e.py, whose
helpers (Daemon, run, gjkctl, check, reaping) it uses:

    /usr/bin/python3 tests/e2e/e2e_robots.py --group GROUP --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

The forward kinematics here is the test's own: it reads the URDF with xml.etree (origins as
xyz rpy, axes, mimic joints) and composes rotation matrices in plain Python; it
shares nothing with core/src/kinematics.c or clients/robot/gjkd_urdf.c.

Groups:
  equivalence  the Panda loaded with gjkctl load-urdf (with its SRDF) in one daemon and the same
               geometry (gjkctl urdf-to-json with the joints stripped: a link-pose robot) in
               another, among the same obstacles; at random joint configurations the first gets
               the joint positions, the second the link poses of the test's FK; every part
               pair of query --all (self pairs too) is there in both, its distance agrees to
               1e-12 m and each answer's witnesses are that far apart; through the Python
               client and through gjkctl --json query --all
  srdf         over 200 random configurations of the Panda and 100 of the UR5 with a cutoff
               that reaches every link, the self pairs reported are exactly the pairs neither
               disabled by the SRDF nor adjacent (a link and its nearest ancestor with collision
               geometry, computed here from the URDF): SRDF and adjacent pairs never appear,
               every other pair always does
  gradients_panda  d(distance)/dq of every reported pair (obstacles and self pairs) against
               central finite differences of the daemon's own distances (step 1e-6, compared
               only where halving the step changes the difference by less than 1e-5)
  gradients_ur5    the same for the UR5
  demo         examples/demo's files are make_demo.py's; scripts/demo's Panda steps (load-urdf,
               the allowed floor contact, joints, query --gradients, the joint-space
               trajectory) on the demo daemon
  optimizer    clients/python/examples/optimize_trajectory.py in joint space (the daemon's
               gradients) on the Panda's demo trajectory: clearance improves in 8 iterations"""

import json
import math
import os
import random
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, gjkctl, gjkctl_json  # noqa: E402


def use_gjkctl():
    """The Python client's load_urdf runs gjkctl urdf-to-proto: the one under test."""
    os.environ["GJKD_GJKCTL"] = e2e.ARGS.gjkctl


def robots_dir():
    return os.path.join(e2e.ARGS.source_dir, "data", "robots")


def description(which):
    base = os.path.join(robots_dir(), "example-robot-data", "robots")
    if which == "panda":
        d = os.path.join(base, "panda_description")
        return os.path.join(d, "urdf", "panda.urdf"), os.path.join(d, "srdf", "panda.srdf")
    d = os.path.join(base, "ur_description")
    return os.path.join(d, "urdf", "ur5_robot.urdf"), os.path.join(d, "srdf", "ur5.srdf")


# ------------------------------------------------------------------ the test's own FK


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def matvec(a, v):
    return [sum(a[i][k] * v[k] for k in range(3)) for i in range(3)]


def rot_rpy(r, p, y):
    """URDF: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), \
        math.cos(y), math.sin(y)
    rx = [[1, 0, 0], [0, cr, -sr], [0, sr, cr]]
    ry = [[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]]
    rz = [[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]]
    return matmul(rz, matmul(ry, rx))


def rot_axis(axis, angle):
    """Rodrigues' formula for a unit axis."""
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    t = 1 - c
    return [[c + x * x * t, x * y * t - z * s, x * z * t + y * s],
            [y * x * t + z * s, c + y * y * t, y * z * t - x * s],
            [z * x * t - y * s, z * y * t + x * s, c + z * z * t]]


def quat_wxyz(m):
    """A rotation matrix -> a unit quaternion (Shepperd's method)."""
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = 2 * math.sqrt(tr + 1)
        q = (0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s)
    elif m[0][0] > m[1][1] and m[0][0] > m[2][2]:
        s = 2 * math.sqrt(1 + m[0][0] - m[1][1] - m[2][2])
        q = ((m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s)
    elif m[1][1] > m[2][2]:
        s = 2 * math.sqrt(1 + m[1][1] - m[0][0] - m[2][2])
        q = ((m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s)
    else:
        s = 2 * math.sqrt(1 + m[2][2] - m[0][0] - m[1][1])
        q = ((m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s)
    n = math.sqrt(sum(v * v for v in q))
    return [v / n for v in q]


def floats(text, default):
    return [float(v) for v in text.split()] if text is not None else list(default)


class Urdf:
    """The kinematic tree of a URDF as the file states it (direct <joint> children of <robot>
    only: transmissions also hold <joint> elements)."""

    def __init__(self, path):
        root = ET.parse(path).getroot()
        self.links = [l.get("name") for l in root.findall("link")]
        self.geometry = {l.get("name"): l.find("collision") is not None
                         for l in root.findall("link")}
        self.joints = {}  # child link -> joint dict
        for j in root.findall("joint"):
            o = j.find("origin")
            xyz = floats(o.get("xyz") if o is not None else None, (0, 0, 0))
            rpy = floats(o.get("rpy") if o is not None else None, (0, 0, 0))
            a = j.find("axis")
            axis = floats(a.get("xyz") if a is not None else None, (1, 0, 0))
            n = math.sqrt(sum(v * v for v in axis))
            lim = j.find("limit")
            mimic = j.find("mimic")
            self.joints[j.find("child").get("link")] = {
                "name": j.get("name"), "type": j.get("type"),
                "parent": j.find("parent").get("link"), "xyz": xyz, "rot": rot_rpy(*rpy),
                "axis": [v / n for v in axis],
                "lower": float(lim.get("lower", 0)) if lim is not None else None,
                "upper": float(lim.get("upper", 0)) if lim is not None else None,
                "mimic": None if mimic is None else (mimic.get("joint"),
                                                     float(mimic.get("multiplier", 1)),
                                                     float(mimic.get("offset", 0)))}
        self.by_name = {j["name"]: j for j in self.joints.values()}
        self.dof = [j["name"] for j in self.joints.values()
                    if j["type"] != "fixed" and j["mimic"] is None]

    def position(self, name, q):
        j = self.by_name[name]
        if j["mimic"] is not None:
            src, mul, off = j["mimic"]
            return mul * q[src] + off
        return q.get(name, 0.0)

    def world(self, link, q, memo):
        """The world pose (R, p) of `link` at joint values q (dict name -> value)."""
        if link in memo:
            return memo[link]
        j = self.joints.get(link)
        if j is None:
            memo[link] = ([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0.0, 0.0, 0.0])
            return memo[link]
        pr, pp = self.world(j["parent"], q, memo)
        r = matmul(pr, j["rot"])
        p = [pp[i] + matvec(pr, j["xyz"])[i] for i in range(3)]
        v = self.position(j["name"], q)
        if j["type"] in ("revolute", "continuous"):
            r = matmul(r, rot_axis(j["axis"], v))
        elif j["type"] == "prismatic":
            d = matvec(r, j["axis"])
            p = [p[i] + v * d[i] for i in range(3)]
        memo[link] = (r, p)
        return memo[link]

    def link_poses(self, names, q):
        memo = {}
        out = []
        for n in names:
            r, p = self.world(n, q, memo)
            out.append({"position": p, "quat_wxyz": quat_wxyz(r)})
        return out

    def random_q(self, rng):
        q = {}
        for n in self.dof:
            j = self.by_name[n]
            lo, hi = (j["lower"], j["upper"]) if j["type"] != "continuous" else (-math.pi, math.pi)
            q[n] = lo + (hi - lo) * rng.random()
        return q

    def adjacent(self):
        """Each link with geometry and its nearest ancestor with geometry (MoveIt's rule)."""
        out = set()
        for link in self.links:
            if not self.geometry[link]:
                continue
            a = link
            while a in self.joints:
                a = self.joints[a]["parent"]
                if self.geometry[a]:
                    out.add(frozenset((link, a)))
                    break
        return out


def srdf_disabled(path):
    return {frozenset((d.get("link1"), d.get("link2")))
            for d in ET.parse(path).getroot().findall("disable_collisions")}


# ------------------------------------------------------------------ scene


OBSTACLES = [
    {"name": "table", "pose": {"position": [0.55, 0.0, 0.2]},
     "parts": [{"type": "box", "half_extents": [0.2, 0.35, 0.2]}]},
    {"name": "ball", "pose": {"position": [0.0, 0.45, 0.6]},
     "parts": [{"type": "sphere", "radius": 0.12}]},
    {"name": "post", "pose": {"position": [-0.4, -0.35, 0.5]},
     "parts": [{"type": "cylinder", "radius": 0.06, "half_height": 0.5}]},
    {"name": "shelf", "pose": {"position": [0.1, -0.5, 0.9],
                               "quat_wxyz": [0.9238795325112867, 0.0, 0.0, 0.3826834323650898]},
     "parts": [{"type": "box", "half_extents": [0.25, 0.1, 0.02]},
               {"type": "capsule", "radius": 0.03, "half_height": 0.2,
                "pose": {"position": [0.0, 0.0, -0.3]}}]},
]


def put_obstacles(c):
    for o in OBSTACLES:
        c.put_obstacle(o)


def key(p):
    b = p["b"]
    return (p["a"].get("robot"), p["a"].get("link"), p["a"]["part_index"], b.get("obstacle"),
            b.get("link"), b["part_index"])


def distances(c, max_distance):
    s = c.query_state(max_distance=max_distance, mode="all", per_part=True)
    return {key(p): p["distance"] for p in s["pairs"]}


# ------------------------------------------------------------------ groups


def renamed(k, name):
    return (name,) + k[1:] if k[0] is not None else k


def compare_pairs(a_pairs, b_pairs, what):
    """Pairs of the URDF robot (a) and of the link-pose robot (b, the same names): same set,
    distances, witnesses and normals to 1e-12."""
    a = {key(p): p for p in a_pairs}
    b = {key(p): p for p in b_pairs}
    check(set(a) == set(b), "%s: pairs differ: only URDF %r, only link poses %r"
          % (what, sorted(set(a) - set(b), key=str)[:5], sorted(set(b) - set(a), key=str)[:5]))
    worst = 0.0
    for k in a:
        pa, pb_ = a[k], b[k]
        check(pa["status"] == pb_["status"], "%s %r: status %s vs %s"
              % (what, k, pa["status"], pb_["status"]))
        dd = abs(pa["distance"] - pb_["distance"])
        check(dd <= 1e-12, "%s %r: distance %.17g (joints) vs %.17g (link poses)"
              % (what, k, pa["distance"], pb_["distance"]))
        worst = max(worst, dd)
        # The witnesses need not be the same points (a face against a face has many), but
        # each answer's must be as far apart as its distance says.
        for p in (pa, pb_):
            gap = math.dist(p["point_a"], p["point_b"])
            check(abs(gap - abs(p["distance"])) <= 1e-9, "%s %r: witnesses %.12g apart, "
                  "distance %.12g" % (what, k, gap, p["distance"]))
    return worst


def group_equivalence():
    use_gjkctl()
    urdf, srdf = description("panda")
    model = Urdf(urdf)
    with tempfile.TemporaryDirectory() as tmp:
        doc = json.loads(gjkctl("tcp://127.0.0.1:9", "urdf-to-json", urdf, "--srdf", srdf)[0])
        robot = doc["robots"][0]
        check(robot["joints"], "urdf-to-json carries the joints")
        del robot["joints"]  # the same links and parts, as a link-pose robot
        for k in ("base_pose", "initial_positions"):
            robot.pop(k, None)
        lp_path = os.path.join(tmp, "panda_links.json")
        with open(lp_path, "w") as f:
            json.dump(doc, f)
        names = [l["name"] for l in robot["links"]]
        check(sorted(names) == sorted(model.links), "the import's links are the URDF's")

        dj = e2e.Daemon(demo=False)
        dl = e2e.Daemon(demo=False)
        gjkctl_json(dj, "load-urdf", urdf, "--srdf", srdf, "--package-path", robots_dir())
        gjkctl_json(dl, "load", lp_path)
        with dj.client() as cj, dl.client() as cl:
            put_obstacles(cj)
            put_obstacles(cl)
            dof = cj.scene_summary()["robots"][0]["joint_names"]
            check(dof == model.dof, "DOF order: %r vs the URDF's %r" % (dof, model.dof))
            rng = random.Random(20)
            configs = [{n: 0.0 for n in dof}] + [model.random_q(rng) for _ in range(24)]
            configs[0]["panda_joint4"] = -1.5  # inside its limits [-3.07, -0.07]
            pairs, worst, self_pairs, colliding = 0, 0.0, 0, 0
            for i, q in enumerate(configs):
                cj.set_joint_positions("panda", dof, [q[n] for n in dof])
                cl.set_link_poses("panda", model.link_poses(names, q))
                sj = cj.query_state(max_distance=0.5, mode="all", per_part=True)
                sl = cl.query_state(max_distance=0.5, mode="all", per_part=True)
                worst = max(worst, compare_pairs(sj["pairs"], sl["pairs"], "config %d" % i))
                pairs += len(sj["pairs"])
                self_pairs += sum(1 for p in sj["pairs"] if p["b"].get("link"))
                colliding += sum(1 for p in sj["pairs"] if p["distance"] < 0)
                if i % 8 == 0:  # and through gjkctl --json query --all
                    gj = gjkctl_json(dj, "query", "--all", "--per-part", "--max-distance", "0.5")
                    gl = gjkctl_json(dl, "query", "--all", "--per-part", "--max-distance", "0.5")
                    check(len(gj["pairs"]) == len(sj["pairs"]) == len(gl["pairs"]),
                          "gjkctl query --all: as many pairs as the Python client")
                    for x, y in zip(gj["pairs"], gl["pairs"]):
                        check(abs(x["distance"] - y["distance"]) <= 1e-12,
                              "gjkctl config %d: %r vs %r" % (i, x["distance"], y["distance"]))
            check(pairs >= 100 and self_pairs >= 20 and colliding >= 1,
                  "enough pairs compared: %d (self %d, colliding %d)"
                  % (pairs, self_pairs, colliding))
            print("panda: %d configurations, %d part pairs (%d self, %d colliding), largest "
                  "difference %.3g m" % (len(configs), pairs, self_pairs, colliding, worst))
        check(dj.stop() == 0 and dl.stop() == 0, "gjkd exit status")


def srdf_check(c, which, n):
    urdf, srdf = description(which)
    model = Urdf(urdf)
    c.load_urdf(urdf, srdf=srdf, package_paths=[robots_dir()], name=which)
    dof = [r for r in c.scene_summary()["robots"] if r["name"] == which][0]["joint_names"]
    check(dof == model.dof, "%s DOF order" % which)
    disabled = srdf_disabled(srdf)
    adjacent = model.adjacent()
    check(len(disabled) >= 10 and len(adjacent) >= 5, "%s: %d SRDF pairs, %d adjacent"
          % (which, len(disabled), len(adjacent)))
    with_geometry = [l for l in model.links if model.geometry[l]]
    expected = {frozenset((a, b)) for i, a in enumerate(with_geometry)
                for b in with_geometry[i + 1:]} - disabled - adjacent
    check(expected, "%s: some self pairs remain enabled" % which)
    rng = random.Random(2020)
    for i in range(n):
        q = model.random_q(rng)
        c.set_joint_positions(which, dof, [q[x] for x in dof])
        s = c.query_state(max_distance=10.0, mode="all", robot=which)
        got = {frozenset((p["a"]["link"], p["b"]["link"])) for p in s["pairs"]
               if p["b"].get("robot") == which}
        bad = got & (disabled | adjacent)
        check(not bad, "%s config %d: disabled or adjacent pairs reported: %r"
              % (which, i, sorted(tuple(sorted(x)) for x in bad)))
        check(got == expected, "%s config %d: enabled pairs missing: %r"
              % (which, i, sorted(tuple(sorted(x)) for x in expected - got)))
    print("%s: %d configurations, %d enabled self pairs each, %d SRDF + %d adjacent never"
          % (which, n, len(expected), len(disabled), len(adjacent)))


def group_srdf():
    use_gjkctl()
    d = e2e.Daemon(demo=False)
    with d.client() as c:
        slow = e2e.wrapped()  # gjkd under memcheck (scripts/test's valgrind step): fewer
        srdf_check(c, "panda", 40 if slow else 200)
        c.remove_robot("panda")
        srdf_check(c, "ur5", 20 if slow else 100)
    check(d.stop() == 0, "gjkd exit status")


def gradient_check(which, configs_wanted, obstacle_offset):
    use_gjkctl()
    urdf, srdf = description(which)
    model = Urdf(urdf)
    d = e2e.Daemon(demo=False)
    checked, flagged, pairs, self_checked = 0, 0, 0, 0
    with d.client(timeout=30) as c:
        c.load_urdf(urdf, srdf=srdf, package_paths=[robots_dir()], name=which)
        for o in OBSTACLES:
            o = json.loads(json.dumps(o))
            o["pose"]["position"] = [o["pose"]["position"][k] + obstacle_offset[k]
                                     for k in range(3)]
            c.put_obstacle(o)
        dof = c.scene_summary()["robots"][0]["joint_names"]
        rng = random.Random(7)
        md = 0.3
        for _ in range(configs_wanted):
            q0 = model.random_q(rng)
            q = [q0[n] for n in dof]
            c.set_joint_positions(which, None, q)
            st = c.query_state(max_distance=md, mode="all", per_part=True, gradients=True)
            check(st["joint_names"] == {which: dof}, "joint_names: %r" % st["joint_names"])
            # Central differences of every pair at once: 2 steps x 2 signs per DOF.
            fd = {}
            for h in (1e-6, 5e-7):
                for j in range(len(dof)):
                    vals = []
                    for sign in (1, -1):
                        qq = list(q)
                        qq[j] += sign * h
                        c.set_joint_positions(which, None, qq)
                        vals.append(distances(c, md + 0.01))
                    for k in vals[0]:
                        if k in vals[1]:
                            fd[(h, j, k)] = (vals[0][k] - vals[1][k]) / (2 * h)
            c.set_joint_positions(which, None, q)
            for p in st["pairs"]:
                pairs += 1
                g = p["gradient"][which]
                check(len(g) == len(dof), "gradient length %d" % len(g))
                if p["subgradient"]:
                    flagged += 1
                    continue
                for j in range(len(dof)):
                    f1, f2 = fd.get((1e-6, j, key(p))), fd.get((5e-7, j, key(p)))
                    if f1 is None or f2 is None or abs(f1 - f2) > 1e-5 * (1 + abs(f1)):
                        continue  # not smooth within the step
                    check(abs(g[j] - f1) <= 2e-5 * (1 + abs(f1)),
                          "%s pair %r dof %s: gradient %.9g, finite difference %.9g"
                          % (which, key(p), dof[j], g[j], f1))
                    checked += 1
                    self_checked += 1 if p["b"].get("link") else 0
    check(d.stop() == 0, "gjkd exit status")
    check(checked >= 60 and self_checked >= 1,
          "%s: gradient components checked %d (self pairs %d; pairs %d, flagged %d)"
          % (which, checked, self_checked, pairs, flagged))
    print("%s: %d gradient components checked against finite differences (%d of self pairs); "
          "%d pairs, %d flagged as subgradients" % (which, checked, self_checked, pairs, flagged))


def group_gradients_panda():
    gradient_check("panda", 8, (0.0, 0.0, 0.0))


def group_gradients_ur5():
    # The UR5's base stands at the world origin like the Panda's; its reach is similar.
    gradient_check("ur5", 8, (0.0, 0.0, 0.0))


def group_demo():
    """The Panda part of scripts/demo: examples/demo's files are what make_demo.py writes,
    and the steps scripts/demo runs work on the demo daemon and show what the README says
    (collisions along the trajectory, a gradient of 8 values per pair)."""
    demo_dir = os.path.join(e2e.ARGS.source_dir, "examples", "demo")
    with tempfile.TemporaryDirectory() as tmp:
        rc, out, err = e2e.run(["/usr/bin/python3", os.path.join(demo_dir, "make_demo.py"), tmp])
        check(rc == 0, "make_demo.py: %s" % err[-500:])
        for name in ("scene.json", "trajectory.json", "poses.json", "panda_trajectory.json",
                     "panda_joints.json", "panda_floor.json"):
            with open(os.path.join(tmp, name), "rb") as f, \
                    open(os.path.join(demo_dir, name), "rb") as g:
                check(f.read() == g.read(), "examples/demo/%s is not what make_demo.py writes"
                      % name)
    urdf, srdf = description("panda")
    d = e2e.Daemon()
    gjkctl(d, "remove", "robot", "arm")
    gjkctl(d, "load-urdf", urdf, "--srdf", srdf, "--package-path", robots_dir())
    gjkctl(d, "load", "--merge", os.path.join(demo_dir, "panda_floor.json"))
    gjkctl(d, "joints", "panda", os.path.join(demo_dir, "panda_joints.json"))
    q = gjkctl_json(d, "query", "--all", "--max-distance", "0.1", "--gradients")
    check(q["joint_names"]["panda"] == Urdf(urdf).dof and q["pairs"], "the demo state's pairs")
    check(all(len(p["gradient"]["panda"]) == 8 for p in q["pairs"]), "8 gradient values a pair")
    check(min(p["distance"] for p in q["pairs"]) < 0, "panda_joints.json: a colliding state")
    check(all(p["b"].get("obstacle") != "floor" for p in q["pairs"]
              if p["a"]["link"] == "panda_link0"), "the base on the floor is allowed")
    t = gjkctl_json(d, "trajectory", os.path.join(demo_dir, "panda_trajectory.json"),
                    "--max-distance", "0.1")
    check(len(t["waypoints"]) == 60 and t["colliding_waypoints"] > 0
          and t["min_distance"] < 0, "the Panda's demo trajectory collides somewhere: %r"
          % {k: t.get(k) for k in ("colliding_waypoints", "min_distance")})
    check(d.stop() == 0, "gjkd exit status")


def group_optimizer():
    """clients/python/examples/optimize_trajectory.py in joint space on the demo scene: from
    the demo daemon (it puts the Panda in the arm's place itself) and the Panda's demo
    trajectory, 8 gradient steps on the joints raise the minimum distance by at least 4 cm and
    leave fewer colliding waypoints; every accepted step lowers the cost; the trajectory it
    writes is a joint-space TRAJ.json that gjkctl reads, with the clearance it printed."""
    use_gjkctl()
    d = e2e.Daemon()
    env = dict(os.environ, GJKD_PYTHON_PROTO=e2e.ARGS.python_proto)
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "optimised.json")
        rc, out, err = e2e.run(
            ["/usr/bin/python3", os.path.join(e2e.ARGS.source_dir, "clients", "python",
                                              "examples", "optimize_trajectory.py"),
             "--endpoint", d.endpoint, "--iterations", "8", "--output", out_path,
             "--trajectory", os.path.join(e2e.ARGS.source_dir, "examples", "demo",
                                          "panda_trajectory.json")], 120, env)
        check(rc == 0, "optimize_trajectory (joints): %d\n%s\n%s" % (rc, out[-1500:], err))
        rows = [l.split() for l in out.splitlines() if l.startswith("iteration")
                and "min distance" in l]
        check(len(rows) >= 2, "iterations printed: %r" % out[-800:])
        mins = [float(r[4]) for r in rows]
        colliding = [int(r[8]) for r in rows]
        costs = [float(r[10]) for r in rows]
        check(mins[-1] > mins[0] + 0.04, "the minimum distance rises: %r" % mins)
        check(colliding[-1] < colliding[0], "fewer colliding waypoints: %r" % colliding)
        check(all(b < a for a, b in zip(costs, costs[1:])), "the cost falls: %r" % costs)
        t = gjkctl_json(d, "trajectory", out_path, "--max-distance", "0.1")
        check(len(t["waypoints"]) == 60 and abs(t["min_distance"] - mins[-1]) < 1e-4,
              "the written trajectory: %r vs %r" % (t["min_distance"], mins[-1]))
    print("optimizer: min distance %s" % " -> ".join("%+.4f" % m for m in mins))
    check(d.stop() == 0, "gjkd exit status")


GROUPS = {"demo": group_demo, "optimizer": group_optimizer, "equivalence": group_equivalence, "srdf": group_srdf,
          "gradients_panda": group_gradients_panda, "gradients_ur5": group_gradients_ur5}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
