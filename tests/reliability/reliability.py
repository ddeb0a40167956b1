#!/usr/bin/python3
"""Load and fault tests of gjkd (issue 7): loopback only, every wait bounded.

    /usr/bin/python3 tests/reliability/reliability.py --group GROUP --gjkd BUILD/server/gjkd \
        --python-proto BUILD/python --source-dir .

Groups (tests/reliability.cmake registers each as a ctest):
  load     32 closed-loop clients, a fixed mix of state queries, trajectory queries and scene
           changes, run twice: no reply lost or mismatched; throughput, p50/p99 latency, and the
           daemon's VmRSS before, after round 1 and after round 2 (round 2 must add < a bound)
  crash    20 kill -9 at seeded random moments during a stream of acknowledged scene changes
           (puts, removes, merged scene loads of three obstacles): after each restart every
           acknowledged change is there, the one in flight whole or not at all, and the
           snapshot is valid
  disk     a full state directory (tiny tmpfs), a read-only one (read-only bind mount) and a
           file where the directory should be: the change is refused with STORAGE_FAILED, the
           scene stays as it was, the daemon keeps serving, and it recovers once the disk does
  clients  clients that vanish mid-request, never read their replies, or send malformed
           framing: a well-behaved client keeps its answers within a bound meanwhile

The daemon is started by tests/gjkd_daemon.py, under GJKD_WRAPPER if set (e.g. "valgrind -q"). Exit status 0 if every check passed; the figures are printed."""

import argparse
import errno
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gjkd_daemon  # noqa: E402
from gjkd_daemon import Failed, check, cpu_seconds, reap_all  # noqa: E402

ARGS = None
pb = zmq = CTX = None

CRASH_NAME = re.compile(r"c\d+_\d+")  # the crash group's obstacles


def say(fmt, *args):
    print(fmt % args if args else fmt, flush=True)


# ------------------------------------------------------------------ processes


class Daemon(gjkd_daemon.Daemon):
    """A gjkd on a free loopback port (gjkd_daemon.Daemon); the demo scene unless demo=False."""

    READY_SECONDS = 60.0
    STOP_SECONDS = 30.0

    def __init__(self, *extra, **kw):
        super().__init__(ARGS.gjkd, *extra, **kw)

    def ready(self, timeout):
        return call(self.endpoint, health(), timeout=timeout) is not None


# ------------------------------------------------------------------ requests


def dealer(endpoint, **opts):
    s = CTX.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    for k, v in opts.items():
        s.setsockopt(getattr(zmq, k), v)
    s.connect(endpoint)
    return s


def call(endpoint, request, timeout=10.0):
    """One request on a fresh DEALER: the Response, or None if none came within timeout."""
    s = dealer(endpoint)
    try:
        s.send_multipart([b"", request.SerializeToString()])
        if not s.poll(int(timeout * 1000), zmq.POLLIN):
            return None
        r = pb.Response()
        r.ParseFromString(s.recv_multipart()[-1])
        return r
    finally:
        s.close(0)


def call_ok(endpoint, request, timeout=10.0):
    r = call(endpoint, request, timeout)
    check(r is not None, "no reply within %g s to %s" % (timeout, request.WhichOneof("body")))
    check(r.status.code == pb.STATUS_CODE_OK, "%s: %s %s" % (
        request.WhichOneof("body"), pb.StatusCode.Name(r.status.code), r.status.message))
    return r


def health():
    r = pb.Request(request_id=1)
    r.health.SetInParent()
    return r


def stats(endpoint):
    r = pb.Request(request_id=2)
    r.stats.SetInParent()
    return call_ok(endpoint, r).stats


def command_calls(endpoint, name):
    return sum(c.calls for c in stats(endpoint).commands if c.name == name)


def scene_of(endpoint):
    """(stored scene serialized deterministically, revision)."""
    r = pb.Request(request_id=3)
    r.scene_summary.include_scene = True
    resp = call_ok(endpoint, r)
    return resp.scene_summary.scene.SerializeToString(deterministic=True), resp.revision


def obstacles_of(endpoint):
    """{name: Obstacle} and the revision."""
    data, rev = scene_of(endpoint)
    scene = pb.Scene()
    scene.ParseFromString(data)
    return {o.name: o for o in scene.obstacles}, rev


def state_query(max_distance=0.5):
    r = pb.Request()
    r.state_query.options.max_distance = max_distance
    r.state_query.options.mode = pb.QUERY_MODE_ALL_WITHIN
    return r


def trajectory_query(waypoints, max_distance=0.5, mode=None):
    r = pb.Request()
    t = r.trajectory_query
    t.robot = "arm"
    t.options.max_distance = max_distance
    t.options.mode = pb.QUERY_MODE_ALL_WITHIN if mode is None else mode
    for poses in waypoints:
        w = t.waypoints.add()
        w.link_poses.SetInParent()
        for p in poses:
            q = w.link_poses.poses.add()
            q.position.x, q.position.y, q.position.z = p["position"]
            q.orientation.w, q.orientation.x, q.orientation.y, q.orientation.z = p["quat_wxyz"]
    return r


