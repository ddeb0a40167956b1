#!/usr/bin/python3
"""Streams link poses to gjkd's pose endpoint and prints what the monitor endpoint publishes.

    GJKD_PYTHON_PROTO=build/python /usr/bin/python3 clients/python/examples/stream_poses.py \
        --pose-endpoint tcp://127.0.0.1:7472 --monitor-endpoint tcp://127.0.0.1:7473 \
        [--trajectory examples/demo/trajectory.json] [--rate 200] [--endpoint tcp://127.0.0.1:7471]

The daemon must run with --pose-endpoint and --monitor-endpoint and have the robot loaded
(e.g. gjkd --demo). Each waypoint of the trajectory is published as one PoseUpdate; the daemon
applies updates in order (latest wins when several are pending) and after each applied batch
publishes the closest pair. Pose updates are transient: they move no scene revision and are
not persisted. Exits after the last update has been answered (or after a 2 s silence)."""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import gjkd  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEMO = os.path.join(HERE, "..", "..", "..", "examples", "demo", "trajectory.json")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--endpoint", default=None, help="request endpoint (for a health check)")
    ap.add_argument("--pose-endpoint", required=True)
    ap.add_argument("--monitor-endpoint", required=True)
    ap.add_argument("--trajectory", default=DEMO)
    ap.add_argument("--rate", type=float, default=200.0, help="updates per second")
    args = ap.parse_args()

    with open(args.trajectory) as f:
        traj = json.load(f)
    robot, waypoints = traj["robot"], [w["link_poses"] for w in traj["waypoints"]]

    with gjkd.Client(args.endpoint, timeout=2.0, retries=1) as c:
        summary = c.scene_summary()
        if robot not in [r["name"] for r in summary["robots"]]:
            sys.exit("stream_poses: the daemon has no robot %r (start it with --demo)" % robot)

    monitor = gjkd.Monitor(args.monitor_endpoint)
    stream = gjkd.PoseStream(args.pose_endpoint)
    time.sleep(0.3)  # PUB/SUB connections are asynchronous: let both settle
    period = 1.0 / args.rate
    sent, events, last_seen = 0, 0, 0
    t0 = time.monotonic()
    for poses in waypoints:
        sent = stream.send(robot, poses)
        while True:  # drain events without blocking the stream
            e = monitor.receive(timeout=0)
            if e is None:
                break
            events, last_seen = events + 1, e["sequence"]
            s = e["state"]
            pair = s["closest"]
            where = ("%s/%s - %s" % (pair["a"]["link"], pair["a"]["part"],
                                     pair["b"].get("obstacle") or pair["b"].get("link"))
                     if pair else "-")
            print("update %4d  min distance %+.4f m  %-9s %s"
                  % (e["sequence"], s["min_distance"] if s["min_distance"] is not None
                     else float("nan"), "COLLIDING" if s["colliding"] else "", where))
        time.sleep(max(0.0, t0 + sent * period - time.monotonic()))
    while last_seen < sent:  # wait for the answer to the last update
        e = monitor.receive(timeout=2.0)
        if e is None:
            break
        events, last_seen = events + 1, e["sequence"]
    elapsed = time.monotonic() - t0
    print("sent %d updates in %.2f s, received %d monitor events, last sequence answered %d"
          % (sent, elapsed, events, last_seen))
    stream.close()
    monitor.close()
    return 0 if last_seen == sent else 1


if __name__ == "__main__":
    sys.exit(main())
