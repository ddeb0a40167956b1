"""The browser page of `gjkctl view`, from Python (for notebooks): the same page (one template,
tools/viewer, three.js inlined; the build puts it beside the build tree's gjkd_pb2 as
gjkd-page.html) with the same data, gathered through the client.

    import gjkd, gjkd.viewer, json
    with gjkd.Client() as c:
        doc = json.load(open("examples/demo/trajectory.json"))
        gjkd.viewer.write_view(c, "view.html", trajectory=doc, max_distance=0.1)
    # open view.html#waypoint=59; in a notebook: IPython.display.IFrame("view.html", 900, 700)

The scene is the daemon's scene document. Hulls are sent as the points they were put with: the
page's hull of those points is the daemon's polytope (a convex hull is unique; gjkctl sends the
vertices the daemon keeps, the same polytope). Link poses of robots with joints come from the
forward kinematics below (parent * origin * motion(q), mimic joints), from the daemon's current
joint positions and the trajectory's vectors; a link-pose robot's current poses are not in the
scene document (give them as `poses`, {robot: [pose per link]}), else it is drawn at the poses
it was put with."""

import json
import math
import os

from . import documents
from ._proto import pb

DEFAULT_MAX_DISTANCE = 0.1  # as gjkctl view


def page_template(path=None):
    """The page with its @GJKD_DATA@ placeholder: `path`, else $GJKD_VIEWER_PAGE, else
    gjkd-page.html beside the gjkd_pb2 in use (a build tree's BUILD/python)."""
    for p in (path, os.environ.get("GJKD_VIEWER_PAGE"),
              os.path.join(os.path.dirname(os.path.abspath(pb.__file__)), "gjkd-page.html")):
        if p and os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                return f.read()
    raise FileNotFoundError("no gjkd-page.html (build the target gjkd_viewer_page, or set "
                            "GJKD_VIEWER_PAGE to the page a gjkd build made)")


# ------------------------------------------------------------------ poses

def _qmul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def _rotate(q, v):
    w, x, y, z = q
    ux = (y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0])
    uux = (y * ux[2] - z * ux[1], z * ux[0] - x * ux[2], x * ux[1] - y * ux[0])
    return tuple(v[i] + 2.0 * (w * ux[i] + uux[i]) for i in range(3))


def _mul(a, b):
    """Pose a * pose b, each (p, q)."""
    return (tuple(x + y for x, y in zip(_rotate(a[1], b[0]), a[0])), _qmul(a[1], b[1]))


def _unit(q):
    n = math.sqrt(sum(x * x for x in q))
    return tuple(x / n for x in q) if n > 0 else (1.0, 0.0, 0.0, 0.0)


def _pose(m):
    """A Pose message -> (p, q); absent parts the identity."""
    p = (m.position.x, m.position.y, m.position.z) if m.HasField("position") else (0.0, 0.0, 0.0)
    q = ((m.orientation.w, m.orientation.x, m.orientation.y, m.orientation.z)
         if m.HasField("orientation") else (1.0, 0.0, 0.0, 0.0))
    return p, _unit(q)


def _values(pose):
    return list(pose[0]) + list(pose[1])


class _Robot:
    """A robot of the scene document: its DOF and forward kinematics as the core's."""

    FIXED, REVOLUTE, CONTINUOUS, PRISMATIC = 1, 2, 3, 4

    def __init__(self, msg, positions):
        self.msg = msg
        self.links = [l.name for l in msg.links]
        self.joints = list(msg.joints)
        self.dof = [j.name for j in self.joints if j.type != self.FIXED and not j.HasField("mimic")]
        self.q = dict(zip(self.dof, [0.0] * len(self.dof)))
        self.q.update(positions)
        self.base = _pose(msg.base_pose)
        n = len(self.links)
        self.initial = ([_pose(p) for p in msg.initial_link_poses]
                        if len(msg.initial_link_poses) == n else
                        [((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))] * n)

    def forward(self, q, base=None):
        """Link poses (world) for DOF values q {name: value} (others at the current ones)."""
        values = dict(self.q)
        values.update(q)
        children = {j.child for j in self.joints}
        poses = {}
        for name in self.links:
            if name not in children:
                poses[name] = base or self.base
        pending = list(self.joints)
        while pending:
            rest = []
            for j in pending:
                if j.parent not in poses:
                    rest.append(j)
                    continue
                if j.HasField("mimic"):
                    v = j.mimic.multiplier * values[j.mimic.joint] + j.mimic.offset
                else:
                    v = values.get(j.name, 0.0)
                a = (j.axis.x, j.axis.y, j.axis.z)
                na = math.sqrt(sum(x * x for x in a)) or 1.0
                a = tuple(x / na for x in a)
                if j.type in (self.REVOLUTE, self.CONTINUOUS):
                    s = math.sin(v / 2.0)
                    motion = ((0.0, 0.0, 0.0), (math.cos(v / 2.0), a[0] * s, a[1] * s, a[2] * s))
                elif j.type == self.PRISMATIC:
                    motion = (tuple(v * x for x in a), (1.0, 0.0, 0.0, 0.0))
                else:
                    motion = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
                poses[j.child] = _mul(_mul(poses[j.parent], _pose(j.origin)), motion)
            if len(rest) == len(pending):
                raise ValueError("robot %r: joints not a tree" % self.msg.name)
            pending = rest
        return [poses[name] for name in self.links]

    def current(self):
        return self.forward({}) if self.joints else list(self.initial)


