#!/usr/bin/python3
"""End-to-end tests of pair columns (gjkd.proto PairColumns) in the Python client and of
`gjkctl bench`. Same harness and arguments as e2e.py, whose helpers it uses:

    /usr/bin/python3 tests/e2e/e2e_columns.py --group GROUP --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

Groups:
  arrays  Client.query_trajectory_arrays (numpy arrays from the reply's bytes) holds exactly
          the pairs and numbers of the full form (a request without pair columns, decoded into
          dicts the way the client always did): same pairs in the same order, every double bit
          for bit; its dicts (to_dict) and query_trajectory's are those too; requests from
          numpy arrays (link poses, joint vectors) equal those from lists; gradients in
          columns for a robot with joints, in ALL and CLOSEST modes
  segments  continuous queries: the segment columns (SegmentColumns) of
          query_trajectory_arrays(continuous=True) hold exactly the numbers of the full form's
          SegmentResults, bit for bit, its segment dicts and query_trajectory's are
          segment_to_dict's of the full form, in every mode, link poses and joints; replies
          whose segment columns do not fit together are refused (GjkdError 102)
  bench   `gjkctl bench SCENE TRAJ --json` parses and counts what the query reports (pairs
          reported and checked, waypoints evaluated, colliding waypoints; cold without and
          warm with a named-cache hit); the table form prints both rows"""

import json
import math
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, demo, gjkctl, gjkctl_json, load_json  # noqa: E402


def bits(x):
    return struct.pack("<d", x)


def same_double(packed, full, where):
    """Bit for bit, but for the sign of a zero: protobuf-c leaves out a proto3 double equal to
    zero, -0.0 included, so the full form reads a -0.0 back as +0.0 (the packed arrays keep
    the sign)."""
    if full == 0.0 and packed == 0.0 and math.copysign(1.0, full) > 0:
        return
    check(bits(packed) == bits(full), "%s: %r (%s) vs the full form's %r (%s)"
          % (where, packed, float(packed).hex(), full, float(full).hex()))


def same_values(x, ref, where):
    """Deep comparison, doubles as same_double (dict trees of the client)."""
    if isinstance(ref, dict):
        check(isinstance(x, dict) and set(x) == set(ref), "%s: keys %r vs %r"
              % (where, sorted(x) if isinstance(x, dict) else x, sorted(ref)))
        for k in ref:
            same_values(x[k], ref[k], "%s.%s" % (where, k))
    elif isinstance(ref, (list, tuple)):
        check(isinstance(x, (list, tuple)) and len(x) == len(ref), "%s: %r vs %r"
              % (where, x, ref))
        for i, (a, b) in enumerate(zip(x, ref)):
            same_values(a, b, "%s[%d]" % (where, i))
    elif isinstance(ref, float):
        check(type(x) is float, "%s: %r is not a float" % (where, x))
        same_double(x, ref, where)
    else:
        check(type(x) is type(ref) and x == ref, "%s: %r vs %r" % (where, x, ref))


def full_form(c, robot, waypoints=None, joints=None, continuous=False, **options):
    """The query in the full form (no compact, columnar or pair columns), decoded into the
    dicts of the client's row path (state_to_dict)."""
    pb = e2e.pb
    req = pb.Request()
    t = req.trajectory_query
    t.robot = robot
    t.continuous = continuous
    e2e.gjkd.client._options(t.options, **options)
    if joints is not None:
        e2e.gjkd.documents.joint_waypoints_to_pb(joints, None, t)
    else:
        e2e.gjkd.documents.waypoints_to_pb(waypoints, t)
    r = c.call(req)
    check(r.status.code == pb.STATUS_CODE_OK, "full form: %s" % r.status.message)
    tr = r.trajectory
    check(not tr.HasField("pair_columns") and not tr.HasField("columns"), "a full-form reply")
    return [e2e.gjkd.client.state_to_dict(s) for s in tr.waypoints], tr


