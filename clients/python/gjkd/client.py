"""The gjkd Python client: the same calls as libgjkd-client, plain Python values in and out.

Transport: one ZeroMQ DEALER socket per Client (not thread-safe: one Client per thread).
Each call waits `timeout` seconds; on a timeout the socket is closed and reopened and the
request sent again with the same request_id, `retries` more times (Lazy Pirate), then Timeout
is raised; the request carries that timeout as its deadline (Request.deadline_ms: the daemon
does not start it, or stops a query, past it). A scene change (put, remove, set_allowed_pairs, load_scene) carries a change token,
16 random bytes per call, the same on every retry (Request.change_token; one the caller set is
kept): the daemon runs it once and answers a retry with the first attempt's reply, so a change
whose reply was lost is reported as done, not done twice. A reply with a status other than OK raises GjkdError (code, name, message).

CURVE (gjkd --curve-secret-key/--curve-allow): pass server_key (the daemon's public key) and
secret_key (this client's secret key; its public key must be on the daemon's allow-list), each
as Z85 text (40 characters) or the path of a key file written by `gjkctl keygen`; without
them the environment's GJKD_SERVER_KEY and GJKD_CLIENT_KEY (paths) are used if both are set.
A daemon that refuses the client in the handshake (key not on its allow-list, CURVE on one side
only, a wrong server key) sends no reply; the socket monitor sees it and the call raises
Unauthenticated (code 21) at once, without retrying.

Values: metres, radians; a pose is {"position": [x, y, z], "quat_wxyz": [w, x, y, z]} or a
pair ((x, y, z), (w, x, y, z)); vectors come back as (x, y, z) tuples. Normals are unit
vectors from body A (a robot link) towards body B, and point_b - point_a = distance * normal."""

import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import time

import zmq
import zmq.utils.monitor as zmq_monitor
import zmq.utils.z85

from . import columns, documents
from ._proto import pb

DEFAULT_ENDPOINT = "tcp://127.0.0.1:7471"
OK = pb.STATUS_CODE_OK

_MODES = {"closest": pb.QUERY_MODE_CLOSEST, "all": pb.QUERY_MODE_ALL_WITHIN,
          "first_collision": pb.QUERY_MODE_FIRST_COLLISION}


def load_key(value, secret=False):
    """A CURVE key as 40 bytes of Z85: value is Z85 text (str or bytes) or a key file's path
    (blank and '#' lines skipped). A secret key file must not be readable by group or others."""
    if isinstance(value, bytes):
        value = value.decode("ascii")
    text = value.strip()
    if len(text) == 40 and not os.path.exists(text):
        key = text
    else:
        if secret and os.stat(value).st_mode & 0o077:
            raise ValueError("secret key file %r is accessible by group or others; "
                             "run: chmod 600 %r" % (value, value))
        with open(value) as f:
            lines = [ln.strip() for ln in f if ln.strip() and not ln.strip().startswith("#")]
        if not lines:
            raise ValueError("key file %r holds no key" % value)
        key = lines[0]
    try:
        if len(key) != 40 or len(zmq.utils.z85.decode(key)) != 32:
            raise ValueError
    except Exception:  # noqa: BLE001 - z85 raises several kinds
        raise ValueError("not a Z85 CURVE key (40 characters): %r" % (value,)) from None
    return key.encode("ascii")


def _curve_keys(server_key, secret_key):
    """(server, secret) as Z85 bytes, from the arguments or the environment; None = plain."""
    if server_key is None and secret_key is None:
        server_key = os.environ.get("GJKD_SERVER_KEY") or None
        secret_key = os.environ.get("GJKD_CLIENT_KEY") or None
        if server_key is None or secret_key is None:
            return None
    if server_key is None or secret_key is None:
        raise ValueError("CURVE needs both server_key and secret_key")
    return load_key(server_key), load_key(secret_key, secret=True)


def _apply_curve(socket, keys):
    if keys is None:
        return
    server, secret = keys
    socket.curve_serverkey = server
    socket.curve_secretkey = secret
    socket.curve_publickey = zmq.curve_public(secret)


def status_name(code):
    """"OK", "NOT_FOUND", ... for a StatusCode number."""
    try:
        return pb.StatusCode.Name(code)[len("STATUS_CODE_"):]
    except ValueError:
        return "UNKNOWN"


class GjkdError(Exception):
    """The daemon refused a request: .code (StatusCode number), .name, .message."""

    def __init__(self, code, message, revision=0):
        self.code, self.name, self.message, self.revision = code, status_name(code), message, revision
        super().__init__("%s: %s" % (self.name, message))


class Unauthenticated(GjkdError):
    """The daemon refused this client in the handshake (CURVE/ZAP): no reply, no retry."""

    def __init__(self, message):
        GjkdError.__init__(self, 21, message)


