#!/usr/bin/env bash
# Container smoke test (ctest label `container`; see tests/container.cmake):
#   docker/smoke-test.sh --gjkctl BUILD/clients/gjkctl --python-proto BUILD/python
# Builds the image from this worktree in a podman store of its own (removed at the end, also
# on failure), then checks, each with a bounded wait:
#   1. the runtime image runs as a non-root user and holds no compiler;
#   2. a container started with --demo, a read-only root file system and its port published
#      on 127.0.0.1 (every container below runs so), answers the demo trajectory
#      from gjkctl on the host, and `podman healthcheck run` reports it healthy;
#   3. `podman stop` ends it with exit code 0 after a clean drain;
#   4. its state volume, mounted into a new container, brings back the scene it left;
#   5. three replicas at once: docker/farm-client.py spreads queries over all three through
#      one socket and every query is answered (see the script for what it checks);
#   6. docker/k8s under `podman kube play` (docker/kube-play.py): /readyz and /healthz answer
#      200, gjkctl gets answers through the published port, the revision is the ConfigMap
#      scene's, two ConfigMap changes made as the kubelet makes them are picked up (revision,
#      /metrics, scene), job-sweep.yaml's script answers its trajectory set index by index in
#      the pod's network, and the pod stops with exit code 0 after a drain; kube down removes it.
# The base image debian:bookworm-slim comes from docker/base-image.sh; a copy is cached in
# $GJK_CONTAINER_CACHE (default /var/tmp/gjkd-cache) to save the debootstrap on the next run
# (a missing or unreadable cache only costs time). Exit status: 0 pass, 1 fail, 77 skipped
# (no podman or debootstrap, or not root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
gjkctl=""
python_proto=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gjkctl) gjkctl=$2; shift 2 ;;
    --python-proto) python_proto=$2; shift 2 ;;
    *) echo "usage: $0 --gjkctl PATH --python-proto DIR" >&2; exit 2 ;;
  esac
done
[ -x "$gjkctl" ] || { echo "smoke: --gjkctl PATH (the host's gjkctl) is required" >&2; exit 2; }
[ -f "$python_proto/gjkd_pb2.py" ] || { echo "smoke: --python-proto DIR with gjkd_pb2.py is required" >&2; exit 2; }
for tool in podman debootstrap runc catatonit; do
  command -v "$tool" >/dev/null || { echo "smoke: SKIP: $tool not installed"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "smoke: SKIP: needs root (debootstrap, podman networking)"; exit 77; }

start=$(date +%s)
step() { echo "smoke: [$(($(date +%s) - start))s] $*"; }
fail() { echo "smoke: FAIL: $*" >&2; exit 1; }

# remove_store DIR: every container, volume and image of the podman store under DIR (each
# with a bounded wait), whatever is still mounted there, then DIR itself.
remove_store() (
  set +e # best effort: each step is bounded, and what one leaves the next may remove
  # shellcheck disable=SC2030  # on purpose: the subshell works on that store only
  export GJK_PODMAN_DIR="$1/podman"
  # shellcheck source=podman-env.sh
  . "$here/podman-env.sh"
  timeout 60 podman pod rm -f -a >/dev/null 2>&1
  timeout 60 podman rm -f -v -t 0 -a >/dev/null 2>&1
  timeout 30 podman volume rm -f -a >/dev/null 2>&1
  timeout 60 podman rmi -f -a >/dev/null 2>&1
  grep -o " $1/[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m"; done
  rm -rf "$1"
)
# Stores of earlier runs that were killed before their own cleanup (ctest's timeout kills
# with SIGKILL): their owner process is gone.
for old in /var/tmp/gjkd-smoke.*; do
  [ -f "$old/owner" ] || continue
  kill -0 "$(cat "$old/owner")" 2>/dev/null && continue
  step "removing the store of a killed run: $old"
  remove_store "$old"
done

