"""The JSON documents of gjkd (scene, poses, trajectory) as Python values -> protobuf messages.

The same formats as gjkctl and proto/json (see examples/demo/README.md). The checks here are
the structural ones (types, required keys, unknown keys) with the JSON path in the message;
the daemon validates everything else (finite numbers, sizes, unit quaternions, names)."""

import math

from ._proto import pb

_SHAPE_KEYS = {
    "point": (), "sphere": ("radius",), "capsule": ("radius", "half_height"),
    "cylinder": ("radius", "half_height"), "cone": ("radius", "half_height"),
    "box": ("half_extents",), "ellipsoid": ("radii",), "hull": ("points",),
    "convex": ("points",),
}
_OPTIONAL = {"convex": ("adjacency_start", "adjacency")}


class DocumentError(ValueError):
    """A document that does not follow the format; str() names the JSON path."""


def _obj(v, path, keys, required=()):
    if not isinstance(v, dict):
        raise DocumentError("%s: expected an object, got %s" % (path, type(v).__name__))
    for k in v:
        if k not in keys and k != "comment":
            raise DocumentError("%s: unknown key %r" % (path, k))
    for k in required:
        if k not in v:
            raise DocumentError("%s.%s: missing" % (path, k))
    return v


def _num(v, path):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise DocumentError("%s: expected a finite number, got %r" % (path, v))
    return float(v)


def _nums(v, n, path):
    if not isinstance(v, (list, tuple)) or len(v) != n:
        raise DocumentError("%s: expected an array of %d numbers" % (path, n))
    return [_num(x, "%s[%d]" % (path, i)) for i, x in enumerate(v)]


def _str(v, path):
    if not isinstance(v, str) or not v:
        raise DocumentError("%s: expected a non-empty string" % path)
    return v


def _list(v, path):
    if not isinstance(v, (list, tuple)):
        raise DocumentError("%s: expected an array" % path)
    return v


def pose_to_pb(pose, out, path="pose"):
    """A pose as {"position": [x, y, z], "quat_wxyz": [w, x, y, z]} (both optional) or as a
    pair ((x, y, z), (w, x, y, z)) -> fills the Pose message `out`."""
    if isinstance(pose, (list, tuple)) and len(pose) == 2:
        p, q = pose
    else:
        _obj(pose, path, ("position", "quat_wxyz"))
        p, q = pose.get("position"), pose.get("quat_wxyz")
    if p is not None:
        x, y, z = _nums(p, 3, path + ".position")
        out.position.x, out.position.y, out.position.z = x, y, z
    if q is not None:
        w, x, y, z = _nums(q, 4, path + ".quat_wxyz")
        o = out.orientation
        o.w, o.x, o.y, o.z = w, x, y, z
    return out


def pose_values(pose, path="pose"):
    """The same pose forms as pose_to_pb -> the 7 values of the packed encoding
    (LinkPoses.xyz_wxyz): px, py, pz, qw, qx, qy, qz; absent parts are the origin and the
    identity rotation."""
    if isinstance(pose, (list, tuple)) and len(pose) == 2:
        p, q = pose
    else:
        _obj(pose, path, ("position", "quat_wxyz"))
        p, q = pose.get("position"), pose.get("quat_wxyz")
    xyz = _nums(p, 3, path + ".position") if p is not None else (0.0, 0.0, 0.0)
    wxyz = _nums(q, 4, path + ".quat_wxyz") if q is not None else (1.0, 0.0, 0.0, 0.0)
    return tuple(xyz) + tuple(wxyz)


def link_poses_to_pb(poses, out, path="link_poses"):
    """A list of link poses -> the LinkPoses message `out`, packed (xyz_wxyz)."""
    values = []
    for i, p in enumerate(poses):
        values.extend(pose_values(p, "%s[%d]" % (path, i)))
    out.SetInParent()
    out.xyz_wxyz.extend(values)
    return out