# Handshake refusals send no reply; the socket monitor sees them (see clients/c/gjkd_client.c).
_HANDSHAKE_FAILED = (zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
                     | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
_MECHANISM_MISMATCH = 0x11000002  # ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH


# Request bodies that carry a change token (gjkd.proto, Request.change_token).
_SCENE_CHANGES = ("put_robot", "remove_robot", "put_obstacle", "remove_obstacle",
                  "set_allowed_pairs", "load_scene")


class Timeout(GjkdError):
    """No reply after every retry."""

    def __init__(self, message):
        Exception.__init__(self, "TIMEOUT: " + message)
        self.code, self.name, self.message, self.revision = 100, "TIMEOUT", message, 0


class UrdfImportError(Exception):
    """A URDF could not be imported (gjkctl's one-line message: file, line, element), or
    gjkctl was not found."""


def _find_gjkctl():
    """gjkctl: $GJKD_GJKCTL, else on PATH, else beside the running interpreter (a venv's or
    prefix's bin/), else the build trees of this package's source tree (build*/clients/gjkctl
    beside clients/python)."""
    env = os.environ.get("GJKD_GJKCTL")
    if env:
        if not os.access(env, os.X_OK):
            raise UrdfImportError("GJKD_GJKCTL=%s: not an executable gjkctl" % env)
        return env
    found = shutil.which("gjkctl")
    if found:
        return found
    beside = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "gjkctl")
    if os.access(beside, os.X_OK):
        return beside
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    tried = ["$GJKD_GJKCTL (not set)", "gjkctl on PATH", beside]
    if os.path.isfile(os.path.join(root, "proto", "gjkd", "v1", "gjkd.proto")):
        for d in ["build"] + sorted(n for n in os.listdir(root) if n.startswith("build")):
            path = os.path.join(root, d, "clients", "gjkctl")
            if os.access(path, os.X_OK):
                return path
    tried.append(os.path.join(root, "build*", "clients", "gjkctl"))
    raise UrdfImportError("gjkctl not found (looked at %s); set GJKD_GJKCTL" % ", ".join(tried))


def urdf_to_robot(path, srdf=None, package_paths=(), name=None, disable_adjacent=True,
                  timeout=120.0):
    """Imports a URDF (with an optional SRDF and its collision meshes) into a gjkd_pb2.Robot
    with joints, without a daemon. The import is libgjkd-urdf's, run as `gjkctl urdf-to-proto`
    in a child process: the one C implementation (no second parser here), and the XML and
    mesh parsers stay out of this process. package_paths: directories DIR searched for
    package://PKG/... as DIR/PKG/... (in order). Raises UrdfImportError."""
    cmd = [_find_gjkctl(), "urdf-to-proto", os.fspath(path)]
    if srdf:
        cmd += ["--srdf", os.fspath(srdf)]
    for d in package_paths:
        cmd += ["--package-path", os.fspath(d)]
    if name:
        cmd += ["--name", name]
    if not disable_adjacent:
        cmd.append("--no-adjacent")
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=timeout, check=False)
    except OSError as e:
        raise UrdfImportError("%s: %s" % (cmd[0], e)) from None
    except subprocess.TimeoutExpired:
        raise UrdfImportError("%s: no result within %g s" % (path, timeout)) from None
    if p.returncode != 0:
        msg = p.stderr.decode(errors="replace").strip()
        if msg.startswith("gjkctl: "):
            msg = msg[len("gjkctl: "):]
        raise UrdfImportError(msg or "gjkctl urdf-to-proto exited %d" % p.returncode)
    robot = pb.Robot()
    robot.ParseFromString(p.stdout)
    return robot


def _vec(v):
    return (v.x, v.y, v.z)


def _body(b):
    if b.obstacle:
        return {"obstacle": b.obstacle}
    return {"robot": b.robot, "link": b.link}


def _pair_dict(names, geometry, distance, status, iterations, epa_iterations, part_pair_count):
    """A pair as a dict: bodies, parts, ids and padding from `names` (a PairResult), the
    points and normal from `geometry` (15 values) or, when None, from `names` itself.
    part_pair_count: the part pairs the entry stands for (a body pair in "all" mode: those
    within max_distance, the entry being the nearest of them; otherwise 1)."""
    a = _body(names.body_a)
    a.update(part=names.part_a, id=names.body_a_id, part_index=names.part_a_index)
    b = _body(names.body_b)
    b.update(part=names.part_b, id=names.body_b_id, part_index=names.part_b_index)
    if geometry is None:
        g = {"point_a": _vec(names.point_a), "point_b": _vec(names.point_b),
             "local_point_a": _vec(names.local_point_a),
             "local_point_b": _vec(names.local_point_b), "normal": _vec(names.normal)}
    else:
        g = {"point_a": tuple(geometry[0:3]), "point_b": tuple(geometry[3:6]),
             "local_point_a": tuple(geometry[6:9]), "local_point_b": tuple(geometry[9:12]),
             "normal": tuple(geometry[12:15])}
    d = {"a": a, "b": b, "distance": distance, "status": status_name(status),
         "iterations": iterations, "epa_iterations": epa_iterations, "padding": names.padding,
         "part_pair_count": part_pair_count}
    d.update(g)
    return d