def same_as_full_form(a, states, all_pairs, where):
    """The arrays of a TrajectoryArrays against the full form's per-waypoint dicts."""
    import numpy as np

    check(len(a.flags) == len(states), "%s: %d waypoints, the full form %d"
          % (where, len(a.flags), len(states)))
    k = 0
    geometry = ("point_a", "point_b", "local_point_a", "local_point_b", "normal")
    for w, s in enumerate(states):
        pairs = s["pairs"] if all_pairs else ([s["closest"]] if s["closest"] else [])
        check(a.waypoint_start[w] == k and a.waypoint_start[w + 1] - k == len(pairs),
              "%s: waypoint %d: pairs %d..%d, the full form %d"
              % (where, w, a.waypoint_start[w], a.waypoint_start[w + 1], len(pairs)))
        check(bool(a.flags[w] & e2e.gjkd.columns.FLAG_EVALUATED) == s["evaluated"]
              and bool(a.flags[w] & e2e.gjkd.columns.FLAG_COLLIDING) == s["colliding"],
              "%s: waypoint %d flags" % (where, w))
        if s["min_distance"] is None:
            check(np.isnan(a.waypoint_min_distance[w]), "%s: waypoint %d min" % (where, w))
        else:
            same_double(float(a.waypoint_min_distance[w]), s["min_distance"],
                        "%s: waypoint %d min_distance" % (where, w))
        check(int(a.pairs_checked[w]) == s["pairs_checked"], "%s: pairs_checked" % where)
        for p in pairs:
            at = "%s: waypoint %d pair %d" % (where, w, k)
            check(int(a.waypoint[k]) == w, at + ": waypoint index")
            ta, tb, padding = a.table[int(a.pair_index[k])]
            check(ta == p["a"] and tb == p["b"], at + ": %r %r vs %r %r"
                  % (ta, tb, p["a"], p["b"]))
            same_double(padding, p["padding"], at + ".padding")
            same_double(float(a.distance[k]), p["distance"], at + ".distance")
            for name in geometry:
                v = getattr(a, name)[k]
                for i in range(3):
                    same_double(float(v[i]), p[name][i], "%s.%s[%d]" % (at, name, i))
            check(e2e.gjkd.status_name(int(a.status[k])) == p["status"], at + ".status")
            check(int(a.iterations[k]) == p["iterations"] and
                  int(a.epa_iterations[k]) == p["epa_iterations"] and
                  int(a.part_pair_count[k]) == p["part_pair_count"], at + ": counts")
            if "gradient" in p:
                check(a.gradient_a is not None, at + ": no gradient columns")
                g = a.gradient_a[a.gradient_a_start[k]:a.gradient_a_start[k + 1]]
                ref = p["gradient"][p["a"]["robot"]]
                check(len(g) == len(ref), at + ": gradient length")
                for i, x in enumerate(ref):
                    same_double(float(g[i]), x, "%s.gradient[%d]" % (at, i))
                check(bool(a.subgradient[k]) == p["subgradient"], at + ".subgradient")
            k += 1
    check(k == len(a), "%s: %d pairs, the full form %d" % (where, len(a), k))
    return k


# A robot with joints for gradients: a 2-DOF cart (slide along x, turn about z) of two box
# links, between a wall and a post.
CART_SCENE = {
    "format": "gjkd-scene/1",
    "robots": [{
        "name": "cart",
        "links": [{"name": "base", "parts": [{"type": "box", "half_extents": [0.1, 0.1, 0.1]}]},
                  {"name": "body", "parts": [{"type": "box", "half_extents": [0.2, 0.1, 0.1]}]},
                  {"name": "arm", "parts": [
                      {"type": "box", "half_extents": [0.3, 0.05, 0.05],
                       "pose": {"position": [0.3, 0.0, 0.0]}},
                      {"type": "sphere", "radius": 0.08, "pose": {"position": [0.6, 0.0, 0.0]}}]}],
        "joints": [
            {"name": "slide", "type": "prismatic", "parent": "base", "child": "body",
             "origin": {"position": [0, 0, 0.3]}, "axis": [1, 0, 0],
             "limits": {"lower": -1.5, "upper": 1.5}},
            {"name": "turn", "type": "revolute", "parent": "body", "child": "arm",
             "origin": {"position": [0, 0, 0.2]}, "axis": [0, 0, 1],
             "limits": {"lower": -3.0, "upper": 3.0}}]}],
    "obstacles": [
        {"name": "wall", "pose": {"position": [1.4, 0, 0.4]},
         "parts": [{"type": "box", "half_extents": [0.05, 1.0, 0.5]}]},
        {"name": "post", "pose": {"position": [0.0, 0.9, 0.4]},
         "parts": [{"type": "cylinder", "radius": 0.1, "half_height": 0.5},
                   {"type": "sphere", "radius": 0.15, "pose": {"position": [0, 0, 0.6]}}]}],
}