def waypoints_to_pb(waypoints, out, path="waypoints"):
    """A list of waypoints (each a list of link poses) -> the TrajectoryQueryRequest `out`:
    one packed array (waypoint_xyz_wxyz) when every waypoint has as many poses as the first,
    else one Waypoint message each."""
    waypoints = _list(waypoints, path)
    rows = [[pose_values(p, "%s[%d][%d]" % (path, i, j))
             for j, p in enumerate(_list(wp, "%s[%d]" % (path, i)))]
            for i, wp in enumerate(waypoints)]
    if rows and all(len(r) == len(rows[0]) for r in rows):
        out.waypoint_xyz_wxyz.extend(v for r in rows for pose in r for v in pose)
        out.waypoint_count = len(rows)
        return out
    for r in rows:
        lp = out.waypoints.add().link_poses
        lp.SetInParent()
        lp.xyz_wxyz.extend(v for pose in r for v in pose)
    return out


def joint_waypoints_to_pb(waypoints, joint_names, out, path="joint_waypoints"):
    """Joint vectors (one list of DOF values per waypoint, all of one length) -> the packed
    waypoint_joints of the TrajectoryQueryRequest `out`, with joint_names (the columns' joint
    names, every DOF once) unless None (the robot's DOF order)."""
    waypoints = _list(waypoints, path)
    if not waypoints:
        raise DocumentError(path + ": needs at least one waypoint")
    rows = [_list(q, "%s[%d]" % (path, i)) for i, q in enumerate(waypoints)]
    n = len(rows[0])
    for i, q in enumerate(rows):
        if len(q) != n:
            raise DocumentError("%s[%d]: has %d joint values, waypoint 0 has %d"
                                % (path, i, len(q), n))
        out.waypoint_joints.extend(_num(v, "%s[%d][%d]" % (path, i, j)) for j, v in enumerate(q))
    out.waypoint_count = len(rows)
    if joint_names is not None:
        names = [_str(x, "joint_names[%d]" % i) for i, x in enumerate(_list(joint_names,
                                                                          "joint_names"))]
        if len(names) != n:
            raise DocumentError("joint_names: %d names for joint vectors of %d values"
                                % (len(names), n))
        out.joint_names.extend(names)
    return out


def _part(d, out, path):
    t = d.get("type") if isinstance(d, dict) else None
    if t not in _SHAPE_KEYS:
        raise DocumentError("%s.type: expected one of %s" % (path, ", ".join(_SHAPE_KEYS)))
    _obj(d, path, ("name", "type", "margin", "pose") + _SHAPE_KEYS[t] + _OPTIONAL.get(t, ()),
         _SHAPE_KEYS[t])
    if "name" in d:
        out.name = _str(d["name"], path + ".name")
    s = out.shape
    s.margin = _num(d.get("margin", 0.0), path + ".margin")
    if t == "point":
        s.point.SetInParent()
    elif t == "sphere":
        s.sphere.radius = _num(d["radius"], path + ".radius")
    elif t in ("capsule", "cylinder", "cone"):
        m = getattr(s, t)
        m.radius = _num(d["radius"], path + ".radius")
        m.half_height = _num(d["half_height"], path + ".half_height")
    elif t == "box":
        x, y, z = _nums(d["half_extents"], 3, path + ".half_extents")
        s.box.half_extents.x, s.box.half_extents.y, s.box.half_extents.z = x, y, z
    elif t == "ellipsoid":
        a, b, c = _nums(d["radii"], 3, path + ".radii")
        s.ellipsoid.radii.x, s.ellipsoid.radii.y, s.ellipsoid.radii.z = a, b, c
    else:
        m = s.hull if t == "hull" else s.convex
        pts = _list(d["points"], path + ".points")
        for i, p in enumerate(pts):
            m.xyz.extend(_nums(p, 3, "%s.points[%d]" % (path, i)))
        if t == "convex":
            m.adjacency_start.extend(d.get("adjacency_start", []))
            m.adjacency.extend(d.get("adjacency", []))
    if "pose" in d:
        pose_to_pb(d["pose"], out.pose, path + ".pose")