def _gradients(p, d):
    """QueryOptions.gradients: "gradient": {robot: [d(distance)/dq ...]} in the DOF order of
    the answer's "joint_names" (A's robot: both chains for a self pair; B's robot when it is
    another robot with joints), and "subgradient" (the witnesses are not unique)."""
    if len(p.gradient_a) == 0 and len(p.gradient_b) == 0:
        return d
    g = {}
    if len(p.gradient_a):
        g[d["a"]["robot"]] = list(p.gradient_a)
    if len(p.gradient_b):
        g[d["b"]["robot"]] = list(p.gradient_b)
    d["gradient"] = g
    d["subgradient"] = p.subgradient
    return d


def pair_to_dict(p, table=None):
    """A PairResult as a dict. A compact pair (geometry set, QueryOptions.compact) takes its
    bodies, parts, ids and padding from table[p.pair_index] (TrajectoryResult.pair_table)."""
    if len(p.geometry) == 0:
        return _gradients(p, _pair_dict(p, None, p.distance, p.status, p.iterations,
                                        p.epa_iterations, p.part_pair_count))
    if len(p.geometry) != 15 or table is None or p.pair_index >= len(table):
        raise GjkdError(102, "inconsistent compact pair in the reply")
    return _gradients(p, _pair_dict(table[p.pair_index], tuple(p.geometry), p.distance,
                                    p.status, p.iterations, p.epa_iterations, p.part_pair_count))


_VERDICT = {1: "clear", 2: "contact", 3: "undecided"}


def segment_to_dict(s):
    """A SegmentResult (continuous trajectory check) as a dict: "evaluated" (False, and
    nothing else, after the first contact in first-collision mode), "verdict" ("clear", "contact"
    or "undecided"), "t" (fraction of the segment: contact the time of contact, undecided
    where the certificate stops, clear the closest approach found), "clearance_lower_bound"
    (clear only: certified metres, None when nothing is in reach), "pair" (or None), and the
    work counters "pairs_checked", "pairs_undecided", "evaluations"."""
    if not s.evaluated:  # after the first contact in first-collision mode
        return {"evaluated": False}
    d = {"evaluated": True, "verdict": _VERDICT.get(s.verdict, "unspecified"), "t": s.t,
         "pair": pair_to_dict(s.pair) if s.HasField("pair") else None,
         "pairs_checked": s.pairs_checked, "pairs_undecided": s.pairs_undecided,
         "evaluations": s.evaluations}
    if s.verdict == 1:
        has = s.WhichOneof("clearance_opt") == "clearance_lower_bound"
        d["clearance_lower_bound"] = s.clearance_lower_bound if has else None
    return d


def joint_names_to_dict(joint_names):
    """RobotJoints messages -> {robot: [DOF names in order]}."""
    return {j.robot: list(j.names) for j in joint_names}


_FLAG = {name: pb.WaypointFlag.Value("WAYPOINT_FLAG_" + name.upper())
         for name in ("evaluated", "colliding", "truncated", "has_min_distance", "has_closest")}


def columns_to_states(c, table):
    """The waypoints of a columnar trajectory reply (WaypointColumns) as the dicts
    state_to_dict gives for the other forms."""
    n, closest = len(c.flags), len(c.pair_index)
    if (len(c.min_distance) != n or len(c.pairs_checked) != n or len(c.pairs_candidate) != n
            or len(c.distance) != closest or len(c.status) != closest
            or len(c.iterations) != closest or len(c.epa_iterations) != closest
            or len(c.geometry) != 15 * closest):
        raise GjkdError(102, "inconsistent columnar trajectory reply")
    flags, geometry, index = list(c.flags), list(c.geometry), list(c.pair_index)
    states, k = [], 0
    for i in range(n):
        f = flags[i]
        pair = None
        if f & _FLAG["has_closest"]:
            if k >= closest or index[k] >= len(table):
                raise GjkdError(102, "inconsistent columnar trajectory reply")
            # columns come in CLOSEST and FIRST_COLLISION mode only: part pairs, count 1
            pair = _pair_dict(table[index[k]], geometry[15 * k:15 * k + 15], c.distance[k],
                              c.status[k], c.iterations[k], c.epa_iterations[k], 1)
            k += 1
        states.append({"evaluated": bool(f & _FLAG["evaluated"]),
                       "min_distance": c.min_distance[i] if f & _FLAG["has_min_distance"]
                       else None,
                       "closest": pair, "pairs": [], "colliding": bool(f & _FLAG["colliding"]),
                       "truncated": bool(f & _FLAG["truncated"]),
                       "pairs_checked": c.pairs_checked[i],
                       "pairs_candidate": c.pairs_candidate[i]})
    if k != closest:
        raise GjkdError(102, "inconsistent columnar trajectory reply")
    return states


def state_to_dict(s, table=None):
    has_min = s.WhichOneof("min_distance_opt") == "min_distance"
    return {"evaluated": s.evaluated,
            "min_distance": s.min_distance if has_min else None,
            "closest": pair_to_dict(s.closest, table) if s.HasField("closest") else None,
            "pairs": [pair_to_dict(p, table) for p in s.pairs],
            "colliding": s.colliding, "truncated": s.truncated,
            "pairs_checked": s.pairs_checked, "pairs_candidate": s.pairs_candidate}