work=$(mktemp -d /var/tmp/gjkd-smoke.XXXXXX)
echo $$ >"$work/owner"
# shellcheck disable=SC2031
export GJK_PODMAN_DIR="$work/podman"
# shellcheck source=podman-env.sh
. "$here/podman-env.sh"
tag="localhost/gjkd-smoke:$$"
prefix="gjkd-smoke-$$"
kube_file="" # set while a `podman kube play` of step 6 may be up
cleanup() {
  local rc=$?
  set +e
  if [ $rc -ne 0 ]; then
    for c in $(podman ps -a --format '{{.Names}}' 2>/dev/null); do
      echo "---- logs of $c"
      timeout 10 podman logs --tail 30 "$c" 2>&1
    done
  fi
  [ -z "$kube_file" ] || timeout 60 podman kube down "$kube_file" >/dev/null 2>&1
  remove_store "$work"
  step "cleaned up (exit $rc)"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# ------------------------------------------------------------------ 0. the manifests
# The ConfigMap carries copies of docker/gjkd.conf and the demo scene: they must not drift.
# The compose and Kubernetes files must parse (when python3-yaml is there to parse them).
/usr/bin/python3 - "$here" "$root/examples/demo/scene.json" <<'PY' || fail "docker/k8s or compose"
import glob, os, sys
here, scene = sys.argv[1:3]
text = open(os.path.join(here, "k8s", "configmap.yaml")).read()
def key(name):  # the block scalar under `  name: |`, de-indented
    block = text.split("\n  %s: |\n" % name, 1)[1]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line[4:])
    return "\n".join(lines).strip()
for name, path in (("gjkd.conf", os.path.join(here, "gjkd.conf")), ("scene.json", scene)):
    if key(name) != open(path).read().strip():
        sys.exit("docker/k8s/configmap.yaml: %s differs from %s (regenerate it, see its header)"
                 % (name, path))
try:
    import yaml
except ImportError:
    sys.exit(0)
for f in [os.path.join(here, "compose.yaml")] + glob.glob(os.path.join(here, "k8s", "*.yaml")):
    list(yaml.safe_load_all(open(f)))
PY
step "0. ConfigMap in step with gjkd.conf and the demo scene; manifests parse"

# ------------------------------------------------------------------ base and image
cache=${GJK_CONTAINER_CACHE:-/var/tmp/gjkd-cache}
base=docker.io/library/debian:bookworm-slim
# The cached copy is named after base-image.sh's contents: a changed script makes a new base.
cached="$cache/bookworm-slim-$(sha256sum "$here/base-image.sh" | cut -c1-16).tar"
if [ -s "$cached" ] &&
  timeout 120 podman load -q -i "$cached" >/dev/null 2>&1 &&
  podman image exists "$base"; then
  step "base image from the cache $cache"
else
  step "base image: debootstrap (no usable cache)"
  timeout 600 "$here/base-image.sh"
  mkdir -p "$cache"
  if timeout 120 podman save --format docker-archive -o "$cached.$$" "$base"; then
    rm -f "$cache"/bookworm-slim*.tar # copies made by other versions of base-image.sh
    mv "$cached.$$" "$cached"
  else
    rm -f "$cached.$$"
  fi
fi
step "building $tag"
# docker format: the OCI format drops HEALTHCHECK. No layer cache: the store is thrown away.
timeout 900 podman build --pull=never --format docker --layers=false --network host \
  --ignorefile "$here/Dockerfile.dockerignore" -f "$here/Dockerfile" -t "$tag" "$root" \
  >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; fail "podman build"; }
size=$(podman image inspect --format '{{.Size}}' "$tag")
step "built: $((size / 1000000)) MB"

# ------------------------------------------------------------------ 1. user, no compiler
user=$(podman image inspect --format '{{.Config.User}}' "$tag")
[ "${user%%:*}" = 10001 ] || fail "image user is '$user', expected 10001"
uid=$(podman run --rm --network none --no-healthcheck --entrypoint id "$tag" -u)
[ "$uid" = 10001 ] || fail "the container runs as uid $uid"
compilers=$(podman run --rm --network none --no-healthcheck --entrypoint sh "$tag" -c \
  'for c in cc gcc c99 c89 clang tcc g++ c++ cpp as ld make cmake; do command -v "$c"; done; dpkg-query -W -f="\${Package}\n" | grep -E "^(gcc|cpp|g\+\+|clang|tcc|binutils|libc6-dev)(-[0-9.]+)?$"' || true)
[ -z "$compilers" ] || fail "the runtime image holds build tools: $compilers"
podman image inspect --format '{{json .Config.Healthcheck}}' "$tag" | grep gjkctl >/dev/null ||
  fail "the image has no HEALTHCHECK (built without --format docker?)"
step "1. runs as uid 10001, no compiler or binutils, HEALTHCHECK present"

