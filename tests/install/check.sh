#!/usr/bin/env bash
# The install tests (tests/install.cmake): what `cmake --install` and `cpack -G DEB` make of
# this build, checked from the outside. One step per ctest test:
#   tree        installs BUILD into a fresh WORK/prefix, then checks the file list, the sonames
#               and their links, that each shared library exports exactly its API, that nothing
#               installed has a RUNPATH, and the man pages (groff-clean, the same options and
#               commands as the programs' --help, the programs' version)
#   consumers   builds tests/install/consumer.c against WORK/prefix four ways and runs each:
#               pkg-config with the shared libraries and with the static archives,
#               find_package(gjk) with gjk::core + gjk::client and with the _static targets
#   unit        systemd-analyze verify and security --offline of the installed unit (exit 77,
#               a ctest skip, without systemd-analyze)
#   daemon      the installed gjkd started the way the unit starts it (its ExecStart and
#               Environment=): serves health with its state directory, exits 0 on SIGTERM
#   deb         cpack -G DEB into WORK/deb; each package's files (dpkg-deb -c), fields
#               (dpkg-deb -f) and control files
# The steps after tree use WORK/prefix (ctest fixture install_tree).
# Usage: check.sh STEP SOURCE_DIR BUILD_DIR WORK_DIR CC CMAKE CPACK; the layout comes from
# the environment: GJK_VERSION GJK_SOVERSION GJK_BINDIR GJK_LIBDIR GJK_INCLUDEDIR GJK_DATADIR
# GJK_MANDIR (CMake's GNUInstallDirs values, relative to the prefix).
set -euo pipefail
step=$1 src=$2 build=$3 work=$4 cc=$5 cmake=$6 cpack=$7
version=$GJK_VERSION so=$GJK_SOVERSION
bindir=$GJK_BINDIR libdir=$GJK_LIBDIR includedir=$GJK_INCLUDEDIR datadir=$GJK_DATADIR
mandir=$GJK_MANDIR
prefix=$work/prefix

fail() {
  echo "install $step: FAILED: $*" >&2
  exit 1
}
note() { echo "install $step: $*"; }
# The lines of $1 as one line of words, for messages.
words() { tr '\n' ' ' <<<"$1" | sed 's/ $//'; }

# Sorted unique lines of stdin into file $1.
set_of() { LC_ALL=C sort -u >"$1"; }
# Lines of set $1 missing from set $2, one per line (empty when $1 is a subset of $2).
missing() { LC_ALL=C comm -23 "$1" "$2"; }

# Dynamic section entries of an ELF file: "NEEDED libx.so.1", "SONAME ...", "RUNPATH ...".
dynamic() { readelf -d "$1" | sed -n 's/^ *0x[0-9a-f]* (\([A-Z]*\)) *[^[]*\[\(.*\)\]$/\1 \2/p'; }

# ------------------------------------------------------------------ tree
# Every file and link under the prefix, the target build type's export file generalized.
installed_files() {
  (cd "$prefix" && find . -type f -o -type l) | sed 's|^\./||; s|gjkTargets-[a-z]*\.cmake$|gjkTargets-CONFIG.cmake|'
}

