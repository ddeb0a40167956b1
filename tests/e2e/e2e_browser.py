#!/usr/bin/python3
"""The browser pages looked at as a person would (issue 24): gjkctl writes a page from a
daemon on loopback, Debian's Chromium (headless, SwiftShader WebGL) opens it from disk with
every host name unresolvable, and tools/viewer/test/shoot.mjs (puppeteer-core) takes the
screenshots and collects the console. Same harness and arguments as e2e.py; the browser side
comes from the environment (tests/browser.cmake sets it):
    GJKD_NODE       node
    GJKD_NODE_PATH  the build tree's node_modules (npm ci of tools/viewer/package-lock.json)
    GJKD_CHROMIUM   /usr/bin/chromium
    GJKD_SHOTS      folder for the screenshots (kept for a look after the run)

Groups:
  view   the demo trajectory: the page opens at the waypoint of its URL fragment (#waypoint=59
         and #waypoint=0), the canvas drew the scene (a good share of pixels not background),
         the two waypoints give different pictures, the console has no error, no request
         left the page; the page's closest pair at each waypoint is the daemon's
         (gjkctl trajectory --json), every witness point is the body pose the page draws
         applied to the witness in the body's frame (so the bodies stand where the daemon
         had them), and the hulls are the daemon's vertex sets. The same for the Franka Panda
         (joint-space trajectory: link poses by forward kinematics in gjkctl) and for the
         current state without a trajectory (the arm's link poses given with --poses; without
         it gjkctl says the arm is drawn at its initial poses).
  trace  gjkctl trace of an overlapping pair at a waypoint (GJK then EPA) and of a separated
         part pair at the current state: the steps count the iterations, every point is
         w = a - b, the last bounds hold the answer, the trace's distance is the daemon's for
         that pair; the world and Minkowski-difference canvases drew at the first step, an EPA
         step and the answer, and differ between them; no console error; refusals.
  python the Python client's page (gjkd.viewer, the same template) holds gjkctl's data: the
         same bodies, poses to 1e-12 (its forward kinematics against the core's, the Panda's
         joint trajectory and its current joint state), the same pairs; it looks the same way
         in Chromium."""

import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, demo, gjkctl, gjkctl_json  # noqa: E402


def shoot(page, png, fragment="", compare=None, canvas=None):
    cmd = [os.environ["GJKD_NODE"], os.path.join(e2e.ARGS.source_dir, "tools", "viewer", "test",
                                                  "shoot.mjs"),
           page, png, "--chromium", os.environ.get("GJKD_CHROMIUM", "/usr/bin/chromium")]
    if fragment:
        cmd += ["--fragment", fragment]
    if compare:
        cmd += ["--compare", compare]
    if canvas:
        cmd += ["--canvas", canvas]
    env = dict(os.environ, NODE_PATH=os.environ["GJKD_NODE_PATH"])
    rc, out, err = e2e.run(cmd, 120, env)
    check(rc == 0 and out.strip(), "shoot.mjs %s: exit %d\n%s\n%s" % (page, rc, out, err[-2000:]))
    r = json.loads(out.strip().splitlines()[-1])
    check(r["ready"], "%s#%s: the page never said it was ready; console: %r errors: %r"
          % (page, fragment, r["console"], r["errors"]))
    check(not r["errors"], "%s#%s: console errors: %r" % (page, fragment, r["errors"]))
    return r


def page_data(path):
    with open(path) as f:
        html = f.read()
    m = re.search(r'<script type="application/json" id="gjkd-data">(.*?)</script>', html, re.S)
    check(m is not None, "%s: no data element" % path)
    check("<script src" not in html and "<link" not in html,
          "%s: the page loads nothing from elsewhere" % path)
    return json.loads(m.group(1)), len(html)