# ------------------------------------------------------------------ helpers
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# run NAME PORT [podman run options...] -- [gjkd arguments...]
run() {
  local name=$1 port=$2
  shift 2
  local opts=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  # No health timer (it needs systemd, absent here): `podman healthcheck run` is called below.
  # (podman 4.3 still complains on stderr that systemd is absent: kept out of the output.)
  # Read-only root file system, as in docker/k8s: gjkd writes only to its state volume.
  podman run -d --name "$name" --read-only --health-interval disable -p "127.0.0.1:$port:7471" \
    "${opts[@]}" "$tag" "$@" >/dev/null 2>"$work/run-$name.err" ||
    { cat "$work/run-$name.err" >&2; fail "podman run $name"; }
}
ctl() { local port=$1; shift; "$gjkctl" --endpoint "tcp://127.0.0.1:$port" --timeout 5 "$@"; }
wait_serving() { # port name: bounded wait until gjkd answers through the published port
  for _ in $(seq 60); do
    if ctl "$1" --timeout 0.5 --retries 0 health >/dev/null 2>&1; then return 0; fi
    [ "$(podman inspect --format '{{.State.Running}}' "$2")" = true ] || fail "$2 exited"
    sleep 0.5
  done
  fail "$2 did not answer on 127.0.0.1:$1 within 30 s"
}
stop_clean() { # name: podman stop (SIGTERM), exit code 0 and a drain in the log
  timeout 60 podman stop -t 20 "$1" >/dev/null 2>&1 || fail "podman stop $1"
  local code
  code=$(podman inspect --format '{{.State.ExitCode}}' "$1")
  [ "$code" = 0 ] || fail "$1 exited with $code after podman stop"
  podman logs "$1" 2>&1 | grep drained >/dev/null || fail "$1 logged no drain before exiting"
}

# ------------------------------------------------------------------ 2. demo trajectory, health
p1=$(free_port)
run "$prefix-a" "$p1" -v "$prefix-state:/var/lib/gjkd" -- --demo
wait_serving "$p1" "$prefix-a"
pid1=$(podman exec "$prefix-a" cat /proc/1/comm 2>/dev/null)
[ "$pid1" = gjkd ] || fail "PID 1 in the container is '$pid1', not gjkd"
ctl "$p1" --json trajectory "$root/examples/demo/trajectory.json" >"$work/traj.json" ||
  fail "gjkctl trajectory through the published port"
/usr/bin/python3 - "$work/traj.json" "$root/examples/demo/trajectory.json" <<'PY' || fail "the demo trajectory's answer"
import json, sys
got, sent = (json.load(open(p)) for p in sys.argv[1:3])
n = len(sent["waypoints"])
assert len(got["waypoints"]) == n, "%d of %d waypoints answered" % (len(got["waypoints"]), n)
assert isinstance(got.get("min_distance"), float), "no minimum distance: %r" % got.get("min_distance")
print("smoke:    %d waypoints, min distance %.6f m" % (n, got["min_distance"]))
PY
health=$(timeout 30 podman healthcheck run "$prefix-a" 2>&1) || fail "podman healthcheck run: $health"
status=$(podman inspect --format '{{.State.Health.Status}}' "$prefix-a" 2>/dev/null ||
  podman inspect --format '{{.State.Healthcheck.Status}}' "$prefix-a")
[ "$status" = healthy ] || fail "health status '$status' ($health)"
step "2. gjkd is PID 1; demo trajectory answered through 127.0.0.1:$p1; healthcheck: $status"

# ------------------------------------------------------------------ 3. stop drains, exit 0
# Change the scene first (a change the demo would not bring back), so that step 4 can tell
# the persisted scene from a fresh demo load.
obstacle=$(ctl "$p1" --json scene | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["obstacles"][0]["name"])')
ctl "$p1" remove obstacle "$obstacle" >/dev/null || fail "remove obstacle $obstacle"
ctl "$p1" --json scene >"$work/scene-before.json"
stop_clean "$prefix-a"
step "3. podman stop: exit code 0 after a drain"

# ------------------------------------------------------------------ 4. the state volume
p2=$(free_port)
run "$prefix-b" "$p2" -v "$prefix-state:/var/lib/gjkd" -- --demo
wait_serving "$p2" "$prefix-b"
ctl "$p2" --json scene >"$work/scene-after.json"
# Equal but for body ids, which gjkd numbers afresh when it loads a snapshot (names are the
# identity that persists; the revision is kept).
/usr/bin/python3 - "$work/scene-before.json" "$work/scene-after.json" "$obstacle" <<'PY' ||
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "id"}
    return [strip(x) for x in v] if isinstance(v, list) else v
before, after = (strip(json.load(open(p))) for p in sys.argv[1:3])
if before != after:
    sys.exit("before %s\nafter  %s" % (json.dumps(before)[:400], json.dumps(after)[:400]))
assert sys.argv[3] not in [o["name"] for o in after["obstacles"]]
PY
  fail "the scene differs after a restart on the same volume"