expected_files() {
  echo "$bindir/gjkd"
  echo "$bindir/gjkctl"
  for h in "$src"/core/include/gjk/*.h; do echo "$includedir/gjk/$(basename "$h")"; done
  echo "$includedir/gjkd_client.h"
  echo "$includedir/gjkd/v1/gjkd.pb-c.h"
  for lib in gjk gjkd-client; do
    echo "$libdir/lib$lib.a"
    echo "$libdir/lib$lib.so"
    echo "$libdir/lib$lib.so.$so"
    echo "$libdir/lib$lib.so.$version"
  done
  echo "$libdir/pkgconfig/gjk.pc"
  echo "$libdir/pkgconfig/gjkd-client.pc"
  for f in gjkConfig gjkConfigVersion gjkTargets gjkTargets-CONFIG; do
    echo "$libdir/cmake/gjk/$f.cmake"
  done
  echo "lib/systemd/system/gjkd.service"
  echo "$datadir/gjkd/proto/gjkd/v1/gjkd.proto"
  echo "$mandir/man1/gjkctl.1"
  echo "$mandir/man8/gjkd.8"
}

# Names a header declares with its export macro $2 (the identifier before the first '(' after
# the macro), preprocessor lines left out.
api_of() {
  grep -v '^#' "$1" | grep -ozP "(?s)\\b$2\\s+[^;(]*?\\b\\K[A-Za-z_][A-Za-z0-9_]*(?=\\s*\\()" |
    tr '\0' '\n'
}

check_library() { # name, expected exported names (file)
  local name=$1 api=$2 real=$prefix/$libdir/lib$1.so.$version
  [ "$(readlink "$prefix/$libdir/lib$name.so")" = "lib$name.so.$so" ] ||
    fail "lib$name.so does not link to lib$name.so.$so"
  [ "$(readlink "$prefix/$libdir/lib$name.so.$so")" = "lib$name.so.$version" ] ||
    fail "lib$name.so.$so does not link to lib$name.so.$version"
  dynamic "$real" | grep -qx "SONAME lib$name.so.$so" || fail "lib$name.so.$version: soname is not lib$name.so.$so"
  nm -D --defined-only "$real" | awk '{print $NF}' | set_of "$work/exported-$name"
  local extra absent
  extra=$(missing "$work/exported-$name" "$api")
  absent=$(missing "$api" "$work/exported-$name")
  [ -z "$extra" ] || fail "lib$name.so exports names that are not its API:" "$(words "$extra")"
  [ -z "$absent" ] || fail "lib$name.so does not export API names:" "$(words "$absent")"
  note "lib$name.so.$version (soname lib$name.so.$so) exports its $(wc -l <"$api") API names, nothing else"
}

# --opt tokens of a text (man pages write them \-\-opt).
options_in() { sed 's/\\-/-/g' "$1" | grep -oE -- '--[a-z][a-z0-9-]*[a-z0-9]' | set_of "$2"; }

check_man_page() { # page, program, options of that program (file), every option (file)
  local page=$1 program=$2 own=$3 all=$4 out
  out=$(groff -man -ww -z "$page" 2>&1) || fail "groff failed on $page: $out"
  [ -z "$out" ] || fail "groff warns about $page: $out"
  grep -q "^\.TH .*\"gjkd $version\"" "$page" || fail "$page: .TH does not say gjkd $version"
  options_in "$page" "$work/man-$program"
  local absent invented
  absent=$(missing "$own" "$work/man-$program")
  invented=$(missing "$work/man-$program" "$all")
  [ -z "$absent" ] || fail "$page does not document" "$(words "$absent")"
  [ -z "$invented" ] || fail "$page names options no program has:" "$(words "$invented")"
}

step_tree() {
  rm -rf "$prefix"
  mkdir -p "$work"
  "$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
    { cat "$work/install.log"; fail "cmake --install $build --prefix $prefix"; }
  installed_files | set_of "$work/installed"
  expected_files | set_of "$work/expected"
  local absent extra
  absent=$(missing "$work/expected" "$work/installed")
  extra=$(missing "$work/installed" "$work/expected")
  [ -z "$absent" ] || fail "not installed:" "$(words "$absent")"
  [ -z "$extra" ] || fail "installed but not expected:" "$(words "$extra")"
  note "$(wc -l <"$work/installed") files under $prefix, as expected"

  # Every function the public headers declare carries its export macro (in this project's
  # style a declaration starts at column 0 with its return type or the macro).
  local undecorated
  undecorated=$(grep -HnE '^[a-z_][a-z0-9_ ]*[ *](gjk|gjkd)_[a-z0-9_]+\(' \
    "$prefix/$includedir"/gjk/*.h "$prefix/$includedir/gjkd_client.h" |
    grep -vE ':[0-9]+:(static inline|GJK_API|GJKD_CLIENT_API|typedef) ') || true
  [ -z "$undecorated" ] || fail "declared without GJK_API / GJKD_CLIENT_API: $(words "$undecorated")"
  cat "$prefix/$includedir"/gjk/*.h >"$work/core-headers.h"
  api_of "$work/core-headers.h" GJK_API | set_of "$work/api-gjk"
  { api_of "$prefix/$includedir/gjkd_client.h" GJKD_CLIENT_API
    grep -oE '\bgjkd__v1__[a-z0-9_]+\b' "$prefix/$includedir/gjkd/v1/gjkd.pb-c.h"
  } | set_of "$work/api-gjkd-client"
  [ -s "$work/api-gjk" ] || fail "no GJK_API names in the core headers"
  [ -s "$work/api-gjkd-client" ] || fail "no API names in the client headers"
  check_library gjk "$work/api-gjk"
  check_library gjkd-client "$work/api-gjkd-client"

  local f
  for f in "$prefix/$bindir"/* "$prefix/$libdir"/*.so.*.*; do
    if dynamic "$f" | grep -qE '^(RPATH|RUNPATH) '; then
      fail "$f has a run path: $(dynamic "$f" | grep -E '^(RPATH|RUNPATH) ')"
    fi
  done
  note "no installed program or library has a RUNPATH"

  local gjkd=$prefix/$bindir/gjkd gjkctl=$prefix/$bindir/gjkctl
  [ "$("$gjkd" --version)" = "gjkd $version" ] || fail "gjkd --version is not gjkd $version"
  "$gjkd" --help | grep -oE '^  --[a-z][a-z0-9-]*' | sed 's/^  //' | set_of "$work/options-gjkd"
  "$gjkctl" --help >"$work/gjkctl-help.txt"
  options_in "$work/gjkctl-help.txt" "$work/options-gjkctl"
  [ -s "$work/options-gjkd" ] || fail "no options in gjkd --help"
  [ -s "$work/options-gjkctl" ] || fail "no options in gjkctl --help"
  cat "$work/options-gjkd" "$work/options-gjkctl" | set_of "$work/options-all"
  check_man_page "$prefix/$mandir/man8/gjkd.8" gjkd "$work/options-gjkd" "$work/options-all"
  check_man_page "$prefix/$mandir/man1/gjkctl.1" gjkctl "$work/options-gjkctl" "$work/options-all"
  local command commands
  commands=$(sed -n '/^commands:/,/^global options:/s/^  \([a-z][a-z]*\) .*/\1/p' "$work/gjkctl-help.txt")
  [ -n "$commands" ] || fail "no commands in gjkctl --help"
  for command in $commands; do
    grep -qE "^(\\.BI? |\\\\fB)$command\\b" "$prefix/$mandir/man1/gjkctl.1" ||
      fail "gjkctl.1 does not document the command $command"
  done
  note "man pages: groff-clean, version $version, every option of gjkd --help and gjkctl --help" \
    "and every gjkctl command ($(words "$commands")), no other option"
}