def _options(o, max_distance=None, mode="closest", pair_kinds=0, no_penetration_depth=False,
             max_pairs=0, robot=None, per_part=False, gradients=False):
    """QueryOptions from keyword arguments. Every default is the field's zero, the wire's and
    the core's default (gjkd.proto QueryOptions): no cutoff, the closest pair, every pair
    kind, penetration depth on, the daemon's max_pairs, all robots, body pairs."""
    if max_distance is not None:
        o.max_distance = float(max_distance)
    if mode not in _MODES:
        raise ValueError("mode: one of %s" % ", ".join(_MODES))
    o.mode = _MODES[mode]
    o.pair_kinds = pair_kinds
    o.no_penetration_depth = no_penetration_depth
    o.max_pairs = max_pairs
    if robot:
        o.robot = robot
    o.per_part = bool(per_part)
    o.gradients = bool(gradients)


class Client:
    """A connection to gjkd. Use as a context manager or call close()."""

    def __init__(self, endpoint=None, timeout=5.0, retries=2, context=None, server_key=None,
                 secret_key=None):
        self.endpoint = endpoint or os.environ.get("GJKD_ENDPOINT") or DEFAULT_ENDPOINT
        self._curve = _curve_keys(server_key, secret_key)
        self.timeout = float(timeout)
        self.retries = int(retries)
        self._own_context = context is None
        self._context = context or zmq.Context()
        self._socket = None
        self._ids = itertools.count(random.getrandbits(40) + 1)
        self._reply_bytes = b""
        self.revision = 0  # scene revision reported by the last reply
        self._open()

    def _open(self):
        self._socket = self._context.socket(zmq.DEALER)
        self._socket.setsockopt(zmq.LINGER, 0)
        _apply_curve(self._socket, self._curve)
        self._watch()
        self._socket.connect(self.endpoint)

    def _watch(self):
        """Monitors self._socket's handshakes; call it before the socket connects (a subclass
        that opens its own socket does so too)."""
        self._monitor = self._socket.get_monitor_socket(_HANDSHAKE_FAILED)
        self._poll = zmq.Poller()
        self._poll.register(self._socket, zmq.POLLIN)
        self._poll.register(self._monitor, zmq.POLLIN)

    def _close_socket(self):
        if self._socket is not None:
            self._socket.disable_monitor()
            self._monitor.close(0)
            self._socket.close(0)
            self._socket = None

    def _refusal(self):
        """The message of a refused handshake read from the monitor, or None."""
        event = zmq_monitor.recv_monitor_message(self._monitor, zmq.NOBLOCK)
        kind, value = event["event"], event["value"]
        if kind == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
            return ("%r refused this client's CURVE key (ZAP status %d): its public key %s is "
                    "not on the daemon's allow-list"
                    % (self.endpoint, value, zmq.curve_public(self._curve[1]).decode() if self._curve else "?"))
        if kind == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL and value == _MECHANISM_MISMATCH:
            return ("%r does not use CURVE, this client does (drop the keys)" % self.endpoint
                    if self._curve else
                    "%r requires CURVE: give the daemon's public key and a client key"
                    % self.endpoint)
        if kind in (zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL, zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL):
            return "the handshake with %r failed (0x%x): %s" % (
                self.endpoint, value, "is the daemon's public key right?" if self._curve else
                "does it require CURVE? (give its public key and a client key)")
        return None

    def close(self):
        self._close_socket()
        if self._own_context:
            self._context.term()
            self._own_context = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---------------------------------------------------------------- transport

    def call(self, request, expected_revision=None, tail=b""):
        """Sends a gjkd_pb2.Request; returns the gjkd_pb2.Response (any status). tail: bytes of
        further serialized fields of the request's trajectory_query (packed arrays built
        without a Python object per value, see _packed_field)."""
        if expected_revision is not None:
            request.expected_revision = expected_revision
        if not request.change_token and request.WhichOneof("body") in _SCENE_CHANGES:
            request.change_token = os.urandom(16)
        request.request_id = next(self._ids)
        if not request.deadline_ms:  # the daemon gives up on it when this attempt would
            request.deadline_ms = max(1, int(self.timeout * 1000))
        for _ in range(self.retries + 1):
            if self._socket is None:
                self._open()
            self._socket.send_multipart([b"", _serialize(request, tail)])
            deadline = time.monotonic() + self.timeout
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                ready = dict(self._poll.poll(int(left * 1000) + 1))
                if not ready:
                    break
                if self._monitor in ready:
                    refusal = self._refusal()
                    if refusal is not None:
                        self._close_socket()  # the next call starts a fresh handshake
                        raise Unauthenticated(refusal)
                if self._socket not in ready:
                    continue
                frames = self._socket.recv_multipart()
                if len(frames) > 2 or (len(frames) == 2 and frames[0]):
                    continue  # not a reply of ours
                response = pb.Response()
                try:
                    response.ParseFromString(frames[-1])
                except Exception as e:  # DecodeError
                    raise GjkdError(102, "unparseable reply: %s" % e)
                if response.request_id not in (request.request_id, 0):
                    continue  # stale
                self.revision = response.revision
                self._reply_bytes = frames[-1]  # query_trajectory_arrays reads its columns
                return response
            self._close_socket()
        raise Timeout("no reply from %r after %d attempt(s) of %g s"
                      % (self.endpoint, self.retries + 1, self.timeout))

    def _ok(self, request, expected_revision=None, body=None, tail=b""):
        r = self.call(request, expected_revision, tail)
        if r.status.code != OK:
            raise GjkdError(r.status.code, r.status.message, r.revision)
        if body is not None and r.WhichOneof("body") != body:
            raise GjkdError(102, "reply without a %s body" % body)
        return r

    def _change(self, request, expected_revision):
        r = self._ok(request, expected_revision)
        return {"revision": r.revision, "id": r.change.id, "replaced": r.change.replaced,
                "hull_vertices": r.change.hull_vertices}

    # ---------------------------------------------------------------- health, stats, scene

    def health(self):
        req = pb.Request()
        req.health.SetInParent()
        h = self._ok(req, body="health").health
        return {"state": "serving" if h.state == pb.SERVING_STATE_SERVING else "draining",
                "version": h.version, "uptime_seconds": h.uptime_seconds,
                "revision": h.revision, "persistent": h.persistent}

    def stats(self):
        req = pb.Request()
        req.stats.SetInParent()
        s = self._ok(req, body="stats").stats
        out = {f.name: v for f, v in s.ListFields() if f.name not in ("commands", "errors", "limits")}
        for k in ("uptime_seconds", "revision", "in_flight", "threads", "requests", "robots",
                  "obstacles", "parts", "pose_updates", "monitor_events", "trajectories_cached",
                  "trajectory_cache_hits", "trajectory_cache_misses", "pose_revision",
                  "auth_refused"):
            out[k] = getattr(s, k)
        out["commands"] = {c.name: {"calls": c.calls, "errors": c.errors,
                                    "total_seconds": c.total_seconds, "max_seconds": c.max_seconds}
                           for c in s.commands}
        out["errors"] = {status_name(e.code): e.count for e in s.errors}
        out["limits"] = {f.name: getattr(s.limits, f.name) for f in s.limits.DESCRIPTOR.fields}
        return out

    def scene_summary(self, include_scene=False):
        """Robots and obstacles; with include_scene also "scene", the stored gjkd_pb2.Scene."""
        req = pb.Request()
        req.scene_summary.include_scene = include_scene
        r = self._ok(req, body="scene_summary")
        s = r.scene_summary
        out = {"revision": r.revision, "allowed_pairs": s.allowed_pairs,
               "robots": [{"name": x.name, "id": x.id, "links": list(x.links), "parts": x.parts,
                           "self_collision": x.self_collision,
                           "joint_names": list(x.joint_names), "positions": list(x.positions)}
                          for x in s.robots],
               "obstacles": [{"name": x.name, "id": x.id, "parts": x.parts,
                              "pose": {"position": _vec(x.pose.position),
                                       "quat_wxyz": (x.pose.orientation.w, x.pose.orientation.x,
                                                     x.pose.orientation.y, x.pose.orientation.z)
                                       if x.pose.HasField("orientation") else (1.0, 0.0, 0.0, 0.0)}}
                             for x in s.obstacles]}
        if include_scene:
            out["scene"] = s.scene
        return out

    # ---------------------------------------------------------------- scene changes

    def put_robot(self, robot, expected_revision=None):
        """robot: a dict in the scene format, or a gjkd_pb2.Robot."""
        req = pb.Request()
        if isinstance(robot, dict):
            documents.robot_to_pb(robot, req.put_robot.robot)
        else:
            req.put_robot.robot.CopyFrom(robot)
        return self._change(req, expected_revision)

    def load_urdf(self, path, srdf=None, package_paths=(), name=None, disable_adjacent=True,
                  expected_revision=None):
        """Imports a URDF (urdf_to_robot: SRDF pairs, meshes hulled here) and puts the robot;
        returns the change like put_robot. name: the robot's name (default: the URDF's)."""
        robot = urdf_to_robot(path, srdf=srdf, package_paths=package_paths, name=name,
                              disable_adjacent=disable_adjacent)
        return self.put_robot(robot, expected_revision)

    def put_obstacle(self, obstacle, expected_revision=None):
        req = pb.Request()
        if isinstance(obstacle, dict):
            documents.obstacle_to_pb(obstacle, req.put_obstacle.obstacle)
        else:
            req.put_obstacle.obstacle.CopyFrom(obstacle)
        return self._change(req, expected_revision)

    def remove_robot(self, name, expected_revision=None):
        req = pb.Request()
        req.remove_robot.name = name
        return self._change(req, expected_revision)

    def remove_obstacle(self, name, expected_revision=None):
        req = pb.Request()
        req.remove_obstacle.name = name
        return self._change(req, expected_revision)

    def set_allowed_pairs(self, pairs, expected_revision=None):
        """pairs: [[A, B], ...] with bodies as in the scene format."""
        req = pb.Request()
        req.set_allowed_pairs.SetInParent()
        documents.allowed_pairs_to_pb(pairs, req.set_allowed_pairs.pairs)
        return self._change(req, expected_revision)

    def load_scene(self, scene, merge=False, expected_revision=None):
        """Loads a whole scene (a dict, a path to a JSON file, or a gjkd_pb2.Scene) as one
        change. Without merge the scene becomes exactly the document: robots and obstacles it
        does not name are removed, its allowed pairs replace the list. With merge its bodies
        add or replace those of the same name, the others stay, and its allowed pairs replace
        the list only if it has any. On any failure nothing changes and GjkdError's message
        names the element (`obstacles[3] "shelf": ...`). One revision step; the document's
        revision is ignored. Returns the change (replaced: some body replaced one of the same
        name; hull_vertices over the document's bodies)."""
        if isinstance(scene, str):
            with open(scene) as f:
                scene = json.load(f)
        if isinstance(scene, dict):
            scene = documents.scene_to_pb(scene)
        req = pb.Request()
        req.load_scene.scene.CopyFrom(scene)
        req.load_scene.merge = bool(merge)
        return self._change(req, expected_revision)

    # ---------------------------------------------------------------- state and queries

    def set_link_poses(self, robot, poses, expected_revision=None):
        """One robot's link poses (one per link, world frame). Transient, not persisted."""
        return self.set_link_poses_many([(robot, poses)], expected_revision)

    def set_link_poses_many(self, robots, expected_revision=None):
        """[(robot, [pose...]), ...] set atomically."""
        req = pb.Request()
        req.set_link_poses.SetInParent()
        for robot, poses in robots:
            rs = req.set_link_poses.robots.add()
            rs.robot = robot
            documents.link_poses_to_pb(poses, rs.link_poses, "link_poses")
        self._ok(req, expected_revision)
        return {"revision": self.revision}

    def set_joint_positions(self, robot, names, positions, base_pose=None,
                            expected_revision=None):
        """Joint positions of a robot with joints, as a sensor_msgs/JointState gives them:
        names[i] with positions[i], in any order, a subset (the other joints keep their
        values); names None: positions is the full vector in the robot's DOF order
        (scene_summary()["robots"][i]["joint_names"]). base_pose (a pose dict) moves the base.
        Link poses follow by forward kinematics. Mimic and fixed joints, unknown names and
        positions outside the limits are refused (GjkdError naming the joint)."""
        req = pb.Request()
        _joint_state_to_pb(req.set_link_poses.robots.add(), robot, names, positions, base_pose)
        self._ok(req, expected_revision)
        return {"revision": self.revision}

    def query_state(self, max_distance=None, mode="closest", pair_kinds=0,
                    no_penetration_depth=False, max_pairs=0, robot=None, expected_revision=None,
                    per_part=False, gradients=False):
        """Distances at the current link poses. mode: "closest", "all" (every body pair --
        link-obstacle, link-link -- within max_distance once: its nearest part pair, with
        "part_pair_count"; per_part=True: every part pair) or "first_collision".
        gradients=True: every pair carries "gradient": {robot: [d(distance)/dq ...]} and
        "subgradient", in the DOF order of the answer's "joint_names": {robot: [...]}."""
        req = pb.Request()
        req.state_query.SetInParent()
        _options(req.state_query.options, max_distance, mode, pair_kinds, no_penetration_depth,
                 max_pairs, robot, per_part, gradients)
        r = self._ok(req, expected_revision, body="state")
        out = state_to_dict(r.state)
        out["revision"] = r.revision
        if gradients:
            out["joint_names"] = joint_names_to_dict(r.state.joint_names)
        return out

    def _trajectory_request(self, robot, waypoints, name, max_distance, mode, pair_kinds,
                            no_penetration_depth, max_pairs, per_part, joint_waypoints,
                            joint_names, gradients, continuous=False,
                            continuous_time_tolerance=0.0, continuous_max_evaluations=0):
        if (waypoints is None) == (joint_waypoints is None):
            raise ValueError("give waypoints (link poses) or joint_waypoints, not both")
        req = pb.Request()
        t = req.trajectory_query
        t.robot = robot
        if name:
            t.name = name
        _options(t.options, max_distance, mode, pair_kinds, no_penetration_depth, max_pairs,
                 per_part=per_part, gradients=gradients)
        # The leanest forms the daemon has, read below whichever comes back: pair columns
        # (every mode, gradients too); from a daemon that predates them, columns (closest and
        # first-collision modes, no gradients) or compact pairs. All waypoints in one packed
        # array: from numpy arrays without a Python object per waypoint, from lists when they
        # have the same number of poses (else one message each, so that the daemon's error
        # names the waypoint).
        tail = b""
        t.options.pair_columns = True
        t.options.compact = True
        t.options.columnar = not gradients
        if continuous:
            t.continuous = True
            t.continuous_time_tolerance = continuous_time_tolerance
            t.continuous_max_evaluations = continuous_max_evaluations
        if joint_waypoints is not None:
            if _is_array(joint_waypoints):
                q = _float_rows(joint_waypoints, 2, "joint_waypoints")
                tail = _packed_field("waypoint_joints", q)
                t.waypoint_count = q.shape[0]
                if joint_names is not None:
                    t.joint_names.extend(joint_names)
            else:
                documents.joint_waypoints_to_pb(joint_waypoints, joint_names, t)
        elif _is_array(waypoints):
            p = _float_rows(waypoints, 3, "waypoints")
            if p.shape[2] != 7:
                raise ValueError("waypoints: an array of shape (waypoints, links, 7): px py pz "
                                 "qw qx qy qz per link, got %s" % (p.shape,))
            tail = _packed_field("waypoint_xyz_wxyz", p)
            t.waypoint_count = p.shape[0]
        else:
            documents.waypoints_to_pb(waypoints, t)
        return req, tail

    def query_trajectory(self, robot, waypoints=None, name=None, max_distance=None,
                         mode="closest", pair_kinds=0, no_penetration_depth=False, max_pairs=0,
                         expected_revision=None, per_part=False, joint_waypoints=None,
                         joint_names=None, gradients=False, continuous=False,
                         continuous_time_tolerance=0.0, continuous_max_evaluations=0):
        """waypoints: a list of waypoints, each a list of link poses, or a numpy array of shape
        (waypoints, links, 7) (px py pz qw qx qy qz per link); or, for a robot with joints,
        joint_waypoints: a list of joint vectors (one per waypoint) or a numpy array of shape
        (waypoints, DOF), the columns in the order of joint_names (every DOF once) or, with
        joint_names None, in the robot's DOF order. name: warm-start cache name (the next
        query with this name starts from this one's answers). Options as for query_state
        (gradients too: "joint_names" in the answer). query_trajectory_arrays gives the same
        result as numpy arrays. continuous: also a certified verdict for every segment between
        consecutive waypoints, "segments" in the answer (segment_to_dict), with
        "first_contact_segment" and "undecided_segments"; continuous_time_tolerance (fraction
        of a segment, 0 = 1e-6) and continuous_max_evaluations (per part pair and segment, 0 =
        the default) tune it."""
        req, tail = self._trajectory_request(robot, waypoints, name, max_distance, mode,
                                             pair_kinds, no_penetration_depth, max_pairs,
                                             per_part, joint_waypoints, joint_names, gradients,
                                             continuous, continuous_time_tolerance,
                                             continuous_max_evaluations)
        r = self._ok(req, expected_revision, body="trajectory", tail=tail)
        tr = r.trajectory
        has_min = tr.WhichOneof("min_distance_opt") == "min_distance"
        try:
            if tr.HasField("pair_columns"):
                states = columns.pair_columns_states(tr.columns, tr.pair_columns, tr.pair_table,
                                                     mode == "all")
            elif tr.HasField("columns"):
                states = columns_to_states(tr.columns, tr.pair_table)
            else:
                states = [state_to_dict(s, tr.pair_table) for s in tr.waypoints]
        except columns.InconsistentReply as e:
            raise GjkdError(102, "inconsistent pair columns in the reply: %s" % e) from None
        out = {"revision": r.revision,
               "min_distance": tr.min_distance if has_min else None,
               "min_waypoint": tr.min_waypoint, "first_collision": tr.first_collision,
               "colliding_waypoints": tr.colliding_waypoints,
               "cache_hit": tr.trajectory_cache_hit, "waypoints": states}
        if gradients:
            out["joint_names"] = joint_names_to_dict(tr.joint_names)
        if continuous:
            try:  # segment columns with pair columns; SegmentResults from an older daemon
                out["segments"] = (columns.segment_columns_dicts(tr)
                                   if tr.HasField("segment_columns")
                                   else [segment_to_dict(s) for s in tr.segments])
            except columns.InconsistentReply as e:
                raise GjkdError(102, "inconsistent segment columns in the reply: %s"
                                % e) from None
            out["first_contact_segment"] = tr.first_contact_segment
            out["undecided_segments"] = tr.undecided_segments
        return out

    def query_trajectory_arrays(self, robot, waypoints=None, name=None, max_distance=None,
                                mode="closest", pair_kinds=0, no_penetration_depth=False,
                                max_pairs=0, expected_revision=None, per_part=False,
                                joint_waypoints=None, joint_names=None, gradients=False,
                                continuous=False, continuous_time_tolerance=0.0,
                                continuous_max_evaluations=0):
        """query_trajectory with its result as numpy arrays (gjkd.columns.TrajectoryArrays:
        one array per field, every reported pair of every waypoint; with continuous, one per
        segment field too; the dicts on demand as .waypoints, .segments and .to_dict()). Needs
        numpy, and a daemon that sends pair columns (and, with continuous, segment columns)."""
        req, tail = self._trajectory_request(robot, waypoints, name, max_distance, mode,
                                             pair_kinds, no_penetration_depth, max_pairs,
                                             per_part, joint_waypoints, joint_names, gradients,
                                             continuous, continuous_time_tolerance,
                                             continuous_max_evaluations)
        r = self._ok(req, expected_revision, body="trajectory", tail=tail)
        try:
            return columns.TrajectoryArrays(r, mode == "all", gradients, self._reply_bytes)
        except columns.InconsistentReply as e:
            raise GjkdError(102, "inconsistent pair columns in the reply: %s" % e) from None


