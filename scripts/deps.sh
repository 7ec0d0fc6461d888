#!/bin/sh
# Install what tpccbench needs to build, test or demo, from Debian's packages.
# As root: apt-get installs what is missing.  Otherwise: print the exact
# apt-get line and exit 2.
#   scripts/deps.sh build|test|demo|fuzz|image
set -eu
what=${1:-build}
# libasan8, libubsan1, liblsan0, libtsan2: the runtimes of make test-asan and test-tsan.
# iproute2 (test): ip netns and veth pairs, for tests/t/0097-parts-netns.sh.
# libcurl4-openssl-dev: scraping the database host's node_exporter (run.db_host_metrics);
# prometheus-node-exporter (test): a real one for tests/t/0044-db-host-metrics.sh
# (the test starts its own on a loopback port; never the system service); openssl
# (test): its self-signed certificate for the HTTPS case.
# libsqliteodbc, sqlite3 (test): SQLite through ODBC and its shell, for tests/t/0074-odbc-sqlite.sh.
# libfuse3-dev, fuse3 (test): tpccbench-lazyfs, the power-loss file system of
# tests/t/0047-lazyfs.sh (built only where libfuse3-dev is), and fusermount3.
# podman, debootstrap (image): the Dockerfile built from a base made here
# (scripts/image.sh), for make image and tests/t/0099-image.sh, which skips,
# saying so, where they are missing: a new user's `make test` is not made to
# build container images (minutes of apt inside the build); CI's main phase
# installs them (make deps-image) and runs it.
pkgs="gcc make libasan8 libubsan1 liblsan0 libtsan2 libpq-dev libyaml-dev libjansson-dev unixodbc-dev libmicrohttpd-dev libcurl4-openssl-dev"
case "$what" in
    build) ;;
    test) pkgs="$pkgs libcmocka-dev perl postgresql postgresql-client procps unixodbc odbc-postgresql odbc-mariadb libsqliteodbc sqlite3 mariadb-server mariadb-client chromium mandoc groff-base pgbouncer prometheus prometheus-node-exporter openssl iproute2 libfuse3-dev fuse3 pkg-config" ;;
    demo) pkgs="$pkgs postgresql postgresql-client" ;;
    fuzz) pkgs="$pkgs clang libclang-rt-dev" ;; # libclang-rt-dev: the libFuzzer runtime
    image) pkgs="podman debootstrap" ;;          # the build runs inside the image
    *) echo "deps.sh: unknown target '$what' (build, test, demo, fuzz or image)" >&2; exit 2 ;;
esac
missing=""
for p in $pkgs; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    case "$status" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
    esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "tpccbench: missing packages:$missing" >&2
    echo "install them as root with:" >&2
    echo "  apt-get install -y$missing" >&2
    exit 2
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2
# shellcheck disable=SC2086
apt-get install -y -qq $missing >&2