def rotate(q, v):
    w, x, y, z = q
    # v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z)
    ux = (y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0])
    uux = (y * ux[2] - z * ux[1], z * ux[0] - x * ux[2], x * ux[1] - y * ux[0])
    return [v[i] + 2 * w * ux[i] + 2 * uux[i] for i in range(3)]


def check_witnesses(data, label):
    """pa = pose(a) * la and pb = pose(b) * lb at every waypoint, to 1e-9 m."""
    n = 0
    for k, w in enumerate(data["waypoints"]):
        for p in w["pairs"]:
            for body, local, world in ((p["a"], p["la"], p["pa"]), (p["b"], p["lb"], p["pb"])):
                pose = w["poses"][7 * body:7 * body + 7]
                got = [a + b for a, b in zip(rotate(pose[3:], local), pose[:3])]
                err = math.dist(got, world)
                check(err < 1e-9, "%s waypoint %d: %s drawn %.3g m away from the daemon's "
                      "witness" % (label, k, data["bodies"][body]["name"], err))
                n += 1
    check(n > 0, "%s: some witness points to compare" % label)
    return n


def look(page, shots, name, fragments, canvas=None):
    """Screenshots of page at each fragment; every picture drew, consecutive ones differ."""
    results, prev = [], None
    for i, frag in enumerate(fragments):
        png = os.path.join(shots, "%s-%d.png" % (name, i))
        r = shoot(page, png, frag, prev, canvas)
        c = r["canvas"]
        check(c["width"] >= 400 and c["height"] >= 300, "%s: canvas %r" % (name, c))
        check(c["drawn"] > 0.05, "%s#%s: only %.3f of the canvas drew" % (name, frag, c["drawn"]))
        if prev:
            check(c["differs"] > 0.002, "%s#%s: the same picture as the previous fragment "
                  "(%.4f of pixels differ)" % (name, frag, c["differs"]))
        prev = r["canvas_png"]
        results.append(r)
    return results


