#!/usr/bin/python3
"""farm-client.py — the scale-out pattern for a farm of gjkd replicas, and its check.

    GJKD_PYTHON_PROTO=build/python /usr/bin/python3 docker/farm-client.py \
        --service gjkd.NAMESPACE.svc.cluster.local:7471 \
        [--endpoints tcp://10.0.0.5:7471,...] [--resolve-every 10] \
        [--requests 30] [--timeout 10] examples/demo/trajectory.json
    ... --endpoints tcp://127.0.0.1:7471,tcp://127.0.0.1:7472,tcp://127.0.0.1:7473 ...

Discovery: the replicas are the addresses a headless Service's DNS name resolves to (one A/AAAA
record per Ready pod, docker/k8s/service.yaml), re-resolved every --resolve-every requests to
follow scale-outs and rollouts (new addresses are connected, gone ones disconnected). When the
name does not resolve, or without --service, the --endpoints list is used as it is.

Load balancers (Kubernetes Services included) balance per TCP connection, and a ZeroMQ client
keeps its connection for its whole life, so one connection would pin a client to one replica.
What works instead:
  1. every replica loads the same scene at start (--demo, the same state volume contents, or
     the same `gjkctl load`), so any replica can answer any query;
  2. a client connects ONE DEALER socket to EVERY replica: ZeroMQ sends successive requests
     round-robin over the connected replicas (ZMQ_IMMEDIATE keeps requests off replicas that
     are not connected), and replies are matched by request_id;
  3. a NAMED trajectory (warm-started from the previous query of the same name) goes to one
     replica chosen by a stable hash of its name, because its warm-start cache lives there.

This script does all three against the replicas given and checks the outcome: every replica is
serving the same scene (the same robots, links and obstacles); every spread request is
answered, with the same minimum distance from every replica; each replica's own counters show
it served a share of them; the second query of the pinned named trajectory is a warm-start
cache hit. Exit status 0 when all hold, 1 when one fails, 2 on bad usage.
"""

import argparse
import json
import os
import socket
import sys
import zlib

import zmq

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients",
                                "python"))
import gjkd  # noqa: E402  (after the path is set)
from gjkd import documents  # noqa: E402


class FarmClient(gjkd.Client):
    """A gjkd.Client whose one DEALER socket is connected to every replica. The calls and the
    Lazy Pirate retries are the client's own; only the socket differs."""

    def __init__(self, endpoints, **kwargs):
        self.endpoints = list(endpoints)
        super().__init__(endpoint=",".join(self.endpoints), **kwargs)

    def _open(self):
        s = self._context.socket(zmq.DEALER)
        s.setsockopt(zmq.LINGER, 0)
        s.setsockopt(zmq.IMMEDIATE, 1)  # queue only to replicas that are connected
        self._socket = s
        self._watch()  # refused handshakes end the call (gjkd.Unauthenticated)
        for e in self.endpoints:
            s.connect(e)

    def update(self, endpoints):
        """Follow a new replica set: connect the new endpoints, disconnect the gone ones."""
        endpoints = list(endpoints)
        for e in set(self.endpoints) - set(endpoints):
            self._socket.disconnect(e)
        for e in endpoints:
            if e not in self.endpoints:
                self._socket.connect(e)
        self.endpoints = endpoints


def pinned_endpoint(endpoints, name):
    """The replica that owns a named trajectory: a hash every client computes alike."""
    return endpoints[zlib.crc32(name.encode()) % len(endpoints)]


def resolve_service(service):
    """HOST:PORT -> one tcp:// endpoint per address the name resolves to (a headless Service's
    DNS name gives every Ready replica). ZeroMQ itself would connect to one address only.
    Re-resolve from time to time to follow scale-outs and rollouts."""
    host, _, port = service.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError("--service expects HOST:PORT, got %r" % service)
    infos = socket.getaddrinfo(host, int(port), type=socket.SOCK_STREAM)
    addrs = sorted({i[4][0] for i in infos})
    return ["tcp://%s:%s" % ("[%s]" % a if ":" in a else a, port) for a in addrs]


def discover(service, fallback):
    """The replicas: the addresses of the headless Service when its name resolves, else the
    given list. Returns (endpoints, where they came from)."""
    if service:
        try:
            found = resolve_service(service)
            if found:
                return found, "service %s" % service
            why = "no address"
        except socket.gaierror as e:
            why = str(e)
        if not fallback:
            raise ValueError("service %s does not resolve (%s) and no --endpoints" % (service, why))
        return fallback, "--endpoints (service %s: %s)" % (service, why)
    return fallback, "--endpoints"


