# shellcheck shell=bash
# Sourced by the container scripts: one podman configuration for every run on these machines.
#  - runc, not crun (crun fails here: "cgroups in hybrid mode not supported");
#  - ulimits within the host's hard limits (podman's defaults exceed them);
#  - one storage configuration per store from the start (never mix --root flags with
#    storage.conf, and never change a store's driver options after it was first used: the
#    storage.conf of an existing GJK_PODMAN_DIR is kept as it is).
# GJK_PODMAN_DIR holds the configuration and the image store (default: /var/tmp/gjkd-podman).
# Storage driver of a new store: the kernel's overlay when we are root and the store is not on
# an overlay file system itself (several times faster to build with), else fuse-overlayfs.
# GJK_PODMAN_FUSE=1 forces fuse-overlayfs for a new store.
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
if [ ! -s "$GJK_PODMAN_DIR/storage.conf" ]; then
  if [ "$(id -u)" = 0 ] && [ "${GJK_PODMAN_FUSE:-0}" != 1 ] &&
    grep -qw overlay /proc/filesystems &&
    [ "$(stat -f -c %T "$GJK_PODMAN_DIR/storage")" != overlayfs ]; then
    gjk_overlay_options=""
  else
    gjk_overlay_options='[storage.options.overlay]
mount_program = "/usr/bin/fuse-overlayfs"'
  fi
  cat > "$GJK_PODMAN_DIR/storage.conf.tmp" <<CONF
[storage]
driver = "overlay"
graphroot = "$GJK_PODMAN_DIR/storage"
runroot = "$GJK_PODMAN_DIR/run"
$gjk_overlay_options
CONF
  mv "$GJK_PODMAN_DIR/storage.conf.tmp" "$GJK_PODMAN_DIR/storage.conf"
  unset gjk_overlay_options
fi
export CONTAINERS_CONF="$GJK_PODMAN_DIR/containers.conf"
export CONTAINERS_STORAGE_CONF="$GJK_PODMAN_DIR/storage.conf"