ctl "$p2" --json health | grep -E '"persistent":[[:space:]]*true' >/dev/null || fail "gjkd reports no persistence"
stop_clean "$prefix-b"
step "4. a new container on the same volume has the scene (revision, without '$obstacle')"

# ------------------------------------------------------------------ 5. three replicas
ports=()
for i in 1 2 3; do
  ports+=("$(free_port)")
  run "$prefix-r$i" "${ports[i - 1]}" -- --demo
done
endpoints=""
for i in 1 2 3; do
  wait_serving "${ports[i - 1]}" "$prefix-r$i"
  endpoints="$endpoints${endpoints:+,}tcp://127.0.0.1:${ports[i - 1]}"
done
# Discovery with its fallback: a name that never resolves (RFC 2606 .invalid) stands for a
# headless Service that is not there, so the client must use the given list.
GJKD_PYTHON_PROTO="$python_proto" timeout 120 /usr/bin/python3 "$here/farm-client.py" \
  --service gjkd.invalid:7471 --endpoints "$endpoints" --requests 30 \
  "$root/examples/demo/trajectory.json" >"$work/farm.log" 2>&1 ||
  { sed 's/^/smoke:    /' "$work/farm.log"; fail "farm client"; }
sed 's/^/smoke:    /' "$work/farm.log"
grep '^replicas from --endpoints (service gjkd.invalid' "$work/farm.log" >/dev/null ||
  fail "farm client did not fall back to --endpoints"
for i in 1 2 3; do stop_clean "$prefix-r$i"; done
step "5. three replicas answered every spread query; all stopped with exit code 0"

# ------------------------------------------------------------------ 6. docker/k8s, kube play
# The ConfigMaps and the Deployment of docker/k8s, as `podman kube play` runs them (what
# docker/kube-play.py changes for one host: the image, one replica, hostPort on 127.0.0.1 on
# two free ports, the podman init-container type). podman does not run the HTTP probes without
# systemd timers (nor readiness at all in 4.3), so this step asks the probes' pages itself.
kz=$(free_port)
kh=$(free_port)
while [ "$kh" = "$kz" ]; do kh=$(free_port); done
/usr/bin/python3 "$here/kube-play.py" --image "$tag" --zmq-port "$kz" --http-port "$kh" \
  >"$work/kube.yaml" || fail "docker/kube-play.py"
check() { /usr/bin/python3 "$here/kube-check.py" "$@"; }
kube_file="$work/kube.yaml" # cleanup() runs `podman kube down` on it from here on
timeout 180 podman kube play "$work/kube.yaml" >"$work/kube-play.log" 2>&1 ||
  { cat "$work/kube-play.log" >&2; fail "podman kube play"; }
pod=gjkd-pod-0
ctr=$pod-gjkd
step "6. podman kube play: pod $pod, published on 127.0.0.1:$kz (zmq) and 127.0.0.1:$kh (http)"
code=""
for _ in $(seq 60); do
  code=$(check http "$kh" /readyz 2>/dev/null || true)
  [ "$code" = 200 ] && break
  [ "$(podman inspect --format '{{.State.Running}}' "$ctr" 2>/dev/null)" = true ] ||
    fail "$ctr is not running"
  sleep 0.5
done
[ "$code" = 200 ] || fail "/readyz of $ctr answered '${code:-nothing}' within 30 s"
code=$(check http "$kh" /healthz) || true
[ "$code" = 200 ] || fail "/healthz answered '$code'"
want=$(check revision "$root/examples/demo/scene.json")
ctl "$kz" --json health >"$work/kube-health.json" || fail "gjkctl health through 127.0.0.1:$kz"
grep -E "\"revision\":[[:space:]]*$want\b" "$work/kube-health.json" >/dev/null ||
  fail "revision is not $want (the ConfigMap scene's): $(cat "$work/kube-health.json")"
ctl "$kz" --json trajectory "$root/examples/demo/trajectory.json" >"$work/kube-traj.json" ||
  fail "gjkctl trajectory through the pod's published port"
n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["waypoints"]))' \
  "$work/kube-traj.json")
check metrics "$kh" "$want" 0 || fail "/metrics at start"
step "6. /readyz and /healthz 200; revision $want from the ConfigMap; trajectory of $n waypoints answered"

# The ConfigMap changes as the kubelet writes it (kube-check.py update): twice, the first turning
# podman's plain file into the kubelet's links, the second a swap of ..data alone.
scene_dir=$(podman volume inspect --format '{{.Mountpoint}}' gjkd-scene) ||
  fail "no volume gjkd-scene"