def robot_to_pb(d, out=None, path="robot"):
    out = out if out is not None else pb.Robot()
    _obj(d, path, ("name", "links", "self_collision", "disabled_pairs", "padding",
                   "initial_link_poses"), ("name", "links"))
    out.name = _str(d["name"], path + ".name")
    out.self_collision = bool(d.get("self_collision", False))
    out.padding = _num(d.get("padding", 0.0), path + ".padding")
    for i, l in enumerate(_list(d["links"], path + ".links")):
        lp = "%s.links[%d]" % (path, i)
        _obj(l, lp, ("name", "parts", "padding"), ("name", "parts"))
        link = out.links.add()
        link.name = _str(l["name"], lp + ".name")
        link.padding = _num(l.get("padding", 0.0), lp + ".padding")
        for k, part in enumerate(_list(l["parts"], lp + ".parts")):
            _part(part, link.parts.add(), "%s.parts[%d]" % (lp, k))
    for i, pair in enumerate(_list(d.get("disabled_pairs", []), path + ".disabled_pairs")):
        pp = "%s.disabled_pairs[%d]" % (path, i)
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise DocumentError(pp + ": expected a pair of link names")
        lp = out.disabled_pairs.add()
        lp.a, lp.b = _str(pair[0], pp + "[0]"), _str(pair[1], pp + "[1]")
    for i, pose in enumerate(_list(d.get("initial_link_poses", []), path + ".initial_link_poses")):
        pose_to_pb(pose, out.initial_link_poses.add(), "%s.initial_link_poses[%d]" % (path, i))
    return out


def obstacle_to_pb(d, out=None, path="obstacle"):
    out = out if out is not None else pb.Obstacle()
    _obj(d, path, ("name", "parts", "pose", "padding"), ("name", "parts"))
    out.name = _str(d["name"], path + ".name")
    out.padding = _num(d.get("padding", 0.0), path + ".padding")
    if "pose" in d:
        pose_to_pb(d["pose"], out.pose, path + ".pose")
    for k, part in enumerate(_list(d["parts"], path + ".parts")):
        _part(part, out.parts.add(), "%s.parts[%d]" % (path, k))
    return out


def body_to_pb(b, out, path="body"):
    """"robot/link", "robot/*", "obstacle", {"robot": r, "link": l} or {"obstacle": o}."""
    if isinstance(b, str):
        if "/" in b:
            robot, _, link = b.partition("/")
            if not robot or not link or "/" in link:
                raise DocumentError("%s: %r is not \"robot/link\", \"robot/*\" or \"obstacle\""
                                    % (path, b))
            out.robot = robot
            out.link = "" if link == "*" else link
        else:
            out.obstacle = _str(b, path)
        return out
    _obj(b, path, ("robot", "link", "obstacle"))
    if ("robot" in b) == ("obstacle" in b):
        raise DocumentError(path + ": needs exactly one of \"robot\" and \"obstacle\"")
    if "robot" in b:
        out.robot = _str(b["robot"], path + ".robot")
        out.link = b.get("link", "")
    else:
        out.obstacle = _str(b["obstacle"], path + ".obstacle")
    return out


def allowed_pairs_to_pb(pairs, out_list, path="allowed_pairs"):
    for i, pair in enumerate(_list(pairs, path)):
        pp = "%s[%d]" % (path, i)
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise DocumentError(pp + ": expected a pair [A, B] of bodies")
        ap = out_list.add()
        body_to_pb(pair[0], ap.a, pp + "[0]")
        body_to_pb(pair[1], ap.b, pp + "[1]")