_TRAJECTORY_FIELD = pb.Request.DESCRIPTOR.fields_by_name["trajectory_query"].number


def _varint_bytes(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def _packed_field(name, values):
    """A packed repeated double field of TrajectoryQueryRequest holding a numpy array's
    values, serialized as protobuf does (key, length, little-endian doubles)."""
    number = pb.TrajectoryQueryRequest.DESCRIPTOR.fields_by_name[name].number
    data = values.astype("<f8", copy=False).tobytes()
    return _varint_bytes(number << 3 | 2) + _varint_bytes(len(data)) + data


def _serialize(request, tail):
    """The request's bytes; with a tail, its trajectory_query is serialized with the tail's
    fields appended (protobuf reads fields in any order)."""
    if not tail:
        return request.SerializeToString()
    body = request.trajectory_query.SerializeToString() + tail
    head = pb.Request()
    head.CopyFrom(request)
    head.ClearField("trajectory_query")
    return (head.SerializeToString() + _varint_bytes(_TRAJECTORY_FIELD << 3 | 2)
            + _varint_bytes(len(body)) + body)


def _is_array(value):
    """A numpy array (or anything with a shape and a dtype), without importing numpy."""
    return hasattr(value, "shape") and hasattr(value, "dtype")


def _float_rows(value, ndim, what):
    import numpy as np

    a = np.asarray(value, dtype=np.float64)
    if a.ndim != ndim or a.shape[0] == 0:
        raise ValueError("%s: expected a non-empty %d-dimensional array, got shape %s"
                         % (what, ndim, a.shape))
    return a


def _joint_state_to_pb(rs, robot, names, positions, base_pose):
    """Fills a RobotState with joint positions (JointState order: names[i] with positions[i];
    names None: the full vector in the robot's DOF order) and an optional base pose."""
    rs.robot = robot
    jp = rs.joint_positions
    jp.SetInParent()
    positions = [float(v) for v in positions]
    if names is not None:
        names = list(names)
        if len(names) != len(positions):
            raise ValueError("names and positions differ in length")
        jp.names.extend(names)
    jp.positions.extend(positions)
    if base_pose is not None:
        documents.pose_to_pb(base_pose, jp.base_pose, "base_pose")


class PoseStream:
    """Publishes link poses to the daemon's pose endpoint (gjkd --pose-endpoint), at any rate;
    the daemon applies them in order, latest wins. Fire and forget: no reply."""

    def __init__(self, endpoint, context=None, server_key=None, secret_key=None):
        keys = _curve_keys(server_key, secret_key)
        self._own_context = context is None
        self._context = context or zmq.Context()
        self._socket = self._context.socket(zmq.PUB)
        self._socket.setsockopt(zmq.LINGER, 0)
        _apply_curve(self._socket, keys)
        self._socket.connect(endpoint)
        self.sequence = 0

    def send(self, robot, poses):
        """Sends one robot's link poses; returns the update's sequence number."""
        self.sequence += 1
        u = pb.PoseUpdate(sequence=self.sequence)
        rs = u.robots.add()
        rs.robot = robot
        documents.link_poses_to_pb(poses, rs.link_poses, "link_poses")
        self._socket.send(u.SerializeToString())
        return self.sequence

    def send_joints(self, robot, names, positions, base_pose=None):
        """Sends one robot's joint positions, as Client.set_joint_positions takes them (a
        sensor_msgs/JointState's names and positions, or names None and the full vector in
        DOF order); link poses follow by forward kinematics in the daemon. Returns the
        update's sequence number. A refused update (unknown joint, outside the limits) is
        dropped by the daemon and leaves the state as it was."""
        self.sequence += 1
        u = pb.PoseUpdate(sequence=self.sequence)
        _joint_state_to_pb(u.robots.add(), robot, names, positions, base_pose)
        self._socket.send(u.SerializeToString())
        return self.sequence

    def close(self):
        self._socket.close(0)
        if self._own_context:
            self._context.term()
            self._own_context = False


class Monitor:
    """Subscribes to the daemon's monitor endpoint (gjkd --monitor-endpoint): after each
    applied batch of pose updates, the closest pair and minimum distance."""

    def __init__(self, endpoint, context=None, server_key=None, secret_key=None):
        keys = _curve_keys(server_key, secret_key)
        self._own_context = context is None
        self._context = context or zmq.Context()
        self._socket = self._context.socket(zmq.SUB)
        self._socket.setsockopt(zmq.LINGER, 0)
        _apply_curve(self._socket, keys)
        self._socket.setsockopt(zmq.SUBSCRIBE, b"state")
        self._socket.connect(endpoint)

    def receive(self, timeout=1.0):
        """The next event as a dict (sequence, revision, timestamp, state), None on timeout."""
        if not self._socket.poll(int(timeout * 1000), zmq.POLLIN):
            return None
        frames = self._socket.recv_multipart()
        e = pb.MonitorEvent()
        e.ParseFromString(frames[-1])
        return {"sequence": e.sequence, "revision": e.revision, "timestamp": e.timestamp,
                "state": state_to_dict(e.state)}

    def close(self):
        self._socket.close(0)
        if self._own_context:
            self._context.term()
            self._own_context = False
