#!/usr/bin/python3
"""End-to-end tests of gjkd's HTTP endpoint (--http: /metrics, /healthz, /readyz) and of the
--scene file it follows (issue 25). Same harness and arguments as e2e.py, whose helpers
(Daemon, run, check, reaping) it uses:

    /usr/bin/python3 tests/e2e/e2e_http.py --group GROUP --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

Groups:
  metrics       /metrics parsed by prometheus_client's text parser (Debian
                python3-prometheus-client): every family typed and named by Prometheus' rules,
                and the counters move by exactly the requests made (replies by command and
                code, the duration histogram, pairs computed against the replies' own pair
                counts, the named-trajectory cache against stats, malformed requests under
                command "none"); the gauges agree with health and stats
  http_probes   /healthz 200; /readyz 503 before a scene is loaded, 200 after, 503 while the
                daemon drains; --http off, a bad address and a port in use; a non-loopback
                bind is allowed and logged
  scene_follow  --scene reloaded on a rewrite (rename and in place) and on a ConfigMap-style
                ..data symlink swap; revisions derived from the bytes, equal for two daemons
                started from the same scene; a bad file or a refused body keeps the scene and
                counts a failure; the file's change wins over wire changes; at start the newer
                of the file and the persisted scene"""

import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, content_revision, demo, free_port, load_json, run, wrapped  # noqa: E402

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

WAIT = 60.0 if wrapped() else 20.0  # bound of every wait for the daemon to act


def scrape(d):
    """{(sample name, frozenset(labels)): value} of d's /metrics, checking the page's form."""
    with urllib.request.urlopen("http://%s/metrics" % d.http, timeout=10) as r:
        check(r.status == 200, "/metrics status %d" % r.status)
        ctype = r.headers["Content-Type"]
        check(ctype.startswith("text/plain; version=0.0.4"), "/metrics content type %r" % ctype)
        text = r.read().decode()
    samples = {}
    families = 0
    for fam in text_string_to_metric_families(text):
        families += 1
        check(fam.name.startswith("gjkd_"), "family %r without the gjkd_ prefix" % fam.name)
        check(fam.type in ("counter", "gauge", "histogram"), "%s: type %r" % (fam.name, fam.type))
        check(fam.documentation, "%s: no HELP" % fam.name)
        for s in fam.samples:
            if fam.type == "counter":
                check(s.name == fam.name + "_total", "counter sample %r" % s.name)
            if fam.type == "histogram":
                check(fam.name.endswith("_seconds"), "histogram %r not in seconds" % fam.name)
            key = (s.name, frozenset(s.labels.items()))
            check(key not in samples, "sample %r twice" % (key,))
            samples[key] = s.value
    check(families >= 20, "only %d families" % families)
    return samples


def value(samples, name, **labels):
    return samples.get((name, frozenset(labels.items())), 0.0)


def delta(after, before, name, **labels):
    return value(after, name, **labels) - value(before, name, **labels)


def buckets(samples, command):
    """[(le, cumulative count)] of the duration histogram of `command`, by bound."""
    out = []
    for (name, labels), v in samples.items():
        lab = dict(labels)
        if name == "gjkd_request_duration_seconds_bucket" and lab["command"] == command:
            out.append((float(lab["le"]), v))
    return sorted(out)


def wait_for(what, cond):
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        got = cond()
        if got:
            return got
        time.sleep(0.05)
    raise e2e.Failed("no %s within %g s" % (what, WAIT))


# ------------------------------------------------------------------ group: metrics