def scene_to_pb(doc):
    """A scene document (dict) -> gjkd_pb2.Scene."""
    _obj(doc, "$", ("format", "robots", "obstacles", "allowed_pairs", "revision"))
    if doc.get("format", "gjkd-scene/1") != "gjkd-scene/1":
        raise DocumentError("$.format: expected \"gjkd-scene/1\"")
    scene = pb.Scene()
    for i, r in enumerate(_list(doc.get("robots", []), "$.robots")):
        robot_to_pb(r, scene.robots.add(), "$.robots[%d]" % i)
    for i, o in enumerate(_list(doc.get("obstacles", []), "$.obstacles")):
        obstacle_to_pb(o, scene.obstacles.add(), "$.obstacles[%d]" % i)
    allowed_pairs_to_pb(doc.get("allowed_pairs", []), scene.allowed_pairs, "$.allowed_pairs")
    return scene


def poses_to_pb(doc):
    """A poses document -> list of (robot, [pose...]) pairs."""
    if "robots" in doc:
        _obj(doc, "$", ("format", "robots"))
        items = [(r, "$.robots[%d]" % i) for i, r in enumerate(_list(doc["robots"], "$.robots"))]
    else:
        items = [(doc, "$")]
    out = []
    for r, path in items:
        _obj(r, path, ("format", "robot", "link_poses") if path == "$" else ("robot", "link_poses"),
             ("robot", "link_poses"))
        out.append((_str(r["robot"], path + ".robot"), _list(r["link_poses"], path + ".link_poses")))
    return out


def is_joint_trajectory(doc):
    """True when a trajectory document gives joint vectors ("waypoints": [[q...], ...])."""
    wps = doc.get("waypoints") if isinstance(doc, dict) else None
    return isinstance(wps, list) and bool(wps) and isinstance(wps[0], list)


def joint_trajectory_doc(doc):
    """A joint-space trajectory document ({"robot", "name", "joint_names" (optional),
    "waypoints": [[q...], ...]}) -> (robot, name, joint_names or None, [[q...] per
    waypoint])."""
    _obj(doc, "$", ("format", "robot", "name", "waypoints", "joint_names"),
         ("robot", "waypoints"))
    wps = [[_num(v, "$.waypoints[%d][%d]" % (i, j))
            for j, v in enumerate(_list(q, "$.waypoints[%d]" % i))]
           for i, q in enumerate(_list(doc["waypoints"], "$.waypoints"))]
    if not wps:
        raise DocumentError("$.waypoints: needs at least one waypoint")
    for i, q in enumerate(wps):
        if len(q) != len(wps[0]):
            raise DocumentError("$.waypoints[%d]: has %d joint values, waypoint 0 has %d"
                                % (i, len(q), len(wps[0])))
    names = doc.get("joint_names")
    if names is not None:
        names = [_str(x, "$.joint_names[%d]" % i)
                 for i, x in enumerate(_list(names, "$.joint_names"))]
        if len(names) != len(wps[0]):
            raise DocumentError("$.joint_names: %d names for joint vectors of %d values"
                                % (len(names), len(wps[0])))
    return _str(doc["robot"], "$.robot"), doc.get("name", ""), names, wps


def trajectory_doc(doc):
    """A trajectory document of link poses -> (robot, name, [[pose per link] per waypoint]).
    Joint-vector documents: joint_trajectory_doc."""
    if is_joint_trajectory(doc):
        raise DocumentError("$.waypoints: joint vectors (read it with joint_trajectory_doc)")
    _obj(doc, "$", ("format", "robot", "name", "waypoints"), ("robot", "waypoints"))
    wps = []
    for i, w in enumerate(_list(doc["waypoints"], "$.waypoints")):
        _obj(w, "$.waypoints[%d]" % i, ("link_poses",), ("link_poses",))
        wps.append(_list(w["link_poses"], "$.waypoints[%d].link_poses" % i))
    return _str(doc["robot"], "$.robot"), doc.get("name", ""), wps