def put_sphere(name, position, radius):
    r = pb.Request()
    o = r.put_obstacle.obstacle
    o.name = name
    o.pose.position.x, o.pose.position.y, o.pose.position.z = position
    o.pose.orientation.w = 1.0
    o.parts.add().shape.sphere.radius = radius
    return r


def put_cloud(name, position, n_points, seed):
    """An obstacle whose hull has many vertices: a large snapshot."""
    rng = random.Random(seed)
    r = pb.Request()
    o = r.put_obstacle.obstacle
    o.name = name
    o.pose.position.x, o.pose.position.y, o.pose.position.z = position
    o.pose.orientation.w = 1.0
    pts = []
    for _ in range(n_points):  # on a sphere: every point is a hull vertex
        v = [rng.gauss(0, 1) for _ in range(3)]
        n = sum(c * c for c in v) ** 0.5
        pts += [0.2 * c / n for c in v]
    o.parts.add().shape.hull.xyz.extend(pts)
    return r


def remove_obstacle(name):
    r = pb.Request()
    r.remove_obstacle.name = name
    return r


def waypoints():
    import json
    with open(os.path.join(ARGS.source_dir, "examples", "demo", "trajectory.json")) as f:
        return [w["link_poses"] for w in json.load(f)["waypoints"]]


def state_key(s):
    """What must not change between two answers to the same state: the minimum distance (to
    GJK tolerance), colliding, and the pairs' identities (those within tolerance of the cutoff
    may come and go, so only the count is compared, with that slack)."""
    md = s.min_distance if s.HasField("min_distance") else None
    return md, s.colliding, len(s.pairs)


def same_state(a, b, tol=1e-6):
    (ma, ca, na), (mb, cb, nb) = a, b
    if (ma is None) != (mb is None) or ca != cb:
        return False
    return (ma is None or abs(ma - mb) <= tol) and abs(na - nb) <= 1