def group_view():
    shots = os.environ.get("GJKD_SHOTS") or tempfile.mkdtemp()
    os.makedirs(shots, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        d = e2e.Daemon()
        # The demo arm's 100-waypoint trajectory.
        page = os.path.join(tmp, "view.html")
        out, _ = gjkctl(d, "view", "--trajectory", demo("trajectory.json"), "--out", page)
        check("100 waypoints" in out, "gjkctl view: %r" % out)
        data, size = page_data(page)
        print("view page: %d bytes, %d bodies, %d waypoints" % (size, len(data["bodies"]),
                                                                len(data["waypoints"])))
        t = gjkctl_json(d, "trajectory", demo("trajectory.json"), "--all", "--max-distance", "0.1")
        for k, (w, tw) in enumerate(zip(data["waypoints"], t["waypoints"])):
            check(w.get("min_distance") == tw["min_distance"],
                  "waypoint %d: page %r, daemon %r" % (k, w.get("min_distance"), tw["min_distance"]))
            check(len(w["pairs"]) == len(tw["pairs"]), "waypoint %d: pair count" % k)
        check_witnesses(data, "demo")
        # Hulls: the vertices the daemon keeps (the ChangeResult counts them on a load).
        hull_parts = [p for b in data["bodies"] for p in b["parts"] if p["shape"]["kind"] == "hull"]
        for p in hull_parts:
            check(len(p["shape"]["vertices"]) % 3 == 0 and len(p["shape"]["vertices"]) >= 12,
                  "hull %s: %d coordinates" % (p["name"], len(p["shape"]["vertices"])))
        r59, r0 = look(page, shots, "view", ["waypoint=59", "waypoint=0"])
        check(r59["state"]["waypoint"] == "59" and r0["state"]["waypoint"] == "0",
              "the page opens at its fragment's waypoint: %r %r" % (r59["state"], r0["state"]))
        check(float(r59["state"]["closest"]) == t["waypoints"][59]["min_distance"],
              "waypoint 59 shows the daemon's closest pair: %r" % r59["state"])

        # The current state (no trajectory): one waypoint.
        # The arm has no joints: its current link poses are not in the daemon's scene, and
        # without --poses the page says it draws the arm at its initial ones.
        gjkctl(d, "poses", demo("poses.json"))
        state_page = os.path.join(tmp, "state.html")
        _, err = gjkctl(d, "view", "--max-distance", "0.2", "--out", state_page)
        check("--poses" in err and "\"arm\"" in err, "the note on the arm's poses: %r" % err)
        _, err = gjkctl(d, "view", "--max-distance", "0.2", "--poses", demo("poses.json"),
                        "--out", state_page)
        check(err == "", "no note with --poses: %r" % err)
        sdata, _ = page_data(state_page)
        check_witnesses(sdata, "state")
        q = gjkctl_json(d, "query", "--all", "--max-distance", "0.2")
        check(len(sdata["waypoints"]) == 1 and sdata["max_distance"] == 0.2, "one state")
        check(sdata["waypoints"][0]["min_distance"] == q["min_distance"], "the state's minimum")
        look(state_page, shots, "state", [""])

        # A robot with joints: the Panda's joint-space trajectory (forward kinematics in gjkctl).
        panda = os.path.join(e2e.ARGS.source_dir, "data", "robots", "example-robot-data",
                             "robots", "panda_description")
        gjkctl(d, "remove", "robot", "arm")
        gjkctl(d, "load-urdf", os.path.join(panda, "urdf", "panda.urdf"), "--srdf",
               os.path.join(panda, "srdf", "panda.srdf"), "--package-path",
               os.path.join(e2e.ARGS.source_dir, "data", "robots"), timeout=120)
        gjkctl(d, "load", "--merge", demo("panda_floor.json"))
        panda_page = os.path.join(tmp, "panda.html")
        gjkctl(d, "view", "--trajectory", demo("panda_trajectory.json"), "--max-distance", "0.3",
               "--out", panda_page)
        pdata, psize = page_data(panda_page)
        n = check_witnesses(pdata, "panda")
        print("panda page: %d bytes, %d witness points on their bodies" % (psize, n))
        # The sweep comes back to its start: the start and its closest waypoint differ.
        mins = [w.get("min_distance", math.inf) for w in pdata["waypoints"]]
        look(panda_page, shots, "panda", ["waypoint=0", "waypoint=%d" % mins.index(min(mins))])

        # Usage: --out is required.
        _, err = gjkctl(d, "view", expect=2)
        check("--out" in err, "view without --out: %r" % err)
        check(d.stop() == 0, "gjkd exit status")


def check_trace(data, label):
    """The trace: GJK's steps, then EPA's, numbered from 1, as many as the answer's iterations;
    the last step's bounds hold the answer; the daemon's distance is the trace's."""
    res, steps = data["result"], data["steps"]
    phases = [s["phase"] for s in steps]
    check(phases == ["GJK"] * res["iterations"] + ["EPA"] * res["epa_iterations"],
          "%s: steps %r for %d GJK and %d EPA iterations" % (label, phases, res["iterations"],
                                                             res["epa_iterations"]))
    check(not data["truncated"] and len(steps) >= 2, "%s: %d steps" % (label, len(steps)))
    for k, s in enumerate(steps):
        check(s["iteration"] == 1 + sum(1 for x in steps[:k] if x["phase"] == s["phase"]),
              "%s: step %d numbered %d" % (label, k, s["iteration"]))
        check(s["lower"] <= s["upper"] + 1e-12, "%s: step %d bounds %r" % (label, k, s))
        for p in s["points"] + [s["support"]]:
            w = [a - b for a, b in zip(p["a"], p["b"])]
            check(math.dist(w, p["w"]) < 1e-9, "%s: step %d: w is not a - b" % (label, k))
    core = res["distance"] + data["inflate"]
    last = steps[-1]
    if res["epa_iterations"] == 0:
        check(last["lower"] - 1e-9 <= core <= last["upper"] + 1e-9,
              "%s: the cores' distance %r outside the last bounds %r" % (label, core, last))
    else:
        check(last["lower"] - 1e-9 <= -core <= last["upper"] + 1e-9,
              "%s: the depth %r outside the last bounds %r" % (label, -core, last))
    check("daemon_distance" in data and
          abs(data["daemon_distance"] - res["padded_distance"]) <= 1e-9,
          "%s: the daemon says %r, the trace %r" % (label, data.get("daemon_distance"),
                                                    res["padded_distance"]))


def group_trace():
    shots = os.environ.get("GJKD_SHOTS") or tempfile.mkdtemp()
    os.makedirs(shots, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        d = e2e.Daemon()
        # An overlap at waypoint 59 of the demo trajectory: GJK, then EPA.
        page = os.path.join(tmp, "trace.html")
        out, _ = gjkctl(d, "trace", "arm/wrist", "box_a", "--trajectory", demo("trajectory.json"),
                        "--waypoint", "59", "--out", page)
        check("OVERLAPPING" in out and "EPA" in out, "gjkctl trace: %r" % out)
        data, size = page_data(page)
        check(data["result"]["epa_iterations"] > 0, "EPA ran")
        check_trace(data, "overlap")
        t = gjkctl_json(d, "trajectory", demo("trajectory.json"), "--all", "--max-distance", "0.1")
        pair = [p for p in t["waypoints"][59]["pairs"]
                if p["a"]["link"] == "wrist" and p["b"].get("obstacle") == "box_a"][0]
        check(abs(pair["distance"] - data["result"]["padded_distance"]) <= 1e-9,
              "the body pair's distance %r, the trace's %r" % (pair["distance"],
                                                               data["result"]["padded_distance"]))
        n = len(data["steps"])
        print("trace page: %d bytes, %d steps" % (size, n))
        # The world and the Minkowski difference at the first step, an EPA step, the answer.
        epa = next(k for k, s in enumerate(data["steps"]) if s["phase"] == "EPA")
        frags = ["step=0", "step=%d" % (epa + 1), "step=%d" % n]
        for canvas, name in (("#world canvas", "trace-world"), ("#mink canvas", "trace-mink")):
            rs = look(page, shots, name, frags, canvas)
            check([r["state"]["step"] for r in rs] == [f.split("=")[1] for f in frags],
                  "the page opens at its fragment's step: %r" % [r["state"] for r in rs])

        # A separated part pair at the current state, named to the part: GJK only.
        gjkctl(d, "poses", demo("poses.json"))
        page2 = os.path.join(tmp, "trace2.html")
        gjkctl(d, "trace", "arm/hand/palm", "can_b", "--poses", demo("poses.json"), "--out", page2)
        data2, _ = page_data(page2)
        check(data2["result"]["status"] == "SEPARATED" and data2["result"]["epa_iterations"] == 0,
              "separated: %r" % data2["result"])
        check_trace(data2, "separated")
        look(page2, shots, "trace-separated", ["", "step=%d" % len(data2["steps"])],
             "#mink canvas")

        # Refusals: unknown bodies, a waypoint without a trajectory, past its end.
        _, err = gjkctl(d, "trace", "arm/nope", "table", "--out", page2, expect=2)
        check("no robot link or obstacle" in err, err)
        _, err = gjkctl(d, "trace", "arm/hand", "table", "--waypoint", "3", "--out", page2,
                        expect=2)
        check("go together" in err, err)
        _, err = gjkctl(d, "trace", "arm/hand", "table", "--trajectory", demo("trajectory.json"),
                        "--waypoint", "100", "--out", page2, expect=2)
        check("100 waypoints" in err, err)
        check(d.stop() == 0, "gjkd exit status")


def same_view(py, c, label):
    """The Python client's page data is gjkctl's: bodies, parts, the poses drawn (to 1e-12;
    Python's forward kinematics against the core's), every pair."""
    check([b["name"] for b in py["bodies"]] == [b["name"] for b in c["bodies"]],
          "%s: bodies" % label)
    for bp, bc in zip(py["bodies"], c["bodies"]):
        check([p["name"] for p in bp["parts"]] == [p["name"] for p in bc["parts"]] and
              all(math.dist(x["pose"], y["pose"]) < 1e-12 for x, y in zip(bp["parts"], bc["parts"])),
              "%s: parts of %s" % (label, bp["name"]))
    check(len(py["waypoints"]) == len(c["waypoints"]), "%s: waypoint count" % label)
    worst = 0.0
    for k, (wp, wc) in enumerate(zip(py["waypoints"], c["waypoints"])):
        check(wp.get("min_distance") == wc.get("min_distance") and wp["closest"] == wc["closest"],
              "%s waypoint %d: minimum %r vs %r" % (label, k, wp.get("min_distance"),
                                                     wc.get("min_distance")))
        worst = max(worst, max(abs(x - y) for x, y in zip(wp["poses"], wc["poses"])))
        check([(p["a"], p["b"], p["d"]) for p in wp["pairs"]] ==
              [(p["a"], p["b"], p["d"]) for p in wc["pairs"]], "%s waypoint %d: pairs" % (label, k))
    check(worst < 1e-12, "%s: the poses drawn differ by %.3g" % (label, worst))


def group_python():
    shots = os.environ.get("GJKD_SHOTS") or tempfile.mkdtemp()
    os.makedirs(shots, exist_ok=True)
    import gjkd.viewer  # noqa: E402  (e2e.main put the package on sys.path)
    with tempfile.TemporaryDirectory() as tmp:
        d = e2e.Daemon()
        cpage, pypage = os.path.join(tmp, "c.html"), os.path.join(tmp, "py.html")
        doc = e2e.load_json("trajectory.json")
        gjkctl(d, "view", "--trajectory", demo("trajectory.json"), "--out", cpage)
        with d.client() as c:
            gjkd.viewer.write_view(c, pypage, trajectory=doc)
        pdata, _ = page_data(pypage)
        cdata, _ = page_data(cpage)
        same_view(pdata, cdata, "demo")
        check_witnesses(pdata, "python demo")
        look(pypage, shots, "python-view", ["waypoint=59", "waypoint=0"])

        # The Panda: joint-space trajectory, forward kinematics in Python.
        panda = os.path.join(e2e.ARGS.source_dir, "data", "robots", "example-robot-data",
                             "robots", "panda_description")
        gjkctl(d, "remove", "robot", "arm")
        gjkctl(d, "load-urdf", os.path.join(panda, "urdf", "panda.urdf"), "--srdf",
               os.path.join(panda, "srdf", "panda.srdf"), "--package-path",
               os.path.join(e2e.ARGS.source_dir, "data", "robots"), timeout=120)
        gjkctl(d, "load", "--merge", demo("panda_floor.json"))
        # A joint state away from zero, so the current positions matter too.
        gjkctl(d, "joints", "panda", demo("panda_joints.json"))
        gjkctl(d, "view", "--trajectory", demo("panda_trajectory.json"), "--max-distance", "0.3",
               "--out", cpage)
        with d.client() as c:
            gjkd.viewer.write_view(c, pypage, trajectory=e2e.load_json("panda_trajectory.json"),
                                   max_distance=0.3)
            state = os.path.join(tmp, "state.html")
            sdata = gjkd.viewer.write_view(c, state, max_distance=0.3)
        same_view(page_data(pypage)[0], page_data(cpage)[0], "panda")
        gjkctl(d, "view", "--max-distance", "0.3", "--out", cpage)
        same_view(sdata, page_data(cpage)[0], "panda state")
        check_witnesses(sdata, "python panda state")
        check(d.stop() == 0, "gjkd exit status")


GROUPS = {"view": group_view, "trace": group_trace, "python": group_python}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