def group_arrays():
    import numpy as np

    doc = load_json("trajectory.json")
    waypoints = [w["link_poses"] for w in doc["waypoints"]]
    poses = np.array([[list(p.get("position", [0, 0, 0])) + list(p.get("quat_wxyz", [1, 0, 0, 0]))
                       for p in w] for w in waypoints])
    d = e2e.Daemon()
    compared = 0
    with d.client() as c:
        for mode, per_part, max_distance in (("all", False, 0.1), ("all", True, 0.1),
                                             ("all", False, 0.5), ("closest", False, 0.1),
                                             ("first_collision", False, None)):
            where = "arm %s per_part=%s max_distance=%s" % (mode, per_part, max_distance)
            kw = dict(mode=mode, per_part=per_part, max_distance=max_distance)
            states, _ = full_form(c, doc["robot"], waypoints, **kw)
            a = c.query_trajectory_arrays(doc["robot"], poses, **kw)
            check(a.handler_seconds > 0, where + ": handler_seconds")
            compared += same_as_full_form(a, states, mode == "all", where)
            from_lists = c.query_trajectory_arrays(doc["robot"], waypoints, **kw)
            check(from_lists.distance.tobytes() == a.distance.tobytes() and
                  from_lists.geometry.tobytes() == a.geometry.tobytes(),
                  where + ": numpy and list requests answer alike")
            dicts = c.query_trajectory(doc["robot"], waypoints, **kw)
            same_values(dicts["waypoints"], states, where + " (query_trajectory)")
            same_values(a.to_dict()["waypoints"], dicts["waypoints"], where + " (to_dict)")
            check(a.to_dict()["min_distance"] == dicts["min_distance"] and
                  a.first_collision == dicts["first_collision"], where + ": summary")
            check(not a.geometry.flags.writeable, where + ": the arrays are read-only views")
        check(compared > 300, "compared %d pairs" % compared)

        # a robot with joints: joint vectors from numpy, gradients in the columns
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "cart.json")
            with open(path, "w") as f:
                json.dump(CART_SCENE, f)
            gjkctl(d, "load", path)
        q = np.stack([np.linspace(-1.2, 1.2, 40), np.linspace(-2.5, 2.5, 40)], axis=1)
        for mode in ("all", "closest"):
            where = "cart %s gradients" % mode
            kw = dict(mode=mode, max_distance=0.6, gradients=True)
            states, _ = full_form(c, "cart", joints=q.tolist(), **kw)
            a = c.query_trajectory_arrays("cart", joint_waypoints=q, **kw)
            n = same_as_full_form(a, states, mode == "all", where)
            check(n > (20 if mode == "all" else 10) and a.gradient_a is not None and len(a.gradient_a) == 2 * n,
                  where + ": %d pairs, gradients %r" % (n, a.gradient_a))
            check(a.joint_names == {"cart": ["slide", "turn"]}, where + ": joint names")
            dicts = c.query_trajectory("cart", joint_waypoints=q.tolist(), **kw)
            same_values(dicts["waypoints"], states, where + " (query_trajectory)")
            same_values(a.to_dict(), dicts, where + " (to_dict)")
            swapped = c.query_trajectory_arrays("cart", joint_waypoints=q[:, ::-1],
                                                joint_names=["turn", "slide"], **kw)
            check(swapped.distance.tobytes() == a.distance.tobytes(),
                  where + ": permuted numpy columns with joint_names")
        try:
            c.query_trajectory_arrays("cart", joint_waypoints=np.zeros((3, 2, 1)))
            check(False, "a 3-dimensional joint array is refused")
        except ValueError:
            pass
    check(d.stop() == 0, "gjkd exit status")