def percentile(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


# ------------------------------------------------------------------ group: load


def load_round(d, rnd, plans, counters):
    """One round: client k sends plans[k] one request at a time. Returns (latencies by kind,
    seconds, problems)."""
    n = len(plans)
    socks = [dealer(d.endpoint) for _ in range(n)]
    poller = zmq.Poller()
    index = {}
    for k, s in enumerate(socks):
        poller.register(s, zmq.POLLIN)
        index[s] = k
    nxt = [0] * n
    sent_at = [0.0] * n
    expect = [None] * n  # (request_id, kind, reference)
    last_change = [0] * n
    lat = {"state": [], "trajectory": [], "change": []}
    problems = []
    change_revisions = []

    def send(k):
        kind, payload, ref = plans[k][nxt[k]]
        rid = (rnd << 40) | (k << 24) | nxt[k]
        req = pb.Request()
        req.ParseFromString(payload)
        req.request_id = rid
        expect[k] = (rid, kind, ref)
        sent_at[k] = time.monotonic()
        socks[k].send_multipart([b"", req.SerializeToString()])
        nxt[k] += 1

    t0 = time.monotonic()
    for k in range(n):
        send(k)
    pending = n
    deadline = t0 + 50.0
    while pending and time.monotonic() < deadline:
        for s, _ in poller.poll(1000):
            k = index[s]
            frames = s.recv_multipart()
            t = time.monotonic()
            r = pb.Response()
            r.ParseFromString(frames[-1])
            rid, kind, ref = expect[k]
            if len(frames) != 2 or frames[0] != b"" or r.request_id != rid:
                problems.append("client %d: reply %d (%d frames) for request %d"
                                % (k, r.request_id, len(frames), rid))
            elif r.status.code != pb.STATUS_CODE_OK:
                problems.append("client %d: %s: %s %s" % (k, kind, pb.StatusCode.Name(
                    r.status.code), r.status.message))
            elif kind == "state":
                if r.WhichOneof("body") != "state" or not same_state(state_key(r.state), ref):
                    problems.append("client %d: state %r, expected %r" % (k, state_key(r.state),
                                                                          ref))
            elif kind == "trajectory":
                got = [state_key(w) for w in r.trajectory.waypoints]
                if r.WhichOneof("body") != "trajectory" or len(got) != len(ref) or not all(
                        same_state(a, b) for a, b in zip(got, ref)):
                    problems.append("client %d: trajectory reply does not match its waypoints"
                                    % k)
            else:  # change
                if r.WhichOneof("body") != "change" or r.revision <= last_change[k]:
                    problems.append("client %d: change reply %s, revision %d after %d" % (
                        k, r.WhichOneof("body"), r.revision, last_change[k]))
                last_change[k] = r.revision
                change_revisions.append(r.revision)
            lat[kind].append(t - sent_at[k])
            expect[k] = None
            if nxt[k] < len(plans[k]):
                send(k)
            else:
                pending -= 1
    seconds = time.monotonic() - t0
    lost = sum(1 for e in expect if e is not None) + sum(len(p) - i for p, i in zip(plans, nxt))
    if lost:
        problems.append("%d requests without a reply within 50 s" % lost)
    if len(set(change_revisions)) != len(change_revisions):
        problems.append("two changes were acknowledged with the same revision")
    counters["changes"] += len(change_revisions)
    for s in socks:
        s.close(0)
    return lat, seconds, problems


TRAJ_LEN = 20  # waypoints per trajectory query of the load (closest pair per waypoint)


def group_load():
    n_clients, per_client = ARGS.clients, ARGS.requests
    state = tempfile.mkdtemp(prefix="gjkd-load-") if ARGS.persist else None
    try:
        load_with(n_clients, per_client, state)
    finally:
        if state:
            shutil.rmtree(state, ignore_errors=True)


def load_with(n_clients, per_client, state):
    d = Daemon("--threads", str(ARGS.threads), state_dir=state)
    wps = waypoints()
    # References, one request at a time on an idle daemon; the far obstacles the load puts
    # and removes (50 m out) never come within max_distance, so these stay the answers.
    ref_state = state_key(call_ok(d.endpoint, state_query()).state)
    rng = random.Random(ARGS.seed)
    plans = []
    traj_refs = {}
    for k in range(n_clients):
        plan, present = [], False
        for i in range(per_client):
            x = rng.random()
            if x < 0.5:
                plan.append(("state", state_query().SerializeToString(), ref_state))
            elif x < 0.8:
                start = rng.randrange(len(wps) - TRAJ_LEN)
                req = trajectory_query(wps[start:start + TRAJ_LEN], 0.5, pb.QUERY_MODE_CLOSEST)
                if start not in traj_refs:
                    r = call_ok(d.endpoint, req)
                    traj_refs[start] = [state_key(w) for w in r.trajectory.waypoints]
                plan.append(("trajectory", req.SerializeToString(), traj_refs[start]))
            else:
                name = "load_%d" % k
                req = (remove_obstacle(name) if present and rng.random() < 0.4 else
                       put_sphere(name, (50.0 + k, 50.0, 0.0), 0.1 + 0.001 * i))
                present = req.WhichOneof("body") == "put_obstacle"
                plan.append(("change", req.SerializeToString(), None))
        plans.append(plan)
    mix = {kind: sum(1 for p in plans for q in p if q[0] == kind)
           for kind in ("state", "trajectory", "change")}
    say("load: %d clients x %d requests per round (%s; state: all pairs within 0.5 m, "
        "trajectory: %d waypoints, closest pair; change: put/remove an obstacle), gjkd "
        "--threads %d%s, load average %.2f", n_clients, per_client,
        ", ".join("%d %s" % (v, k) for k, v in mix.items()), TRAJ_LEN, ARGS.threads,
        " --state-dir %s" % state if state else "", os.getloadavg()[0])
    rss = [d.rss()]
    rev0 = scene_of(d.endpoint)[1]
    counters = {"changes": 0}
    problems = []
    for rnd in (1, 2):
        cpu0 = cpu_seconds(d.proc.pid)
        lat, seconds, probs = load_round(d, rnd, plans, counters)
        cpu = cpu_seconds(d.proc.pid) - cpu0
        problems += probs
        rss.append(d.rss())
        everything = [x for v in lat.values() for x in v]
        say("load round %d: %d replies in %.2f s = %.0f req/s; latency p50 %.2f ms, p99 %.2f ms,"
            " max %.2f ms; gjkd CPU %.2f s (%.3f ms per request); VmRSS %d KiB", rnd,
            len(everything), seconds, len(everything) / seconds,
            1e3 * percentile(everything, 0.5), 1e3 * percentile(everything, 0.99),
            1e3 * max(everything), cpu, 1e3 * cpu / max(1, len(everything)), rss[-1])
        for kind, v in lat.items():
            say("  %-10s %5d  p50 %7.2f ms  p99 %7.2f ms", kind, len(v), 1e3 * percentile(v, 0.5),
                1e3 * percentile(v, 0.99))
    rev = scene_of(d.endpoint)[1]
    check(rev == rev0 + counters["changes"], "revision %d after %d changes from %d"
          % (rev, counters["changes"], rev0))
    grow1, grow2 = rss[1] - rss[0], rss[2] - rss[1]
    say("load VmRSS: before %d KiB, after round 1 %d KiB (%+d), after round 2 %d KiB (%+d); "
        "bound on round 2: %d KiB", rss[0], rss[1], grow1, rss[2], grow2, ARGS.rss_bound_kib)
    check(not problems, "%d problems:\n%s" % (len(problems), "\n".join(problems[:20])))
    check(grow2 < ARGS.rss_bound_kib, "round 2 grew VmRSS by %d KiB (bound %d KiB)"
          % (grow2, ARGS.rss_bound_kib))
    check(d.stop() == 0, "gjkd exit status after SIGTERM\n%s" % d.stderr()[-2000:])


# ------------------------------------------------------------------ group: crash


def check_snapshot(path):
    """Checks the snapshot file as server/store.h describes it; returns the Scene in it."""
    with open(path, "rb") as f:
        data = f.read()
    check(len(data) >= 24, "%s: %d bytes, shorter than the header" % (path, len(data)))
    magic, version, crc, length = struct.unpack("<8sIIQ", data[:24])
    check(magic == b"GJKDSNAP" and version == 1, "%s: magic %r version %d" % (path, magic,
                                                                               version))
    check(length == len(data) - 24, "%s: length %d, payload %d" % (path, length, len(data) - 24))
    check(zlib.crc32(data[24:]) & 0xFFFFFFFF == crc, "%s: CRC mismatch" % path)
    scene = pb.Scene()
    scene.ParseFromString(data[24:])
    return scene


def same_obstacle(a, b):
    return a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)