# ------------------------------------------------------------------ consumers
run_consumer() { # program, "shared" or "static"
  local program=$1 kind=$2 out
  out=$("$program" 2>&1) || fail "$program: $out"
  dynamic "$program" | grep '^NEEDED ' | sed 's/^NEEDED //' | set_of "$program.needed"
  for lib in gjk gjkd-client; do
    if [ "$kind" = shared ]; then
      grep -qx "lib$lib.so.$so" "$program.needed" || fail "$program does not need lib$lib.so.$so"
    elif grep -q "^lib$lib\\.so" "$program.needed"; then
      fail "$program, linked with the static archives, needs lib$lib.so"
    fi
  done
  note "$(basename "$program") ($kind): $out"
}

step_consumers() {
  [ -d "$prefix" ] || fail "no $prefix: the install_tree test makes it"
  local out=$work/consumers consumer=$src/tests/install/consumer.c
  rm -rf "$out"
  mkdir -p "$out"
  local warnings=(-std=c11 -Wall -Wextra -Wpedantic -Werror)

  export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
  [ "$(pkg-config --variable=prefix gjk)" = "$prefix" ] || fail "pkg-config does not find gjk.pc in $prefix"
  [ "$(pkg-config --modversion gjkd-client)" = "$version" ] || fail "gjkd-client.pc is not version $version"
  local cflags libs
  read -ra cflags <<<"$(pkg-config --cflags gjk gjkd-client)"
  read -ra libs <<<"$(pkg-config --libs gjk gjkd-client)"
  "$cc" "${warnings[@]}" -o "$out/pkg-config-shared" "$consumer" "${cflags[@]}" "${libs[@]}" \
    -Wl,-rpath,"$prefix/$libdir" || fail "$cc with pkg-config --cflags --libs gjk gjkd-client"
  run_consumer "$out/pkg-config-shared" shared

  # Our static archives with their direct dependencies (Libs.private, Requires.private):
  # pkgconf's --static over the request, our two packages and their dependencies (depth 3),
  # with -lgjk and -lgjkd-client taken as the archives. (A fully static -static link would
  # need the archives of every system library down the tree, which Debian does not ship.)
  command -v pkgconf >/dev/null || fail "pkgconf not installed"
  read -ra libs <<<"$(pkgconf --static --maximum-traverse-depth=3 --libs gjk gjkd-client)"
  local i
  for i in "${!libs[@]}"; do
    case ${libs[$i]} in
      -lgjk) libs[i]=-l:libgjk.a ;;
      -lgjkd-client) libs[i]=-l:libgjkd-client.a ;;
    esac
  done
  "$cc" "${warnings[@]}" -o "$out/pkg-config-static" "$consumer" "${cflags[@]}" "${libs[@]}" ||
    fail "$cc with the static archives and pkgconf --static --libs gjk gjkd-client"
  run_consumer "$out/pkg-config-static" static

  # find_package(gjk) from CMAKE_PREFIX_PATH, in a CMake project of its own.
  "$cmake" -S "$src/tests/install" -B "$out/cmake" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DGJK_VERSION="$version" \
    >"$out/cmake.log" 2>&1 || { cat "$out/cmake.log"; fail "configuring the find_package consumer"; }
  grep -qx "gjk_DIR:PATH=$prefix/$libdir/cmake/gjk" "$out/cmake/CMakeCache.txt" ||
    fail "find_package(gjk) did not take $prefix/$libdir/cmake/gjk"
  "$cmake" --build "$out/cmake" >>"$out/cmake.log" 2>&1 ||
    { cat "$out/cmake.log"; fail "building the find_package consumer"; }
  run_consumer "$out/cmake/consumer_shared" shared
  run_consumer "$out/cmake/consumer_static" static

  # The version file: the next major version is not compatible.
  if "$cmake" -S "$src/tests/install" -B "$out/cmake-next" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" -DGJK_VERSION="$((${version%%.*} + 1)).0" >"$out/cmake-next.log" 2>&1; then
    fail "find_package(gjk $((${version%%.*} + 1)).0) accepted version $version"
  fi
  note "find_package(gjk $((${version%%.*} + 1)).0) refuses $version"
}