obstacles() { ctl "$kz" --json scene | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["obstacles"]))'; }
before=$(obstacles)
for gen in 1 2; do
  new=$(check update "$scene_dir" "$gen") || fail "changing the ConfigMap volume"
  want=$(check revision "$new")
  got=""
  for _ in $(seq 40); do
    got=$(ctl "$kz" --json health 2>/dev/null | sed -n 's/.*"revision":[[:space:]]*\([0-9]*\).*/\1/p')
    [ "$got" = "$want" ] && break
    sleep 0.5
  done
  [ "$got" = "$want" ] || fail "change $gen of the ConfigMap: revision '$got', not $want, after 20 s"
  check metrics "$kh" "$want" "$gen" || fail "/metrics after change $gen"
  [ "$(obstacles)" = $((before - gen)) ] || fail "change $gen: not $((before - gen)) obstacles"
  [ "$(check http "$kh" /readyz)" = 200 ] || fail "/readyz after change $gen"
  step "6. ConfigMap change $gen picked up: revision $want, $((before - gen)) obstacles, still ready"
done

# The Indexed Job of job-sweep.yaml (podman 4.3 has no Job kind): its script, in the image, for
# every index, each in a container of its own that joins the pod's network namespace (so its
# GJKD_ENDPOINT is the pod's loopback instead of the Service), over a set of 5 trajectories.
# Every trajectory must be answered once, by the index whose share it is, on the new scene.
completions=$(/usr/bin/python3 - "$here/k8s/job-sweep.yaml" "$work/sweep.sh" <<'PY'
import sys, yaml
job = next(d for d in yaml.safe_load_all(open(sys.argv[1])) if d and d["kind"] == "Job")
c = job["spec"]["template"]["spec"]["containers"][0]
env = {e["name"]: e["value"] for e in c["env"]}
assert c["command"][:2] == ["/bin/sh", "-c"], c["command"][:2]
assert job["spec"]["completionMode"] == "Indexed"
assert int(env["JOB_COMPLETIONS"]) == job["spec"]["completions"], "JOB_COMPLETIONS != completions"
open(sys.argv[2], "w").write(c["command"][2])
print(job["spec"]["completions"])
PY
) || fail "docker/k8s/job-sweep.yaml"
mkdir -p "$work/sweep" "$work/results"
for t in 1 2 3 4 5; do cp "$root/examples/demo/trajectory.json" "$work/sweep/t$t.json"; done
chown 10001:10001 "$work/results"
for i in $(seq 0 $((completions - 1))); do
  timeout 120 podman run --rm --pod "$pod" --read-only --no-healthcheck --entrypoint /bin/sh \
    -e JOB_COMPLETION_INDEX="$i" -e JOB_COMPLETIONS="$completions" \
    -e GJKD_ENDPOINT=tcp://127.0.0.1:7471 -v "$work/sweep:/sweep:ro" \
    -v "$work/results:/results" "$tag" -c "$(cat "$work/sweep.sh")" >"$work/sweep-$i.log" 2>&1 ||
    { cat "$work/sweep-$i.log" >&2; fail "job-sweep.yaml index $i"; }
done
/usr/bin/python3 - "$work/results" "$completions" "$want" <<'PY' || fail "the sweep's results"
import json, os, sys
root, n, revision = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
got = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)
names = ["t%d.json" % t for t in range(1, 6)]
want = sorted(os.path.join(root, "index-%d" % (k % n), f) for k, f in enumerate(names))
assert got == want, "results %s, expected %s" % (got, want)
for f in got:
    r = json.load(open(f))
    assert len(r["waypoints"]) == 100 and r["revision"] == revision, (f, r["revision"])
PY
step "6. job-sweep.yaml's script: $completions indices answered 5 trajectories once each, on revision $want"

# The pod stops as Kubernetes stops it (SIGTERM, grace period), then kube down removes it.
timeout 60 podman pod stop -t 30 "$pod" >/dev/null 2>&1 || fail "podman pod stop $pod"
code=$(podman inspect --format '{{.State.ExitCode}}' "$ctr")
[ "$code" = 0 ] || fail "$ctr exited with $code after podman pod stop"
podman logs "$ctr" 2>&1 | grep drained >/dev/null || fail "$ctr logged no drain before exiting"
timeout 60 podman kube down "$work/kube.yaml" >/dev/null 2>&1 || fail "podman kube down"
kube_file=""
if podman pod exists "$pod"; then fail "$pod still exists after podman kube down"; fi
step "6. podman pod stop: exit code 0 after a drain; podman kube down removed the pod"
step "PASS"