def trajectory_calls(endpoint, timeout):
    with gjkd.Client(endpoint, timeout=timeout, retries=1) as c:
        return c.stats()["commands"].get("trajectory_query", {"calls": 0})["calls"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--service", help="HOST:PORT of a headless Service: each address a replica")
    ap.add_argument("--endpoints", default="",
                    help="comma-separated replica endpoints (without --service, or when it"
                    " does not resolve)")
    ap.add_argument("--resolve-every", type=int, default=10,
                    help="re-resolve --service every N spread requests")
    ap.add_argument("--requests", type=int, default=30, help="spread trajectory queries")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per attempt")
    ap.add_argument("trajectory", help="trajectory JSON (e.g. examples/demo/trajectory.json)")
    a = ap.parse_args()
    if not a.service and not a.endpoints:
        ap.error("give --service, --endpoints or both")
    endpoints, source = discover(a.service, [e for e in a.endpoints.split(",") if e])
    print("replicas from %s: %s" % (source, " ".join(endpoints)))
    if len(endpoints) < 2 or a.requests < len(endpoints):
        ap.error("need at least two endpoints and at least one request per endpoint")
    with open(a.trajectory) as f:
        robot, name, waypoints = documents.trajectory_doc(json.load(f))
    name = name or "farm-client"
    failures = []

    # 1. Every replica serves the same scene (the same bodies; each replica counts its own
    #    revisions, so those may differ).
    scenes = {}
    for e in endpoints:
        with gjkd.Client(e, timeout=a.timeout, retries=1) as c:
            h = c.health()
            s = c.scene_summary()
        scenes[e] = (tuple(sorted((r["name"], tuple(r["links"])) for r in s["robots"])),
                     tuple(sorted(o["name"] for o in s["obstacles"])), s["allowed_pairs"])
        print("replica %-24s %s revision %d, %d robots, %d obstacles"
              % (e, h["state"], h["revision"], len(s["robots"]), len(s["obstacles"])))
        if h["state"] != "serving":
            failures.append("%s is %s" % (e, h["state"]))
    if len(set(scenes.values())) != 1:
        failures.append("replicas hold different scenes")

    before = {e: trajectory_calls(e, a.timeout) for e in endpoints}

    # 2. Unnamed queries spread over every replica through one socket.
    minima = set()
    with FarmClient(endpoints, timeout=a.timeout, retries=2) as farm:
        for i in range(a.requests):
            if a.service and i > 0 and i % max(a.resolve_every, 1) == 0:
                now, _ = discover(a.service, endpoints)
                if now != farm.endpoints:
                    print("re-resolved: %s" % " ".join(now))
                    farm.update(now)
            r = farm.query_trajectory(robot, waypoints)
            if len(r["waypoints"]) != len(waypoints):
                failures.append("a reply has %d waypoints, not %d"
                                % (len(r["waypoints"]), len(waypoints)))
            minima.add(r["min_distance"])
    print("spread: %d trajectory queries of %d waypoints answered, min distance %s"
          % (a.requests, len(waypoints), sorted(minima, key=lambda x: (x is None, x))))
    if len(minima) != 1:
        failures.append("replicas disagree on the minimum distance: %s" % minima)

    # 3. The named trajectory stays on its own replica, where its warm-start cache lives.
    owner = pinned_endpoint(endpoints, name)
    with gjkd.Client(owner, timeout=a.timeout, retries=2) as c:
        c.query_trajectory(robot, waypoints, name=name)
        second = c.query_trajectory(robot, waypoints, name=name)
    print("pinned: trajectory %r on %s, second query cache hit: %s"
          % (name, owner, second["cache_hit"]))
    if not second["cache_hit"]:
        failures.append("the second query of %r on its replica missed the cache" % name)

    after = {e: trajectory_calls(e, a.timeout) for e in endpoints}
    spread = {e: after[e] - before[e] - (2 if e == owner else 0) for e in endpoints}
    for e in endpoints:
        print("replica %-24s served %d of the spread queries" % (e, spread[e]))
        if spread[e] < 1:
            failures.append("%s served none of the spread queries" % e)
    if sum(spread.values()) != a.requests:
        failures.append("replicas counted %d spread queries, %d were sent"
                        % (sum(spread.values()), a.requests))

    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (gjkd.GjkdError, gjkd.Timeout, OSError, ValueError) as e:
        print("FAIL: %s" % e, file=sys.stderr)
        sys.exit(1)