def group_crash():
    state = tempfile.mkdtemp(prefix="gjkd-crash-")
    rng = random.Random(ARGS.seed)
    model = {}  # name -> Obstacle (the request's), every acknowledged change applied
    # The change in flight: [(name, Obstacle or None for a removal, prior Obstacle or None)],
    # one entry per obstacle it changes (a merged load changes several at once).
    in_flight = None
    acked_total, last_rev, killed_mid, killed_mid_load = 0, 0, 0, 0
    try:
        d = Daemon(demo=True, state_dir=state)
        last_rev = scene_of(d.endpoint)[1]
        for trial in range(ARGS.trials):
            result = {"acked": 0, "last": 0, "in_flight": None, "error": None}

            def writer(trng, trial=trial, result=result):
                s = dealer(d.endpoint)
                try:
                    for i in range(100000):
                        names = sorted(model)
                        x = trng.random()
                        if x < 0.6 or not names:
                            name = "c%d_%d" % (trial, i)
                            req = put_sphere(name, (5 + trng.random(), trng.random(), 0.0),
                                             round(0.05 + 0.1 * trng.random(), 6))
                        elif x < 0.8:
                            name = trng.choice(names)
                            req = put_sphere(name, (5 + trng.random(), trng.random(), 0.0),
                                             round(0.05 + 0.1 * trng.random(), 6))
                        elif x < 0.9:
                            # A merged scene load: two existing obstacles and a new one, one
                            # change that a kill must leave whole or not at all.
                            req = pb.Request()
                            req.load_scene.merge = True
                            for name in trng.sample(names, min(2, len(names))) + [
                                    "c%d_%d" % (trial, i)]:
                                o = req.load_scene.scene.obstacles.add()
                                o.CopyFrom(put_sphere(name, (5 + trng.random(), trng.random(), 0),
                                                      round(0.05 + 0.1 * trng.random(), 6))
                                           .put_obstacle.obstacle)
                        else:
                            name = trng.choice(names)
                            req = remove_obstacle(name)
                        if req.HasField("load_scene"):
                            changes = [(o.name, o) for o in req.load_scene.scene.obstacles]
                        else:
                            changes = [(name, req.put_obstacle.obstacle
                                        if req.HasField("put_obstacle") else None)]
                        result["in_flight"] = [(n, new, model.get(n)) for n, new in changes]
                        req.request_id = i + 1
                        s.send_multipart([b"", req.SerializeToString()])
                        while not s.poll(100, zmq.POLLIN):
                            if not d.alive():
                                return  # killed with this change in flight
                        r = pb.Response()
                        r.ParseFromString(s.recv_multipart()[-1])
                        if r.request_id != i + 1 or r.status.code != pb.STATUS_CODE_OK:
                            result["error"] = "reply %d to %d: %s %s" % (
                                r.request_id, i + 1, pb.StatusCode.Name(r.status.code),
                                r.status.message)
                            return
                        # Acknowledged: it must survive.
                        for n, new in changes:
                            if new is None:
                                del model[n]
                            else:
                                model[n] = new
                        result["in_flight"] = None
                        result["acked"] += 1
                        result["last"] = r.revision
                finally:
                    s.close(0)

            t = threading.Thread(target=writer, args=(random.Random(rng.random()),))
            t.start()
            # The kill comes at a random moment after the first acknowledgement (bounded wait:
            # on a loaded machine the writer's first change once took longer than the 50 ms
            # the shortest random delay allowed, and the trial saw no change acknowledged).
            deadline = time.monotonic() + 20.0
            while (result["acked"] == 0 and result["error"] is None and t.is_alive()
                   and time.monotonic() < deadline):
                time.sleep(0.005)
            time.sleep(rng.uniform(0.0, 0.45))
            d.stop(signal.SIGKILL)
            t.join(30)
            check(not t.is_alive(), "trial %d: the writer did not stop" % trial)
            check(result["error"] is None, "trial %d: %s" % (trial, result["error"]))
            check(result["acked"] > 0, "trial %d: no change acknowledged" % trial)
            acked_total += result["acked"]
            last_rev = result["last"]
            in_flight = result["in_flight"]
            killed_mid += in_flight is not None
            killed_mid_load += in_flight is not None and len(in_flight) > 1
            # The snapshot is whole and holds at least every acknowledged change.
            snap = check_snapshot(os.path.join(state, "scene.snap"))
            check(snap.revision in (last_rev, last_rev + 1), "trial %d: snapshot revision %d, "
                  "last acknowledged %d" % (trial, snap.revision, last_rev))
            d = Daemon(demo=True, state_dir=state)
            got, rev = obstacles_of(d.endpoint)
            check(rev == snap.revision, "trial %d: revision %d after restart, %d in the file"
                  % (trial, rev, snap.revision))
            maybe = {n for n, _, _ in in_flight} if in_flight else set()
            for name, o in model.items():
                if name in maybe:
                    continue
                check(name in got, "trial %d: acknowledged obstacle %s lost" % (trial, name))
                check(same_obstacle(got[name], o), "trial %d: %s is not as acknowledged"
                      % (trial, name))
            for name in got:
                check(name in model or name in maybe or not CRASH_NAME.fullmatch(name),
                      "trial %d: removed obstacle %s came back" % (trial, name))
            if in_flight:  # the change in flight: all of it or none of it
                applied, unapplied = True, True
                for name, new, old in in_flight:
                    now = got.get(name)
                    applied = applied and ((now is None) if new is None else (
                        now is not None and same_obstacle(now, new)))
                    unapplied = unapplied and ((now is None) if old is None else (
                        now is not None and same_obstacle(now, old)))
                check(applied or unapplied, "trial %d: the change of %s is half applied"
                      % (trial, sorted(maybe)))
                if applied and not unapplied:
                    expected_rev = last_rev + 1
                    for name, new, _ in in_flight:
                        if new is None:
                            model.pop(name, None)
                        else:
                            model[name] = new
                else:
                    expected_rev = last_rev
            else:
                expected_rev = last_rev
            check(rev == expected_rev, "trial %d: revision %d after restart, expected %d (last "
                  "acknowledged %d)" % (trial, rev, expected_rev, last_rev))
            last_rev = rev
        say("crash: %d kill -9 trials (seed %d), %d acknowledged changes, %d kills with a "
            "change in flight (%d of them a scene load); after every restart the snapshot was "
            "valid and every acknowledged change present (%d obstacles)", ARGS.trials, ARGS.seed,
            acked_total, killed_mid, killed_mid_load, len(model))
        check(d.stop() == 0, "gjkd exit status after SIGTERM\n%s" % d.stderr()[-2000:])
    finally:
        shutil.rmtree(state, ignore_errors=True)


