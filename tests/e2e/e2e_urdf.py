#!/usr/bin/python3
"""End-to-end tests of the URDF import's clients (issue 20): gjkctl load-urdf / urdf-to-proto
and the Python client's load_urdf, on the vendored Panda and UR5 (data/robots). Same harness
and arguments as e2e.py, whose helpers (Daemon, run, gjkctl, check, reaping) it uses:

    /usr/bin/python3 tests/e2e/e2e_urdf.py --group GROUP --gjkd BUILD/server/gjkd \
        --gjkctl BUILD/clients/gjkctl --e2e-client BUILD/tests/e2e_client \
        --python-proto BUILD/python --source-dir .

Groups:
  cli     load-urdf --dry-run (tables and --json), urdf-to-proto and urdf-to-json without any
          daemon (the endpoint given is served by nobody: a request would time out); the
          counts, DOF and
          notes; urdf-to-proto's bytes parse as a gjkd.v1.Robot that equals the --json summary;
          package:// found with --package-path and, without one, above the URDF; urdf-to-json
          holds the joints (limits, axes, mimic) and hulls with adjacency, and loads with
          gjkctl load; bad input exits 2 with one line naming the file and the element;
          load-urdf puts the robot into a daemon (scene lists its links)
  python  Client.load_urdf runs the same C import (gjkctl urdf-to-proto, found through
          GJKD_GJKCTL) and puts the robot: the robot the daemon stores equals gjkctl's bytes;
          urdf_to_robot without a daemon; a bad file raises UrdfImportError with gjkctl's
          message; a missing gjkctl is named"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e  # noqa: E402
from e2e import check, gjkctl, gjkctl_json, run  # noqa: E402

NOBODY = "tcp://127.0.0.1:9"  # discard port: nothing of ours serves it


def robots():
    return os.path.join(e2e.ARGS.source_dir, "data", "robots")


def panda():
    base = os.path.join(robots(), "example-robot-data", "robots", "panda_description")
    return os.path.join(base, "urdf", "panda.urdf"), os.path.join(base, "srdf", "panda.srdf")


def ur5():
    base = os.path.join(robots(), "example-robot-data", "robots", "ur_description")
    return os.path.join(base, "urdf", "ur5_robot.urdf"), os.path.join(base, "srdf", "ur5.srdf")


def offline(*args, expect=0):
    """gjkctl with an endpoint nobody serves and a short timeout: a command that sent a request
    would exit 3."""
    rc, out, err = run([e2e.ARGS.gjkctl, "--endpoint", NOBODY, "--timeout", "0.5",
                        "--retries", "0"] + list(args), 120)
    check(rc == expect, "gjkctl %s: exit %s, expected %d\nstdout: %s\nstderr: %s"
          % (" ".join(args), rc, expect, out[-1500:], err[-1500:]))
    return out, err


def robot_from_proto(*args):
    p = subprocess.run([e2e.ARGS.gjkctl, "urdf-to-proto"] + list(args), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    check(p.returncode == 0, "urdf-to-proto: exit %d: %s" % (p.returncode, p.stderr[-500:]))
    r = e2e.pb.Robot()
    r.ParseFromString(p.stdout)
    return r, p.stdout


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def group_cli():
    urdf, srdf = panda()
    # Offline: tables and JSON.
    out, _ = offline("load-urdf", urdf, "--srdf", srdf, "--package-path", robots(), "--dry-run")
    check(out.startswith("robot panda: 13 links, 12 joints, 8 DOF, 17 parts, 35 disabled pairs"),
          "load-urdf table: %r" % out[:300])
    check("mimic 1.0 * panda_finger_joint1 + 0.0" in out and "dry run: nothing sent" in out,
          "the table shows the mimic and the dry run: %r" % out[-800:])
    s = json.loads(offline("--json", "load-urdf", urdf, "--srdf", srdf, "--package-path",
                           robots(), "--dry-run")[0])
    check(s["robot"] == "panda" and len(s["links"]) == 13 and len(s["joints"]) == 12,
          "load-urdf --json: %r" % {k: s[k] for k in ("robot", "parts", "dof")})
    check(s["dof"] == ["panda_joint%d" % i for i in range(1, 8)] + ["panda_finger_joint1"],
          "DOF order: %r" % s["dof"])
    check(s["dry_run"] and "revision" not in s and s["mesh_files"] == 9, "dry run: %r" % s)
    j4 = [j for j in s["joints"] if j["name"] == "panda_joint4"][0]
    check(j4["lower"] == -3.0718 and j4["upper"] == -0.0698 and j4["type"] == "revolute",
          "joint4: %r" % j4)
    hulls = [p["hull_vertices"] for l in s["links"] for p in l["parts"] if p["type"] == "convex"]
    check(len(hulls) == 9 and all(v > 4 for v in hulls) and sum(hulls) == s["hull_vertices"],
          "hull vertex counts: %r" % hulls)
    check(sum("hulled" in n for n in s["notes"]) == 9, "a note per mesh: %r" % s["notes"])

    # urdf-to-proto: the same robot, as the wire message.
    r, _ = robot_from_proto(urdf, "--srdf", srdf, "--package-path", robots())
    check(r.name == "panda" and [l.name for l in r.links] == [l["name"] for l in s["links"]],
          "urdf-to-proto links")
    check([j.name for j in r.joints] == [j["name"] for j in s["joints"]], "urdf-to-proto joints")
    check(len(r.disabled_pairs) == s["disabled_pairs"] == 35, "disabled pairs")
    f2 = [j for j in r.joints if j.name == "panda_finger_joint2"][0]
    check(f2.mimic.joint == "panda_finger_joint1" and f2.type == e2e.pb.JOINT_TYPE_PRISMATIC,
          "the mimic on the wire: %r" % f2)
    # Without --package-path: package://example-robot-data/... is the directory above the URDF.
    r2, _ = robot_from_proto(urdf, "--srdf", srdf)
    check(r2 == r, "package:// resolved above the URDF gives the same robot")
    r3, _ = robot_from_proto(urdf, "--name", "arm2", "--no-adjacent")
    check(r3.name == "arm2" and len(r3.disabled_pairs) == 0, "--name, --no-adjacent")
    u, usrdf = ur5()
    s5 = json.loads(offline("--json", "load-urdf", u, "--srdf", usrdf, "--dry-run")[0])
    check(len(s5["links"]) == 11 and len(s5["dof"]) == 6 and s5["mesh_files"] == 7,
          "ur5: %r" % {k: s5[k] for k in ("dof", "mesh_files", "parts")})

    # Bad input: exit 2, one line naming the file and the element.
    with tempfile.TemporaryDirectory() as tmp:
        bad = write(tmp, "bad.urdf", '<robot name="b"><link name="a"/><link name="c"/>\n'
                    '<joint name="free" type="floating"><parent link="a"/><child link="c"/>'
                    '</joint></robot>\n')
        _, err = offline("load-urdf", bad, "--dry-run", expect=2)
        check(err.count("\n") == 1 and "bad.urdf:2: joint \"free\": type \"floating\"" in err,
              "one line naming file, line and joint: %r" % err)
        _, err = offline("urdf-to-proto", bad, expect=2)
        check("joint \"free\"" in err, "urdf-to-proto error: %r" % err)
        miss = write(tmp, "miss.urdf", '<robot name="m"><link name="a"><collision><geometry>'
                     '<mesh filename="package://nowhere/x.stl"/></geometry></collision></link>'
                     '</robot>')
        _, err = offline("load-urdf", miss, "--package-path", tmp, "--dry-run", expect=2)
        check("tried %s/nowhere/x.stl" % tmp in err, "the path tried: %r" % err)
        _, err = offline("load-urdf", os.path.join(tmp, "none.urdf"), "--dry-run", expect=2)
        check("none.urdf" in err, "missing file named: %r" % err)
        offline("load-urdf", expect=2)

    # urdf-to-json: a scene document with the robot's joints, numbers exact.
    doc = json.loads(offline("urdf-to-json", urdf, "--srdf", srdf)[0])
    check(doc["format"] == "gjkd-scene/1" and len(doc["robots"]) == 1, "urdf-to-json document")
    jr = doc["robots"][0]
    check(len(jr["joints"]) == 12 and len(jr["links"]) == 13
          and len(jr["disabled_pairs"]) == 35, "urdf-to-json robot")
    jj = {j["name"]: j for j in jr["joints"]}
    check(jj["panda_joint4"]["limits"] == {"lower": -3.0718, "upper": -0.0698}
          and jj["panda_finger_joint2"]["mimic"]["joint"] == "panda_finger_joint1"
          and jj["panda_joint1"]["axis"] == [0.0, 0.0, 1.0] and "axis" not in jj["panda_joint8"],
          "urdf-to-json joints: %r" % jj["panda_joint4"])
    pts = [p for l in jr["links"] for p in l["parts"] if p["type"] == "convex"]
    check(all(len(p["points"]) > 4 and len(p["adjacency_start"]) == len(p["points"]) + 1
              for p in pts), "hull vertices with their adjacency")

    # Into a daemon.
    d = e2e.Daemon()
    with tempfile.TemporaryDirectory() as tmp:
        path = write(tmp, "panda.json", json.dumps(doc))
        ld = gjkctl_json(d, "load", path, "--merge")
        check(ld["robots"] == 1, "the urdf-to-json document loads: %r" % ld)
    put = gjkctl_json(d, "load-urdf", urdf, "--srdf", srdf, "--package-path", robots())
    check(put["revision"] > ld["revision"] and not put["dry_run"] and put["replaced"],
          "put replaces the panda the document loaded: %r" % {k: put[k] for k in
                                                                ("revision", "replaced")})
    out, _ = gjkctl(d, "load-urdf", u, "--srdf", usrdf)
    check("put robot ur5: id" in out, "load-urdf table: %r" % out[-300:])
    sc = gjkctl_json(d, "scene")
    names = {x["name"]: x for x in sc["robots"]}
    check({"panda", "ur5"} <= set(names) and len(names["panda"]["links"]) == 13
          and names["panda"]["parts"] == 17, "scene: %r" % sc["robots"])
    # Mobile manipulators have more than 128 links (tiago_dual: 130, most without collision
    # geometry); the default --max-links-per-robot was 128 and refused them. A 300-link chain
    # loads with the defaults.
    with tempfile.TemporaryDirectory() as tmp:
        n = 300
        links = "".join('<link name="l%d"><collision><geometry><box size="0.1 0.1 0.1"/>'
                        '</geometry></collision></link>' % i for i in range(n))
        joints = "".join('<joint name="j%d" type="revolute"><parent link="l%d"/>'
                         '<child link="l%d"/><origin xyz="0 0 0.2"/><axis xyz="0 1 0"/>'
                         '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
                         % (i, i, i + 1) for i in range(n - 1))
        chain = write(tmp, "chain.urdf", '<robot name="chain">%s%s</robot>' % (links, joints))
        put = gjkctl_json(d, "load-urdf", chain)
        check(not put["dry_run"], "a %d-link robot loads with the default limits" % n)
        sc = gjkctl_json(d, "scene")
        lc = [len(x["links"]) for x in sc["robots"] if x["name"] == "chain"]
        check(lc == [n], "the scene holds the %d links: %r" % (n, lc))
    check(d.stop() == 0, "gjkd exit status")


def group_python():
    env_before = os.environ.get("GJKD_GJKCTL")
    os.environ["GJKD_GJKCTL"] = e2e.ARGS.gjkctl
    from gjkd import client as gc
    urdf, srdf = panda()
    _, raw = robot_from_proto(urdf, "--srdf", srdf, "--package-path", robots())
    r = gc.urdf_to_robot(urdf, srdf=srdf, package_paths=[robots()])
    check(r.SerializeToString() == raw, "urdf_to_robot = gjkctl urdf-to-proto, byte for byte")
    d = e2e.Daemon()
    with d.client() as c:
        ch = c.load_urdf(urdf, srdf=srdf, package_paths=[robots()], name="arm")
        check(ch["revision"] >= 1, "load_urdf: %r" % ch)
        stored = [x for x in c.scene_summary(include_scene=True)["scene"].robots
                  if x.name == "arm"]
        check(len(stored) == 1 and len(stored[0].links) == 13, "the daemon stores the robot")
        with tempfile.TemporaryDirectory() as tmp:
            bad = write(tmp, "bad.urdf", '<robot name="b"><link name="a"/><link name="c"/>'
                        '<joint name="j" type="screw"><parent link="a"/><child link="c"/>'
                        '</joint></robot>')
            try:
                c.load_urdf(bad)
                check(False, "a bad URDF raises")
            except gc.UrdfImportError as e:
                check("joint \"j\": unknown type \"screw\"" in str(e), "message: %s" % e)
    os.environ["GJKD_GJKCTL"] = os.path.join(e2e.ARGS.source_dir, "no-such-gjkctl")
    try:
        gc.urdf_to_robot(urdf)
        check(False, "a missing gjkctl raises")
    except gc.UrdfImportError as e:
        check("no-such-gjkctl" in str(e), "names the gjkctl it tried: %s" % e)
    if env_before is None:
        del os.environ["GJKD_GJKCTL"]
    else:
        os.environ["GJKD_GJKCTL"] = env_before
    check(d.stop() == 0, "gjkd exit status")


GROUPS = {"cli": group_cli, "python": group_python}

if __name__ == "__main__":
    e2e.GROUPS = GROUPS
    sys.exit(e2e.main())