def _shape(s):
    kind = s.WhichOneof("kind")
    out = {"kind": "none" if kind is None else kind, "margin": s.margin}
    if kind == "sphere":
        out["radius"] = s.sphere.radius
    elif kind in ("capsule", "cylinder", "cone"):
        m = getattr(s, kind)
        out.update(radius=m.radius, half_height=m.half_height)
    elif kind == "box":
        h = s.box.half_extents
        out["half_extents"] = [h.x, h.y, h.z]
    elif kind in ("hull", "convex"):
        out["vertices"] = list(getattr(s, kind).xyz)
    return out


def _parts(parts):
    return [{"name": p.name or "#%d" % k, "shape": _shape(p.shape), "pose": _values(_pose(p.pose))}
            for k, p in enumerate(parts)]


# ------------------------------------------------------------------ the page

def view_data(client, trajectory=None, max_distance=DEFAULT_MAX_DISTANCE, poses=None):
    """The data of a view page: the scene, and the pairs within max_distance at each waypoint
    of `trajectory` (a gjkd-trajectory/1 document, as a dict) or at the current state."""
    summary = client.scene_summary(include_scene=True)
    scene = summary["scene"]
    positions = {r["name"]: dict(zip(r["joint_names"], r["positions"]))
                 for r in summary["robots"]}
    robots = [_Robot(r, positions.get(r.name, {})) for r in scene.robots]
    bodies, first = [], {}
    for r in robots:
        first[r.msg.name] = len(bodies)
        for l in r.msg.links:
            bodies.append({"robot": r.msg.name, "link": l.name, "name": "%s/%s" % (r.msg.name, l.name),
                           "padding": r.msg.padding + l.padding, "parts": _parts(l.parts)})
    obstacle_poses = []
    for o in scene.obstacles:
        bodies.append({"obstacle": o.name, "name": o.name, "padding": o.padding,
                       "parts": _parts(o.parts)})
        obstacle_poses.append(_pose(o.pose))
    current = []
    for r in robots:
        current.extend((poses or {}).get(r.msg.name) and
                       [_pose(documents.pose_to_pb(p, pb.Pose())) for p in poses[r.msg.name]]
                       or r.current())
    current.extend(obstacle_poses)
    index = {b["name"]: i for i, b in enumerate(bodies)}

    if trajectory is not None:
        if documents.is_joint_trajectory(trajectory):
            robot, name, joint_names, wps = documents.joint_trajectory_doc(trajectory)
            t = client.query_trajectory(robot, joint_waypoints=wps, joint_names=joint_names,
                                        max_distance=max_distance, mode="all")
            r = next(x for x in robots if x.msg.name == robot)
            names = joint_names or r.dof
            frames = [r.forward(dict(zip(names, q))) for q in wps]
        else:
            robot, name, wps = documents.trajectory_doc(trajectory)
            t = client.query_trajectory(robot, wps, max_distance=max_distance, mode="all")
            frames = [[_pose(documents.pose_to_pb(p, pb.Pose())) for p in w] for w in wps]
        states = t["waypoints"]
        title = "%s / %s" % (robot, name) if name else robot
    else:
        robot, title = None, "gjkd scene"
        states = [client.query_state(max_distance=max_distance, mode="all")]
        frames = [None]

    waypoints = []
    for state, frame in zip(states, frames):
        p = list(current)
        if frame is not None:
            p[first[robot]:first[robot] + len(frame)] = frame
        pairs = []
        for x in state.get("pairs") or []:
            a = index.get("%s/%s" % (x["a"]["robot"], x["a"]["link"]))
            b = index.get(x["b"]["obstacle"] if "obstacle" in x["b"] else
                          "%s/%s" % (x["b"]["robot"], x["b"]["link"]))
            if a is None or b is None:
                continue
            pairs.append({"a": a, "b": b, "part_a": x["a"]["part"], "part_b": x["b"]["part"],
                          "d": x["distance"], "status": x["status"],
                          "pa": list(x["point_a"]), "pb": list(x["point_b"]),
                          "la": list(x["local_point_a"]), "lb": list(x["local_point_b"])})
        w = {"poses": [v for pose in p for v in _values(pose)],
             "evaluated": state.get("evaluated", True), "colliding": state["colliding"],
             "pairs": pairs,
             "closest": min(range(len(pairs)), key=lambda i: pairs[i]["d"]) if pairs else -1}
        if state.get("min_distance") is not None:
            w["min_distance"] = state["min_distance"]
        waypoints.append(w)
    return {"format": "gjkd-view/1", "page": "view", "title": title,
            "revision": summary["revision"], "max_distance": max_distance,
            "robots": [r.msg.name for r in robots], "bodies": bodies, "waypoints": waypoints}


def page_html(data, template=None):
    """The page for data (view_data's): the template with the data inlined ("<" escaped so
    that no name can end the data element)."""
    text = json.dumps(data, allow_nan=False, separators=(",", ":")).replace("<", "\\u003c")
    html = template if template is not None else page_template()
    head, mark, tail = html.partition("@GJKD_DATA@")
    if not mark:
        raise ValueError("the page template has no @GJKD_DATA@")
    return head + text + tail


def write_view(client, path, trajectory=None, max_distance=DEFAULT_MAX_DISTANCE, poses=None,
               template=None):
    """Writes the view page to path; returns its data."""
    data = view_data(client, trajectory, max_distance, poses)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page_html(data, template))
    return data