def group_metrics():
    d = e2e.Daemon()
    traj = load_json("trajectory.json")
    wps = [w["link_poses"] for w in traj["waypoints"]]
    with d.client() as c:
        before = scrape(d)
        st0 = c.stats()
        pairs = 0
        for _ in range(5):
            s = c.query_state(max_distance=1.0, mode="all")
            pairs += s["pairs_checked"]
        for _ in range(2):
            c.health()
        try:
            c.query_state(robot="no_such_robot")
            check(False, "a query for a missing robot succeeded")
        except e2e.gjkd.GjkdError as e:
            check(e.name == "NOT_FOUND", "missing robot: %s" % e)
        name = "e2e-metrics"
        for _ in range(2):
            t = c.query_trajectory("arm", wps, name=name, max_distance=0.1)
            pairs += sum(w["pairs_checked"] for w in t["waypoints"])
        malformed = e2e.raw_call(d.endpoint, [b"\xff\xff\xff"])
        check(malformed is not None and malformed.status.code == e2e.pb.STATUS_CODE_MALFORMED,
              "junk bytes: %r" % malformed)
        after = scrape(d)
        st1 = c.stats()
        health = c.health()

    req = "gjkd_requests_total"
    check(delta(after, before, req, command="state_query", code="OK") == 5,
          "state_query OK: %r" % delta(after, before, req, command="state_query", code="OK"))
    check(delta(after, before, req, command="state_query", code="NOT_FOUND") == 1,
          "state_query NOT_FOUND")
    check(delta(after, before, req, command="health", code="OK") == 2, "health OK")
    check(delta(after, before, req, command="stats", code="OK") == 1, "stats OK (st0)")
    check(delta(after, before, req, command="trajectory_query", code="OK") == 2,
          "trajectory_query OK")
    check(delta(after, before, req, command="none", code="MALFORMED") == 1, "malformed: none")
    moved = {k for k in after if k[0] == req and after[k] != before.get(k, 0.0)}
    check(len(moved) == 6, "only the requests made move the counters: %r" % sorted(moved))
    # The stats reply counts the same replies.
    for cmd in ("state_query", "health", "trajectory_query"):
        calls = st1["commands"][cmd]["calls"] - st0["commands"][cmd]["calls"]
        total = sum(delta(after, before, req, command=cmd, code=code)
                    for code in ("OK", "NOT_FOUND"))
        check(calls == total, "%s: stats %d calls, metrics %d" % (cmd, calls, total))

    dur = "gjkd_request_duration_seconds"
    check(delta(after, before, dur + "_count", command="state_query") == 6, "histogram count")
    check(delta(after, before, dur + "_sum", command="state_query") > 0, "histogram sum")
    b = buckets(after, "state_query")
    check(len(b) == 17 and b[-1][0] == float("inf"), "buckets %r" % b)
    check(all(x[1] <= y[1] for x, y in zip(b, b[1:])), "buckets are cumulative: %r" % b)
    check(b[-1][1] == value(after, dur + "_count", command="state_query"), "+Inf == count")

    check(delta(after, before, "gjkd_pairs_computed_total") == pairs and pairs > 0,
          "pairs computed %r, the replies report %d"
          % (delta(after, before, "gjkd_pairs_computed_total"), pairs))
    check(delta(after, before, "gjkd_trajectory_cache_misses_total") == 1, "one cache miss")
    check(delta(after, before, "gjkd_trajectory_cache_hits_total") == 1, "one cache hit")
    check(value(after, "gjkd_trajectory_cache_hits_total") == st1["trajectory_cache_hits"],
          "cache hits as stats")
    check(value(after, "gjkd_trajectory_cache_entries") == st1["trajectories_cached"] >= 1,
          "cache entries as stats")
    check(value(after, "gjkd_trajectory_cache_bytes") > 0, "cache bytes")
    check(value(after, "gjkd_scene_revision") == health["revision"] == 1, "scene revision")
    check(value(after, "gjkd_scene_robots") == st1["robots"] == 1, "robots")
    check(value(after, "gjkd_scene_obstacles") == st1["obstacles"], "obstacles")
    check(value(after, "gjkd_scene_parts") == st1["parts"], "parts")
    check(value(after, "gjkd_queued_requests") == 0, "queue depth")
    check(value(after, "gjkd_in_flight_requests") == 0, "in flight")
    check(value(after, "gjkd_draining") == 0, "not draining")
    check(value(after, "gjkd_worker_threads") == st1["threads"], "threads")
    check(value(after, "gjkd_curve_refusals_total") == st1["auth_refused"] == 0, "no refusals")
    check(value(after, "gjkd_build_info", version=health["version"]) == 1, "build info")
    start = value(after, "gjkd_start_time_seconds")
    check(abs(time.time() - health["uptime_seconds"] - start) < 60, "start time %r" % start)
    check(d.stop() == 0, "exit status")


# ------------------------------------------------------------------ group: http_probes


def keep_busy(d, stop):
    """Sends health requests until stop is set: the frontend never goes quiet, so a draining
    daemon keeps draining (up to --drain-seconds)."""
    with d.client(timeout=1.0) as c:
        while not stop.is_set():
            try:
                c.health()
            except Exception:  # noqa: BLE001 -- timeouts once it stops
                pass
            time.sleep(0.02)


