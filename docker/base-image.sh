#!/usr/bin/env bash
# Builds the base image docker.io/library/debian:bookworm-slim locally with debootstrap, so the
# Dockerfile stays unchanged on machines with no registry. The mirror is read at run time from
# this machine's own apt configuration (deb822 debian.sources), never written into the repo.
# Skips the work when the image is already in the store (a cache, never a requirement).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=podman-env.sh
. "$here/podman-env.sh"
image=docker.io/library/debian:bookworm-slim
if podman image exists "$image" && [ "${GJK_REBUILD_BASE:-0}" != 1 ]; then
  echo "base-image: $image present"
  exit 0
fi
sources=/etc/apt/sources.list.d/debian.sources
[ -r "$sources" ] || { echo "base-image: $sources not found: cannot find the Debian mirror" >&2; exit 1; }
# First URIs line = the main archive; the one whose suite ends in -security = the security archive.
mirror=$(awk '/^URIs:/ {print $2; exit}' "$sources")
security=$(awk '/^URIs:/ {u=$2} /^Suites:/ && /-security/ {print u; exit}' "$sources")
[ -n "$mirror" ] || { echo "base-image: no URIs line in $sources" >&2; exit 1; }
[ -n "$security" ] || security="$mirror-security"
rootfs=$(mktemp -d /var/tmp/gjkd-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
echo "base-image: debootstrap bookworm from the machine's configured mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
cat > "$rootfs/etc/apt/sources.list" <<SRC
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SRC
# Slim, as the official debian:*-slim images: no documentation, manual pages or translations
# (copyright files stay), now and for every package installed later; no apt package caches.
cat > "$rootfs/etc/dpkg/dpkg.cfg.d/gjkd-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
CFG
cat > "$rootfs/etc/apt/apt.conf.d/gjkd-slim" <<'CFG'
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb || true"; };
Acquire::Languages "none";
CFG
find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs"/usr/share/man/* "$rootfs"/usr/share/groff/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/lintian/* "$rootfs"/usr/share/linda/* "$rootfs"/usr/share/locale/*
chroot "$rootfs" apt-get clean
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin
tar -C "$rootfs" -c . | podman import - "$image" >/dev/null
echo "base-image: imported $image"