def same_segments(a, segments, where):
    """The segment arrays of a TrajectoryArrays against the full form's SegmentResults;
    returns the verdicts seen (0 for a segment not evaluated)."""
    import numpy as np

    check(a.continuous and len(a.segment_t) == len(segments), "%s: %d segments, the full "
          "form %d" % (where, 0 if a.segment_t is None else len(a.segment_t), len(segments)))
    verdicts = set()
    geometry = ("point_a", "point_b", "local_point_a", "local_point_b", "normal")
    for i, s in enumerate(segments):
        at = "%s: segment %d" % (where, i)
        verdicts.add(s.verdict if s.evaluated else 0)
        check(bool(a.segment_evaluated[i]) == s.evaluated and
              int(a.segment_verdict[i]) == s.verdict, at + ": verdict")
        same_double(float(a.segment_t[i]), s.t, at + ".t")
        if s.WhichOneof("clearance_opt") == "clearance_lower_bound":
            check(bits(float(a.segment_clearance_lower_bound[i])) ==
                  bits(s.clearance_lower_bound), at + ".clearance_lower_bound")
        else:
            check(np.isnan(a.segment_clearance_lower_bound[i]), at + ": no clearance")
        check(int(a.segment_pairs_checked[i]) == s.pairs_checked and
              int(a.segment_pairs_undecided[i]) == s.pairs_undecided and
              int(a.segment_evaluations[i]) == s.evaluations, at + ": counters")
        k = int(a.segment_pair_index[i])
        check((k >= 0) == s.HasField("pair"), at + ": pair index %d" % k)
        if k < 0:
            continue
        p = e2e.gjkd.client.pair_to_dict(s.pair)
        ta, tb, padding = a.table[k]
        check(ta == p["a"] and tb == p["b"], at + ": %r %r vs %r %r" % (ta, tb, p["a"], p["b"]))
        same_double(padding, p["padding"], at + ".padding")
        same_double(float(a.segment_distance[i]), p["distance"], at + ".distance")
        for j, name in enumerate(geometry):
            for x in range(3):
                same_double(float(a.segment_geometry[i, 3 * j + x]), p[name][x],
                            "%s.%s[%d]" % (at, name, x))
        check(e2e.gjkd.status_name(int(a.segment_status[i])) == p["status"] and
              int(a.segment_iterations[i]) == p["iterations"] and
              int(a.segment_epa_iterations[i]) == p["epa_iterations"] and
              int(a.segment_part_pair_count[i]) == p["part_pair_count"], at + ": pair counts")
    return verdicts


def refused(tr, what):
    """A reply with the trajectory result tr is refused by both decoders (numpy, dicts)."""
    r = e2e.pb.Response()
    r.trajectory.CopyFrom(tr)
    try:
        e2e.gjkd.columns.TrajectoryArrays(r, False, False)
        check(False, what + ": the arrays accept it")
    except e2e.gjkd.columns.InconsistentReply:
        pass
    if tr.HasField("segment_columns"):
        try:
            e2e.gjkd.columns.segment_columns_dicts(tr)
            check(False, what + ": the dicts accept it")
        except e2e.gjkd.columns.InconsistentReply:
            pass


def group_segments():
    import numpy as np

    doc = load_json("trajectory.json")
    waypoints = [w["link_poses"] for w in doc["waypoints"]]
    d = e2e.Daemon()
    verdicts = set()
    with d.client() as c:
        q = np.stack([np.linspace(-1.2, 1.2, 40), np.linspace(-2.5, 2.5, 40)], axis=1)
        cases = [(doc["robot"], dict(waypoints=waypoints), mode, md)
                 for mode, md in (("closest", None), ("closest", 0.1), ("all", 0.1),
                                  ("first_collision", None))]
        cases += [("cart", dict(joint_waypoints=q.tolist()), mode, md)
                  for mode, md in (("closest", None), ("all", 0.3), ("first_collision", None))]
        last, cart = None, False
        for robot, traj, mode, md in cases:
            if robot == "cart" and not cart:
                cart = True
                with tempfile.TemporaryDirectory() as tmp:  # the demo first, then the cart
                    path = os.path.join(tmp, "cart.json")
                    with open(path, "w") as f:
                        json.dump(CART_SCENE, f)
                    gjkctl(d, "load", path)
            where = "%s %s max_distance=%s" % (robot, mode, md)
            kw = dict(mode=mode, max_distance=md)
            _, tr = full_form(c, robot, traj.get("waypoints"), traj.get("joint_waypoints"),
                              continuous=True, **kw)
            check(len(tr.segments) > 0 and not tr.HasField("segment_columns"),
                  where + ": full-form segments")
            ref = [e2e.gjkd.client.segment_to_dict(s) for s in tr.segments]
            a = c.query_trajectory_arrays(robot, continuous=True, **traj, **kw)
            verdicts |= same_segments(a, tr.segments, where)
            check(a.first_contact_segment == tr.first_contact_segment and
                  a.undecided_segments == tr.undecided_segments, where + ": summary")
            check(not a.segment_t.flags.writeable, where + ": read-only arrays")
            dicts = c.query_trajectory(robot, continuous=True, **traj, **kw)
            same_values(dicts["segments"], ref, where + " (query_trajectory)")
            same_values(a.to_dict()["segments"], ref, where + " (to_dict)")
            check(dicts["first_contact_segment"] == tr.first_contact_segment, where + ": first")
            plain = c.query_trajectory_arrays(robot, **traj, **kw)
            check(not plain.continuous and plain.segment_t is None and
                  "segments" not in plain.to_dict(), where + ": no segments unasked")
            last = a
        check({0, 1, 2} <= verdicts, "verdicts seen: %r" % sorted(verdicts))

        # inconsistent segment columns (from the last real reply) are refused
        good = e2e.pb.TrajectoryResult()
        good.segment_columns.CopyFrom(last._tr.segment_columns)
        good.pair_table.extend(last._tr.pair_table)
        good.pair_columns.SetInParent()
        good.columns.SetInParent()
        n = len(good.segment_columns.t)
        bad = e2e.pb.TrajectoryResult()
        bad.CopyFrom(good)
        bad.segment_columns.pair_index[0] = len(good.pair_table)
        refused(bad, "a pair index past the table")
        bad.CopyFrom(good)
        bad.segment_columns.pair_index[0] = -2
        refused(bad, "a pair index below -1")
        bad.CopyFrom(good)
        del bad.segment_columns.t[n - 1]
        refused(bad, "a short t")
        bad.CopyFrom(good)
        del bad.segment_columns.geometry[0]
        refused(bad, "14 geometry values")
        bad.CopyFrom(good)
        bad.segments.add().evaluated = True
        refused(bad, "SegmentResults beside segment columns")
        bad.CopyFrom(good)
        r = e2e.pb.Response()
        r.trajectory.CopyFrom(good)
        check(e2e.gjkd.columns.TrajectoryArrays(r, False, False).segment_t.tobytes() ==
              last.segment_t.tobytes(), "the untouched copy decodes")
    check(d.stop() == 0, "gjkd exit status")