def group_http_probes():
    d = e2e.Daemon("--drain-seconds", "120", demo=False)
    check(d.http_get("/healthz") == (200, "ok\n"), "healthz: %r" % (d.http_get("/healthz"),))
    status, body = d.http_get("/readyz")
    check(status == 503 and "no scene" in body, "readyz before a scene: %d %r" % (status, body))
    check(d.http_get("/nope")[0] == 404, "unknown path")
    with d.client() as c:
        c.load_scene(demo("scene.json"))
    check(d.http_get("/readyz") == (200, "ready\n"), "readyz with a scene: %r"
          % (d.http_get("/readyz"),))
    # Draining: ready no more, still alive, until the last request is answered.
    stop = threading.Event()
    busy = threading.Thread(target=keep_busy, args=(d, stop))
    busy.start()
    try:
        d.proc.send_signal(signal.SIGTERM)
        status, body = wait_for("readyz 503 while draining",
                                lambda: (lambda r: r if r[0] == 503 else None)(
                                    d.http_get("/readyz")))
        check("draining" in body, "readyz while draining says so: %r" % body)
        check(d.http_get("/healthz")[0] == 200, "alive while draining")
        check(value(scrape(d), "gjkd_draining") == 1, "gjkd_draining 1")
    finally:
        stop.set()
        busy.join()
    check(d.stop() == 0, "exit status after draining")

    # --http off: no endpoint; the daemon serves as before.
    d = e2e.Daemon("--http", "off")
    try:
        urllib.request.urlopen("http://%s/healthz" % d.http, timeout=5)
        check(False, "--http off still serves HTTP")
    except OSError:
        pass
    with d.client() as c:
        check(c.health()["state"] == "serving", "serves without HTTP")
    check(d.stop() == 0, "exit status")

    # A non-loopback bind is allowed (the pages only read) and logged.
    port = free_port()
    d = e2e.Daemon("--http", "0.0.0.0:%d" % port, "--log-level", "info")
    d.http = "127.0.0.1:%d" % port
    check(d.http_get("/healthz")[0] == 200, "0.0.0.0 serves on loopback too")
    check(d.stop() == 0, "exit status")
    check("http_exposed" in d.stderr(), "non-loopback bind logged:\n%s" % d.stderr()[-1500:])

    # A bad address, and a port in use, stop the start with the reason.
    for http, needle, status in (("7472", "expected HOST:PORT", 2),
                                 ("127.0.0.1:99999", "from 0 to 65535", 2)):
        rc, _, err = run([e2e.ARGS.gjkd, "--endpoint", "tcp://127.0.0.1:%d" % free_port(),
                          "--http", http], 30)
        check(rc == status and needle in err, "--http %s: exit %d\n%s" % (http, rc, err[-800:]))
    d = e2e.Daemon()
    rc, _, err = run([e2e.ARGS.gjkd, "--endpoint", "tcp://127.0.0.1:%d" % free_port(),
                      "--http", d.http], 30)
    check(rc == 1 and "in use" in err, "port in use: exit %d\n%s" % (rc, err[-800:]))
    check(d.stop() == 0, "exit status")


# ------------------------------------------------------------------ group: scene_follow


def scene_doc(drop=0):
    """The demo scene with its last `drop` obstacles left out."""
    doc = load_json("scene.json")
    if drop:
        doc["obstacles"] = doc["obstacles"][:-drop]
    return doc


def write_atomic(path, text):
    tmp = os.path.join(os.path.dirname(path), ".tmp-" + os.path.basename(path))
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, path)


def write_in_place(path, text):
    with open(path, "w") as f:
        f.write(text)


def revision_of(text):
    return content_revision(text.encode())


def wait_revision(d, revision):
    with d.client() as c:
        wait_for("revision %d" % revision, lambda: c.health()["revision"] == revision)


def wait_failures(d, n):
    return wait_for("%d reload failures" % n,
                    lambda: value(scrape(d), "gjkd_scene_reload_failures_total") == n)


def obstacles(d):
    with d.client() as c:
        return len(c.scene_summary()["obstacles"])