# ------------------------------------------------------------------ group: disk


def mount(*args):
    r = subprocess.run(["mount"] + list(args), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
    return r.returncode == 0, r.stdout.decode(errors="replace").strip()


def umount(path):
    subprocess.run(["umount", path], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=30)


def refused_unchanged(d, req, what):
    """req must be refused with STORAGE_FAILED and leave the scene and the answers as they
    were; the daemon keeps serving. Returns the status message."""
    scene0, rev0 = scene_of(d.endpoint)
    state0 = state_key(call_ok(d.endpoint, state_query()).state)
    r = call(d.endpoint, req)
    check(r is not None, "%s: no reply" % what)
    check(r.status.code == pb.STATUS_CODE_STORAGE_FAILED, "%s: %s %s, expected STORAGE_FAILED"
          % (what, pb.StatusCode.Name(r.status.code), r.status.message))
    check(r.status.message, "%s: STORAGE_FAILED without a message" % what)
    scene1, rev1 = scene_of(d.endpoint)
    check(rev1 == rev0 and scene1 == scene0, "%s: the scene changed (revision %d -> %d)"
          % (what, rev0, rev1))
    check(same_state(state_key(call_ok(d.endpoint, state_query()).state), state0),
          "%s: the state query answers differently" % what)
    check(call_ok(d.endpoint, health()).health.state == pb.SERVING_STATE_SERVING,
          "%s: not serving" % what)
    return r.status.message


def restart_has(d, state, name, absent, what):
    """Restarts d on state; name must be in the scene, absent must not; returns the daemon."""
    check(d.stop() == 0, "%s: gjkd exit status after SIGTERM" % what)
    check_snapshot(os.path.join(state, "scene.snap"))
    d = Daemon(demo=False, state_dir=state)
    got, _ = obstacles_of(d.endpoint)
    check(name in got, "%s: %s missing after restart" % (what, name))
    for a in absent:
        check(a not in got, "%s: the refused %s is there after restart" % (what, a))
    return d


def disk_full(outcomes):
    mnt = tempfile.mkdtemp(prefix="gjkd-full-")
    ok, msg = mount("-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", mnt)
    if not ok:
        os.rmdir(mnt)
        outcomes.append("full: skipped (cannot mount a tmpfs here: %s)" % msg)
        say("disk full: SKIPPED, cannot mount a tmpfs here: %s", msg)
        return
    d = None
    try:
        state = os.path.join(mnt, "state")
        d = Daemon(demo=True, state_dir=state)
        call_ok(d.endpoint, put_sphere("before", (4, 0, 0), 0.1))
        filler = os.path.join(mnt, "filler")
        with open(filler, "wb", buffering=0) as f:  # fill the file system to the last byte
            chunk = b"\0" * 4096
            try:
                while True:
                    f.write(chunk)
            except OSError as e:
                check(e.errno == errno.ENOSPC, "filling the tmpfs: %s" % e)
        m1 = refused_unchanged(d, put_sphere("full1", (4, 1, 0), 0.1), "full disk, small change")
        # Now one page free: a big change starts writing and runs out part way.
        with open(filler, "r+b") as f:
            f.truncate(os.path.getsize(filler) - 4096)
        m2 = refused_unchanged(d, put_cloud("full2", (4, 2, 0), 2000, 1), "full disk, part way")
        check(not os.path.exists(os.path.join(state, "scene.snap.tmp")),
              "a partial scene.snap.tmp was left behind")
        os.unlink(filler)
        call_ok(d.endpoint, put_sphere("after", (4, 3, 0), 0.1))  # the disk has room again
        d = restart_has(d, state, "after", ["full1", "full2"], "full disk")
        outcomes.append("full (tmpfs 256k): refused with STORAGE_FAILED (%r; %r), scene "
                        "unchanged, serving; accepted again once space was freed" % (m1, m2))
        check(d.stop() == 0, "gjkd exit status after SIGTERM")
    finally:
        if d is not None and d.alive():
            d.stop(signal.SIGKILL)
        umount(mnt)
        shutil.rmtree(mnt, ignore_errors=True)


def disk_readonly(outcomes):
    base = tempfile.mkdtemp(prefix="gjkd-ro-")
    state, real = os.path.join(base, "state"), os.path.join(base, "state.real")
    d = None
    mounted = False
    try:
        d = Daemon(demo=True, state_dir=state)
        call_ok(d.endpoint, put_sphere("before", (4, 0, 0), 0.1))
        # Root ignores permission bits, and a file system with the lock file open for writing
        # cannot be remounted read-only: put a read-only bind mount of the directory in its
        # place instead. Writes through it fail with EROFS, even for root.
        os.rename(state, real)
        os.mkdir(state)
        ok, msg = mount("--bind", real, state)
        if ok:
            mounted = True
            ok, msg = mount("-o", "remount,bind,ro", state)
        if not ok:
            outcomes.append("read-only: skipped (cannot bind-mount read-only here: %s)" % msg)
            say("disk read-only: SKIPPED, cannot bind-mount read-only here: %s", msg)
            return
        m = refused_unchanged(d, put_sphere("ro1", (4, 1, 0), 0.1), "read-only state directory")
        r = call(d.endpoint, remove_obstacle("before"))
        check(r is not None and r.status.code == pb.STATUS_CODE_STORAGE_FAILED,
              "read-only: a removal was not refused")
        umount(state)
        mounted = False
        os.rmdir(state)
        os.rename(real, state)
        call_ok(d.endpoint, put_sphere("after", (4, 3, 0), 0.1))
        d = restart_has(d, state, "after", ["ro1"], "read-only")
        check("before" in obstacles_of(d.endpoint)[0], "read-only: the refused removal happened")
        outcomes.append("read-only (ro bind mount): refused with STORAGE_FAILED (%r), scene "
                        "unchanged, serving; accepted again once writable" % m)
        check(d.stop() == 0, "gjkd exit status after SIGTERM")
    finally:
        if d is not None and d.alive():
            d.stop(signal.SIGKILL)
        if mounted:
            umount(state)
        shutil.rmtree(base, ignore_errors=True)


def disk_not_a_directory(outcomes):
    base = tempfile.mkdtemp(prefix="gjkd-notdir-")
    state, real = os.path.join(base, "state"), os.path.join(base, "state.real")
    d = None
    try:
        d = Daemon(demo=True, state_dir=state)
        call_ok(d.endpoint, put_sphere("before", (4, 0, 0), 0.1))
        os.rename(state, real)
        with open(state, "w") as f:  # a file where the directory should be
            f.write("not a directory\n")
        m = refused_unchanged(d, put_sphere("nd1", (4, 1, 0), 0.1), "state path is a file")
        os.unlink(state)
        os.rename(real, state)
        call_ok(d.endpoint, put_sphere("after", (4, 3, 0), 0.1))
        d = restart_has(d, state, "after", ["nd1"], "not a directory")
        outcomes.append("not a directory: refused with STORAGE_FAILED (%r), scene unchanged, "
                        "serving; accepted again once restored" % m)
        check(d.stop() == 0, "gjkd exit status after SIGTERM")
    finally:
        if d is not None and d.alive():
            d.stop(signal.SIGKILL)
        shutil.rmtree(base, ignore_errors=True)


def group_disk():
    outcomes = []
    disk_full(outcomes)
    disk_readonly(outcomes)
    disk_not_a_directory(outcomes)
    for o in outcomes:
        say("disk %s", o)


# ------------------------------------------------------------------ group: clients


class GoodClient(threading.Thread):
    """Asks a state query every 20 ms and checks the answer; records each reply time."""

    def __init__(self, endpoint, ref):
        super().__init__()
        self.endpoint, self.ref = endpoint, ref
        self.stop = threading.Event()
        self.latencies, self.errors = [], []

    def run(self):
        s = dealer(self.endpoint)
        try:
            i = 0
            while not self.stop.is_set():
                i += 1
                req = state_query()
                req.request_id = i
                t0 = time.monotonic()
                s.send_multipart([b"", req.SerializeToString()])
                if not s.poll(int(ARGS.latency_bound * 1000 * 5), zmq.POLLIN):
                    self.errors.append("request %d: no reply within %g s"
                                       % (i, 5 * ARGS.latency_bound))
                    s.close(0)
                    s = dealer(self.endpoint)
                    continue
                r = pb.Response()
                r.ParseFromString(s.recv_multipart()[-1])
                self.latencies.append(time.monotonic() - t0)
                if r.request_id != i or r.status.code != pb.STATUS_CODE_OK or not same_state(
                        state_key(r.state), self.ref):
                    self.errors.append("request %d: reply %d %s" % (
                        i, r.request_id, pb.StatusCode.Name(r.status.code)))
                self.stop.wait(0.02)
        finally:
            s.close(0)


def zmtp_greeting():
    """A ZMTP 3.0 NULL-mechanism greeting and READY for a DEALER (RFC 23)."""
    g = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\0" * 32
    prop = b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
    body = b"\x05READY" + prop
    return g + b"\x04" + bytes([len(body)]) + body


def with_good_client(d, ref, what, misbehave):
    """Runs misbehave() while a good client asks; checks the good client's answers."""
    good = GoodClient(d.endpoint, ref)
    good.start()
    try:
        detail = misbehave()
    finally:
        time.sleep(0.2)
        good.stop.set()
        good.join(30)
    lat = good.latencies
    check(d.alive(), "%s: gjkd died\n%s" % (what, d.stderr()[-2000:]))
    check(not good.errors, "%s: the good client: %s" % (what, "; ".join(good.errors[:5])))
    check(len(lat) >= 5, "%s: the good client got only %d answers" % (what, len(lat)))
    check(max(lat) < ARGS.latency_bound, "%s: the good client waited %.3f s (bound %g s)"
          % (what, max(lat), ARGS.latency_bound))
    say("clients %s: %s; good client %d answers, p50 %.2f ms, max %.2f ms (bound %g s), "
        "VmRSS %d KiB", what, detail, len(lat), 1e3 * percentile(lat, 0.5), 1e3 * max(lat),
        ARGS.latency_bound, d.rss())


def group_clients():
    d = Daemon("--threads", "2")
    ref = state_key(call_ok(d.endpoint, state_query()).state)
    wps = waypoints()
    heavy = trajectory_query(wps * 3)  # 300 waypoints
    light = trajectory_query(wps[:10])

    # 1. Clients that vanish mid-request: DEALERs closed while the daemon works on their
    # 300-waypoint requests, DEALERs closed right after sending, TCP connections cut inside a
    # frame, and connections left hanging inside a frame.
    def vanish():
        calls0 = command_calls(d.endpoint, "trajectory_query")
        for i in range(4):
            s = dealer(d.endpoint)
            heavy.request_id = i + 1
            s.send_multipart([b"", heavy.SerializeToString()])
            time.sleep(0.05)
            s.close(0)
        hanging = []
        n = 0
        t_end = time.monotonic() + 3.0
        while time.monotonic() < t_end:
            s = dealer(d.endpoint)
            light.request_id = n
            s.send_multipart([b"", light.SerializeToString()])
            s.close(0)
            c = socket.create_connection(("127.0.0.1", d.port), timeout=5)
            c.sendall(zmtp_greeting() + b"\x01\x00" + b"\x02\xff" + b"\x08")  # cut in a frame
            c.close()
            if len(hanging) < 50:
                h = socket.create_connection(("127.0.0.1", d.port), timeout=5)
                h.sendall(zmtp_greeting() + b"\x02\x40" + b"\x0a\x05")  # and never the rest
                hanging.append(h)
            n += 1
            time.sleep(0.005)
        for h in hanging:
            h.close()
        time.sleep(0.5)
        return "4 DEALERs gone during a 300-waypoint request, %d gone right after a " \
               "10-waypoint one (%d of all these handled), %d TCP connections cut mid-frame, " \
               "%d left hanging mid-frame" % (n, command_calls(d.endpoint, "trajectory_query") -
                                              calls0, n, len(hanging))

    with_good_client(d, ref, "vanishing clients", vanish)

    # 2. A client that never reads: 2 x 2000 pipelined requests with ~2 KB replies. The
    # daemon must go on (ROUTER drops replies beyond the peer's high-water mark) and its memory
    # must stop growing once the queue to that peer is full.
    rss_mid = []

    def no_reader():
        rss_mid.append(d.rss())
        s = dealer(d.endpoint, RCVHWM=10, RCVBUF=4096, SNDHWM=100000)
        req = state_query()
        total = 0
        try:
            for batch in range(2):
                before = stats(d.endpoint).requests
                for i in range(2000):
                    req.request_id = total + i + 1
                    s.send_multipart([b"", req.SerializeToString()])
                total += 2000
                deadline = time.monotonic() + 30
                while stats(d.endpoint).requests < before + 2000 and time.monotonic() < deadline:
                    time.sleep(0.05)
                check(stats(d.endpoint).requests >= before + 2000,
                      "never-reading client: the daemon stopped taking its requests")
                rss_mid.append(d.rss())
        finally:
            s.close(0)
        return "%d requests handled, replies never read; VmRSS %d -> %d -> %d KiB" % (
            total, rss_mid[0], rss_mid[1], rss_mid[2])

    with_good_client(d, ref, "a client that never reads", no_reader)
    check(rss_mid[2] - rss_mid[1] < ARGS.rss_bound_kib, "the second 2000 unread replies grew "
          "VmRSS by %d KiB (bound %d KiB)" % (rss_mid[2] - rss_mid[1], ARGS.rss_bound_kib))

    # 3. Malformed multipart framing, and bytes that are not ZMTP at all.
    def malformed():
        s = dealer(d.endpoint)
        body = state_query().SerializeToString()
        shapes = [[b"a", b"b", b"c"], [b"x", body], [b"", b"", body], [b""] * 5, [b""],
                  [b"", b"\xff\xff\xff"], [b"", b"", b"", b"", b"", b"", body]]
        n = replies = 0
        t_end = time.monotonic() + 3.0
        while time.monotonic() < t_end:
            for f in shapes:
                s.send_multipart(f)
                n += 1
            while s.poll(0, zmq.POLLIN):
                s.recv_multipart()
                replies += 1
            if n % 70 == 0:
                c = socket.create_connection(("127.0.0.1", d.port), timeout=5)
                c.sendall(b"GET / HTTP/1.0\r\n\r\n" + os.urandom(200))
                c.close()
            time.sleep(0.002)
        s.close(0)
        return "%d malformed messages (%d error replies read) and %d non-ZMTP connections" % (
            n, replies, n // 70)

    with_good_client(d, ref, "malformed framing", malformed)
    check(same_state(state_key(call_ok(d.endpoint, state_query()).state), ref),
          "the scene changed")
    check(d.stop() == 0, "gjkd exit status after SIGTERM\n%s" % d.stderr()[-2000:])


# ------------------------------------------------------------------ main


GROUPS = {"load": group_load, "crash": group_crash, "disk": group_disk,
          "clients": group_clients}


def main():
    global ARGS, pb, zmq, CTX
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--group", required=True, choices=sorted(GROUPS))
    ap.add_argument("--gjkd", required=True)
    ap.add_argument("--python-proto", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--requests", type=int, default=150, help="per client and round")
    ap.add_argument("--threads", type=int, default=2, help="gjkd --threads for the load")
    ap.add_argument("--persist", action="store_true",
                    help="load: give gjkd a state directory (every change is fsynced)")
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--rss-bound-kib", type=int, default=4096,
                    help="VmRSS the load's round 2, or the second batch of unread replies, may "
                    "add (sanitizers: their allocator keeps freed memory a while)")
    ap.add_argument("--latency-bound", type=float, default=2.0,
                    help="s, a well-behaved client's worst reply time while another misbehaves")
    ARGS = ap.parse_args()
    os.environ["GJKD_PYTHON_PROTO"] = ARGS.python_proto
    sys.path.insert(0, os.path.join(ARGS.source_dir, "clients", "python"))
    import zmq as zmq_module  # noqa: E402
    from gjkd import pb as pb_module  # noqa: E402
    zmq, pb = zmq_module, pb_module
    CTX = zmq.Context()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(3))  # ctest timeout: still reap
    t0 = time.monotonic()
    try:
        GROUPS[ARGS.group]()
    except Failed as e:
        print("FAILED reliability %s: %s" % (ARGS.group, e))
        return 1
    except Exception:  # noqa: BLE001
        traceback.print_exc()
        return 1
    finally:
        reap_all()
        CTX.destroy(0)
    print("passed reliability %s in %.1f s" % (ARGS.group, time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
