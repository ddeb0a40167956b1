# Sourced by the container scripts: one podman configuration for every run on these machines.
#  - runc, not crun (crun fails here: "cgroups in hybrid mode not supported");
#  - ulimits within the host's hard limits (podman's defaults exceed them);
#  - one storage configuration from the start (never mix --root flags with storage.conf).
# GJK_PODMAN_DIR holds the configuration and the image store (default: /var/tmp/gjkd-podman).
GJK_PODMAN_DIR=${GJK_PODMAN_DIR:-/var/tmp/gjkd-podman}
mkdir -p "$GJK_PODMAN_DIR/storage" "$GJK_PODMAN_DIR/run"
cat > "$GJK_PODMAN_DIR/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
events_logger = "file"
cgroup_manager = "cgroupfs"
CONF
cat > "$GJK_PODMAN_DIR/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$GJK_PODMAN_DIR/storage"
runroot = "$GJK_PODMAN_DIR/run"
[storage.options.overlay]
mount_program = "/usr/bin/fuse-overlayfs"
CONF
export CONTAINERS_CONF="$GJK_PODMAN_DIR/containers.conf"
export CONTAINERS_STORAGE_CONF="$GJK_PODMAN_DIR/storage.conf"