def group_scene_follow():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "scene.json")
        texts = [json.dumps(scene_doc(k), indent=k) for k in range(4)]
        write_in_place(path, texts[0])
        n0 = len(scene_doc()["obstacles"])

        d = e2e.Daemon("--scene", path, demo=False)
        check(d.http_get("/readyz")[0] == 200, "ready with the file's scene")
        with d.client() as c:
            check(c.health()["revision"] == revision_of(texts[0]), "revision from the bytes")
        # Another daemon from the same bytes (another path) reports the same revision.
        copy = os.path.join(tmp, "copy.json")
        shutil.copy(path, copy)
        d2 = e2e.Daemon("--scene", copy, demo=False)
        with d2.client() as c:
            check(c.health()["revision"] == revision_of(texts[0]), "second daemon's revision")
        check(value(scrape(d2), "gjkd_scene_revision") == value(scrape(d), "gjkd_scene_revision")
              == revision_of(texts[0]), "both report one revision in /metrics")
        check(d2.stop() == 0, "exit status")

        # A rewrite by rename, then one in place: each loaded, atomically, as the new scene.
        write_atomic(path, texts[1])
        wait_revision(d, revision_of(texts[1]))
        check(obstacles(d) == n0 - 1, "the renamed file's scene")
        write_in_place(path, texts[2])
        wait_revision(d, revision_of(texts[2]))
        check(obstacles(d) == n0 - 2, "the file written in place")
        check(value(scrape(d), "gjkd_scene_reloads_total") == 2, "two reloads counted")

        # Bad JSON, then a body the world refuses: the scene stays, each counts once.
        with d.client() as c:
            kept = e2e.scene_bytes(c)
        write_in_place(path, '{"format": "gjkd-scene/1", "robots": [')
        wait_failures(d, 1)
        bad = scene_doc()
        bad["obstacles"][0]["parts"] = [{"type": "box", "half_extents": [-1, 1, 1]}]
        write_atomic(path, json.dumps(bad))
        wait_failures(d, 2)
        with d.client() as c:
            check(e2e.scene_bytes(c) == kept, "a refused file keeps the scene and revision")
        check("scene_reload_failed" in d.stderr(), "the refusal is logged")
        check(value(scrape(d), "gjkd_scene_reloads_total") == 2, "no reload counted")

        # A change over the wire applies until the file changes; then the file wins.
        write_atomic(path, texts[3])
        wait_revision(d, revision_of(texts[3]))
        with d.client() as c:
            name = c.scene_summary()["obstacles"][0]["name"]
            ch = c.remove_obstacle(name)
            check(ch["revision"] == revision_of(texts[3]) + 1, "a wire change: one step")
        write_atomic(path, texts[0])
        wait_revision(d, revision_of(texts[0]))
        check(obstacles(d) == n0, "the file's change replaced the wire change")
        check(d.stop() == 0, "exit status")

        # A ConfigMap volume: scene.json -> ..data/scene.json, ..data -> ..<timestamp>; an
        # update writes a new timestamped directory and renames a new ..data symlink over
        # the old one, then removes the old directory.
        cm = os.path.join(tmp, "configmap")
        os.mkdir(cm)

        def publish(version, text):
            vdir = os.path.join(cm, "..%s" % version)
            os.mkdir(vdir)
            with open(os.path.join(vdir, "scene.json"), "w") as f:
                f.write(text)
            old = os.readlink(os.path.join(cm, "..data")) if os.path.islink(
                os.path.join(cm, "..data")) else None
            os.symlink("..%s" % version, os.path.join(cm, "..data_tmp"))
            os.rename(os.path.join(cm, "..data_tmp"), os.path.join(cm, "..data"))
            if old:
                shutil.rmtree(os.path.join(cm, old))

        publish("v1", texts[1])
        os.symlink("..data/scene.json", os.path.join(cm, "scene.json"))
        d = e2e.Daemon("--scene", os.path.join(cm, "scene.json"), demo=False)
        with d.client() as c:
            check(c.health()["revision"] == revision_of(texts[1]), "ConfigMap scene loaded")
        publish("v2", texts[2])
        wait_revision(d, revision_of(texts[2]))
        check(obstacles(d) == n0 - 2, "the swapped ConfigMap's scene")
        publish("v3", texts[0])
        wait_revision(d, revision_of(texts[0]))
        publish("v4", "not json")
        wait_failures(d, 1)
        with d.client() as c:
            check(c.health()["revision"] == revision_of(texts[0]), "kept after a bad swap")
        publish("v5", texts[3])
        wait_revision(d, revision_of(texts[3]))
        check(d.stop() == 0, "exit status")

        # At start, the newer of the file and the persisted scene wins.
        state = os.path.join(tmp, "state")
        write_in_place(path, texts[0])
        d = e2e.Daemon("--scene", path, demo=False, state_dir=state)
        with d.client() as c:
            c.remove_obstacle(c.scene_summary()["obstacles"][0]["name"])
            wire = c.revision
        check(d.stop() == 0, "exit status")
        d = e2e.Daemon("--scene", path, demo=False, state_dir=state)
        with d.client() as c:
            check(c.health()["revision"] == wire, "the newer persisted scene wins")
        check(d.stop() == 0, "exit status")
        write_in_place(path, texts[1])
        d = e2e.Daemon("--scene", path, demo=False, state_dir=state)
        with d.client() as c:
            check(c.health()["revision"] == revision_of(texts[1]), "the newer file wins")
        check(d.stop() == 0, "exit status")


GROUPS = {"metrics": group_metrics, "http_probes": group_http_probes,
          "scene_follow": group_scene_follow}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