# ------------------------------------------------------------------ unit, daemon
unit_file() {
  local unit=$prefix/lib/systemd/system/gjkd.service
  [ -f "$unit" ] || fail "no $unit: the install_tree test makes it"
  grep -qx "ExecStart=$prefix/$bindir/gjkd" "$unit" || fail "$unit: ExecStart is not $prefix/$bindir/gjkd"
  echo "$unit"
}

step_unit() {
  local unit
  unit=$(unit_file)
  command -v systemd-analyze >/dev/null || { echo "install unit: SKIP: systemd-analyze not installed"; exit 77; }
  # verify: the syntax, that ExecStart's program exists and that Documentation= man pages
  # resolve (MANPATH: the installed ones). Any message is a failure.
  local out
  out=$(MANPATH=$prefix/$mandir systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify: $out"
  # security: the overall exposure (0.0 best, 10.0 worst) must stay at 2.0 or below.
  out=$(systemd-analyze security --offline=yes --threshold=20 "$unit" 2>&1) ||
    fail "systemd-analyze security: exposure above 2.0: $(echo "$out" | tail -n 1)"
  note "systemd-analyze verify: clean; $(echo "$out" | tail -n 1 | sed 's/^→ *//')"
}

step_daemon() {
  local unit
  unit=$(unit_file)
  local env=(PATH=/usr/bin:/bin) line state=$work/daemon-state endpoint=
  rm -rf "$state"
  mkdir -p "$state"
  # The unit's Environment= lines, as systemd passes them (%S: the state directory root); the
  # endpoint keeps its loopback address but takes a free port (ZeroMQ's wildcard port).
  while IFS= read -r line; do
    case $line in
      Environment=*)
        line=${line#Environment=}
        line=${line//%S/$state}
        if [[ $line == GJKD_ENDPOINT=* ]]; then
          [[ $line =~ ^GJKD_ENDPOINT=tcp://127\.0\.0\.1:[0-9]+$ ]] || fail "$unit: $line is not a loopback endpoint"
          line='GJKD_ENDPOINT=tcp://127.0.0.1:*'
        fi
        env+=("$line")
        ;;
    esac
  done <"$unit"
  printf '%s\n' "${env[@]}" | grep -q '^GJKD_STATE_DIR=' || fail "$unit sets no GJKD_STATE_DIR"
  # The HTTP endpoint (metrics, probes) on a free loopback port too: the default one may be
  # taken by another daemon on this machine.
  env+=('GJKD_HTTP=127.0.0.1:0')
  local log=$work/daemon.log pid
  : >"$log"
  env -i "${env[@]}" "$prefix/$bindir/gjkd" </dev/null >>"$log" 2>&1 &
  pid=$!
  # However this script ends (a failed check, ctest's timeout), the daemon goes with it.
  daemon_pid=$pid
  trap 'kill -KILL "$daemon_pid" 2>/dev/null || true' EXIT
  trap 'exit 1' INT TERM
  local _
  for _ in $(seq 100); do
    endpoint=$(sed -n 's/.* listening .*endpoint=\(tcp:[^ ]*\).*/\1/p' "$log")
    if [ -n "$endpoint" ] || ! kill -0 "$pid" 2>/dev/null; then break; fi
    sleep 0.1
  done
  [ -n "$endpoint" ] || { cat "$log" >&2; fail "gjkd did not start listening"; }
  local health
  health=$("$prefix/$bindir/gjkctl" --endpoint "$endpoint" --timeout 5 --retries 2 --json health) ||
    { cat "$log" >&2; fail "gjkctl health"; }
  echo "$health" | grep -qE '"state":[[:space:]]*"serving"' || fail "health: $health"
  echo "$health" | grep -qE '"persistent":[[:space:]]*true' || fail "health: not persistent: $health"
  [ -f "$state/gjkd/gjkd.lock" ] || fail "no $state/gjkd/gjkd.lock"
  kill -TERM "$pid"
  for _ in $(seq 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && fail "gjkd still running 30 s after SIGTERM"
  local rc=0
  wait "$pid" || rc=$?
  trap - EXIT INT TERM
  [ "$rc" -eq 0 ] || { cat "$log" >&2; fail "gjkd exited with status $rc after SIGTERM"; }
  note "gjkd with the unit's environment served health on $endpoint with state in" \
    "$state/gjkd and exited 0 on SIGTERM"
}

# ------------------------------------------------------------------ deb
deb_files() { # package file: its files and links ("path -> target"), directories left out
  dpkg-deb -c "$1" | awk '$1 !~ /^d/ { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' | sed 's|^\./||'
}

step_deb() {
  local out=$work/deb arch
  arch=$(dpkg --print-architecture)
  rm -rf "$out"
  "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$out" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack -G DEB"; }
  local deb_runtime=$out/gjkd_${version}_$arch.deb deb_libs=$out/libgjkd${so}_${version}_$arch.deb
  local deb_dev=$out/libgjkd-dev_${version}_$arch.deb p
  for p in "$deb_runtime" "$deb_libs" "$deb_dev"; do [ -f "$p" ] || fail "cpack made no $(basename "$p")"; done
  [ "$(find "$out" -maxdepth 1 -name '*.deb' | wc -l)" -eq 3 ] || fail "cpack made more than 3 packages"

  # Files: the install components, under /usr (CPack's prefix).
  {
    echo "usr/bin/gjkd"
    echo "usr/bin/gjkctl"
    echo "usr/lib/systemd/system/gjkd.service"
    echo "usr/$mandir/man1/gjkctl.1"
    echo "usr/$mandir/man8/gjkd.8"
  } | set_of "$work/deb-expected-runtime"
  for lib in gjk gjkd-client; do
    echo "usr/$libdir/lib$lib.so.$so -> lib$lib.so.$version"
    echo "usr/$libdir/lib$lib.so.$version"
  done | set_of "$work/deb-expected-libs"
  expected_files | grep -vE "^($bindir/|lib/systemd/|$mandir/)" | grep -v '\.so\.' |
    sed "s|^|usr/|; s|\\(lib[a-z-]*\\.so\\)\$|\\1 -> \\1.$so|; s|gjkTargets-CONFIG|gjkTargets-*|" |
    set_of "$work/deb-expected-dev"
  local kind absent extra
  declare -A package=([runtime]=$deb_runtime [libs]=$deb_libs [dev]=$deb_dev)
  for kind in runtime libs dev; do
    deb_files "${package[$kind]}" | sed 's|gjkTargets-[a-z]*\.cmake$|gjkTargets-*.cmake|' |
      set_of "$work/deb-files-$kind"
    absent=$(missing "$work/deb-expected-$kind" "$work/deb-files-$kind")
    extra=$(missing "$work/deb-files-$kind" "$work/deb-expected-$kind")
    [ -z "$absent" ] || fail "$(basename "${package[$kind]}") lacks: $(words "$absent")"
    [ -z "$extra" ] || fail "$(basename "${package[$kind]}") has unexpected files: $(words "$extra")"
  done

  # Fields.
  [ "$(dpkg-deb -f "$deb_runtime" Package)" = gjkd ] || fail "runtime package name"
  [ "$(dpkg-deb -f "$deb_libs" Package)" = "libgjkd$so" ] || fail "library package name"
  [ "$(dpkg-deb -f "$deb_dev" Package)" = libgjkd-dev ] || fail "development package name"
  for p in "$deb_runtime" "$deb_libs" "$deb_dev"; do
    [ "$(dpkg-deb -f "$p" Version)" = "$version" ] || fail "$(basename "$p"): Version is not $version"
    [ "$(dpkg-deb -f "$p" Architecture)" = "$arch" ] || fail "$(basename "$p"): Architecture"
  done
  # Depends of the packages with ELF files: the package of every library their programs and
  # libraries need (what dpkg-shlibdeps found, checked again with ldconfig and dpkg -S), and
  # nothing of ours (gjkd and gjkctl link libgjk and libgjkd-client statically).
  local x
  x=$(mktemp -d "$work/deb-x.XXXXXX")
  for kind in runtime libs; do
    local name depends lib path owner
    name=$(basename "${package[$kind]}")
    dpkg-deb -x "${package[$kind]}" "$x/$kind"
    depends=$(dpkg-deb -f "${package[$kind]}" Depends)
    echo "$depends" | tr ',|' '\n' | sed 's/(.*//; s/ //g' | set_of "$x/$kind.depends"
    local elf checked=0
    while IFS= read -r elf; do
      for lib in $(dynamic "$elf" | sed -n 's/^NEEDED //p'); do
        path=$(ldd "$elf" | awk -v l="$lib" '$1 == l && $2 == "=>" { print $3; exit }')
        [ -n "$path" ] || fail "$lib (needed by $name: $(basename "$elf")) not found"
        owner=$( (dpkg -S "$path" 2>/dev/null || dpkg -S "$(readlink -f "$path")") | head -n 1 | sed 's/[:,].*//')
        [ -n "$owner" ] || fail "no package owns $path ($lib, needed by $name)"
        grep -qx "$owner" "$x/$kind.depends" || fail "$name: Depends ($depends) lacks $owner (for $lib)"
        checked=$((checked + 1))
      done
    done < <(find "$x/$kind" -type f \( -perm -u+x -o -name '*.so.*' \))
    [ "$checked" -gt 0 ] || fail "$name: no ELF file with dependencies"
    ! grep -q '^libgjkd' "$x/$kind.depends" || fail "$name depends on our own packages: $depends"
  done
  local devdeps
  devdeps=$(dpkg-deb -f "$deb_dev" Depends)
  for p in "libgjkd$so (= $version)" libqhull-dev libprotobuf-c-dev libzmq3-dev; do
    [[ ", $devdeps," == *", $p,"* ]] || fail "libgjkd-dev: Depends ($devdeps) lacks $p"
  done

  # Control files: shlibs of the libraries, the ldconfig calls, the unit's scripts.
  dpkg-deb -e "$deb_libs" "$x/libs-control"
  grep -qx "libgjk $so libgjkd$so (>= $version)" "$x/libs-control/shlibs" || fail "shlibs: libgjk"
  grep -qx "libgjkd-client $so libgjkd$so (>= $version)" "$x/libs-control/shlibs" || fail "shlibs: libgjkd-client"
  grep -q ldconfig "$x/libs-control/postinst" || fail "libgjkd$so: postinst does not run ldconfig"
  dpkg-deb -e "$deb_runtime" "$x/runtime-control"
  for p in postinst prerm postrm; do
    [ -x "$x/runtime-control/$p" ] || fail "gjkd: no executable $p"
    sh -n "$x/runtime-control/$p" || fail "gjkd: $p is not valid sh"
  done

  # Prefix-bearing files say /usr.
  grep -qx "ExecStart=/usr/$bindir/gjkd" "$x/runtime/usr/lib/systemd/system/gjkd.service" ||
    fail "the packaged unit's ExecStart is not /usr/$bindir/gjkd"
  dpkg-deb -x "$deb_dev" "$x/dev"
  for p in gjk gjkd-client; do
    grep -qx "prefix=/usr" "$x/dev/usr/$libdir/pkgconfig/$p.pc" || fail "the packaged $p.pc: prefix is not /usr"
  done
  rm -rf "$x"
  note "$(basename "$deb_runtime"), $(basename "$deb_libs"), $(basename "$deb_dev"): files, fields," \
    "dependencies and control files as expected"
}

case $step in
  tree) step_tree ;;
  consumers) step_consumers ;;
  unit) step_unit ;;
  daemon) step_daemon ;;
  deb) step_deb ;;
  *) fail "unknown step (tree, consumers, unit, daemon, deb)" ;;
esac
