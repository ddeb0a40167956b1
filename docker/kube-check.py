#!/usr/bin/python3
"""kube-check.py — the checks of the `podman kube play` step of docker/smoke-test.sh.

    kube-check.py revision FILE                 the revision gjkd derives from FILE's bytes
    kube-check.py http PORT PATH                prints the HTTP status of 127.0.0.1:PORT/PATH
    kube-check.py metrics PORT REVISION RELOADS parses /metrics (prometheus_client's parser)
                                                and checks gjkd_scene_revision and
                                                gjkd_scene_reloads_total
    kube-check.py update DIR GENERATION         changes the scene in DIR, a ConfigMap volume,
                                                as the kubelet does (see update()); prints the
                                                new scene file's path
Exit status 0 when the check holds, 1 (with the reason on stderr) when not.
"""
import json
import os
import sys
import urllib.error
import urllib.request


def revision(path):
    """server/scene.c gjkd_scene_revision_of: FNV-1a 64 of the bytes, folded to 53 bits."""
    h = 14695981039346656037
    with open(path, "rb") as f:
        for b in f.read():
            h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    r = (h ^ (h >> 53)) & ((1 << 53) - 1)
    return r or 1


def http(port, path):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%s%s" % (port, path), timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def metrics(port, want_revision, want_reloads):
    from prometheus_client.parser import text_string_to_metric_families
    status, text = http(port, "/metrics")
    if status != 200:
        sys.exit("/metrics answered %d" % status)
    values = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if not s.labels:
                values[s.name] = s.value
    got = (values.get("gjkd_scene_revision"), values.get("gjkd_scene_reloads_total"))
    if got != (float(want_revision), float(want_reloads)):
        sys.exit("/metrics: gjkd_scene_revision %s, gjkd_scene_reloads_total %s; expected %s, %s"
                 % (got + (want_revision, want_reloads)))


def update(d, generation):
    """The kubelet's atomic update of a ConfigMap volume: the new files go into a new hidden
    directory, the `..data` link is swapped to it by a rename, and each key is a link
    `KEY -> ..data/KEY` (the first update turns podman's plain file into that link, also by a
    rename). The new scene drops the last obstacle of the one before."""
    cur = os.path.join(d, "scene.json")
    with open(cur) as f:
        scene = json.load(f)
    scene["obstacles"] = scene["obstacles"][:-1]
    new = os.path.join(d, "..gen_%s" % generation)
    os.mkdir(new)
    with open(os.path.join(new, "scene.json"), "w") as f:
        f.write(json.dumps(scene, indent=2) + "\n")
    os.symlink(os.path.basename(new), os.path.join(d, "..data_tmp"))
    os.rename(os.path.join(d, "..data_tmp"), os.path.join(d, "..data"))
    if not os.path.islink(cur):
        os.symlink("..data/scene.json", cur + ".tmp")
        os.rename(cur + ".tmp", cur)
    print(os.path.join(new, "scene.json"))


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "revision":
        print(revision(args[0]))
    elif cmd == "http":
        print(http(args[0], args[1])[0])
    elif cmd == "metrics":
        metrics(*args)
    elif cmd == "update":
        update(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