def group_bench():
    d = e2e.Daemon()
    scene, traj = demo("scene.json"), demo("trajectory.json")
    doc = load_json("trajectory.json")
    waypoints = [w["link_poses"] for w in doc["waypoints"]]
    b = gjkctl_json(d, "bench", scene, traj, "--all", "--max-distance", "0.1", "--repeat", "3")
    with d.client() as c:
        t = c.query_trajectory(doc["robot"], waypoints, mode="all", max_distance=0.1)
    reported = sum(len(w["pairs"]) for w in t["waypoints"])
    checked = sum(w["pairs_checked"] for w in t["waypoints"])
    check(b["repeat"] == 3 and b["waypoints"] == len(waypoints) and b["mode"] == "all" and
          b["max_distance"] == 0.1 and b["robot"] == doc["robot"], "bench header: %r" % b)
    scene_doc = load_json("scene.json")
    check(b["scene"]["robots"] == len(scene_doc["robots"]) and
          b["scene"]["obstacles"] == len(scene_doc["obstacles"]), "bench scene: %r" % b["scene"])
    for kind in ("cold", "warm"):
        r = b[kind]
        check(r["pairs_reported"] == reported, "%s: %d pairs reported, the query %d"
              % (kind, r["pairs_reported"], reported))
        check(r["waypoints_evaluated"] == len(waypoints), kind + ": waypoints evaluated")
        check(r["colliding_waypoints"] == t["colliding_waypoints"], kind + ": colliding")
        check(0 < r["handler_ms_min"] <= r["handler_ms_median"], kind + ": handler %r" % r)
        check(0 < r["round_trip_ms_min"] <= r["round_trip_ms_median"], kind + ": round trip")
        check(r["pairs_candidate"] >= r["pairs_checked"] > 0, kind + ": counts %r" % r)
    check(b["cold"]["pairs_checked"] == checked, "cold: %d pairs checked, the query %d"
          % (b["cold"]["pairs_checked"], checked))
    check(not b["cold"]["cache_hit"] and b["warm"]["cache_hit"], "cold misses, warm hits")
    # closest mode: one pair per waypoint that has one
    b = gjkctl_json(d, "bench", scene, traj, "--max-distance", "0.1", "--repeat", "1")
    closest = sum(1 for w in t["waypoints"] if w["closest"])
    check(b["cold"]["pairs_reported"] == closest and b["mode"] == "closest",
          "closest: %d pairs, expected %d" % (b["cold"]["pairs_reported"], closest))
    out, _ = gjkctl(d, "bench", scene, traj, "--repeat", "2")
    check("cold" in out and "warm" in out and "handler ms" in out, "bench table: %r" % out)
    # bad input: exit 2, nothing sent
    gjkctl(d, "bench", scene, expect=2)
    gjkctl(d, "bench", scene, traj, "--repeat", "0", expect=2)
    check(d.stop() == 0, "gjkd exit status")


GROUPS = {"arrays": group_arrays, "segments": group_segments, "bench": group_bench}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
