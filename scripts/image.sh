#!/bin/sh
# image.sh - build the Dockerfile's image with podman on a machine that
# reaches no container registry, only its Debian mirror.  The base the
# Dockerfile names, debian:bookworm-slim, is made here: a debootstrap minbase
# of bookworm from the machine's own mirror (as scripts/fresh-check.sh
# makes its chroot), tarred once into $IMAGE_BASE_DIR and imported into
# podman's store under that name when the store does not hold it yet.  It is
# not Debian's published image, but the same release, and its apt reaches
# the same mirror, which the Dockerfile's apt-get lines need.  Then
#
#   podman build --isolation=chroot --pull=never -t TAG .
#
# (chroot isolation: the RUN steps need no container runtime, only root;
# --pull=never: nothing is fetched from a registry) with --build-arg COMMIT
# from scripts/commit.sh, so the image's --version names this tree's commit.
#
#   scripts/image.sh [TAG]        as root, from the checkout (default tpccbench:VERSION)
#   scripts/image.sh base         only make and import the base
#
# IMAGE_BASE_DIR (default /var/tmp/tpccbench-image-base, outside the clone
# so that every clone shares it) holds the base's tarball and the logs of
# its making.  Prints the tag it built last; exit 0 when it did, 1 when a
# step failed (its log named), 2 on bad usage or what is missing.
set -u
cd "$(dirname "$0")/.." || exit 2
version=$(sed -n 's/^VERSION *:= *//p' Makefile)
what=${1:-tpccbench:$version}
case $what in -*)
    echo "image.sh: unknown option '$what' (give an image tag, or 'base')" >&2
    exit 2
    ;;
esac
cache=${IMAGE_BASE_DIR:-/var/tmp/tpccbench-image-base}
log=${IMAGE_LOG:-$cache/build.log}
base=debian:bookworm-slim
[ "$(id -u)" = 0 ] || {
    echo "image.sh: run as root (debootstrap and podman's chroot isolation need it)" >&2
    exit 2
}
for p in podman debootstrap flock; do
    command -v $p >/dev/null 2>&1 || {
        echo "image.sh: $p is missing: install it with 'sh scripts/deps.sh image'" >&2
        exit 2
    }
done
mkdir -p "$cache" || exit 1

# make_base: the minbase tree, its apt pointed at this machine's mirror, as
# $cache/rootfs.tar.  debootstrap writes its own sources.list naming the
# mirror it used; the machine's deb822 file replaces it when there is one,
# so bookworm-updates and the security suite come too.
make_base() {
    mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
    root=$cache/root
    rm -rf "$root"
    echo "image.sh: debootstrap --variant=minbase bookworm (once, into $cache)" >&2
    debootstrap --variant=minbase bookworm "$root" ${mirror:+"$mirror"} >"$cache/debootstrap.log" 2>&1 || {
        echo "image.sh: debootstrap failed, see $cache/debootstrap.log" >&2
        return 1
    }
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/" &&
            rm -f "$root/etc/apt/sources.list"
    fi
    # As Debian's slim image: no package lists or downloaded packages kept.
    rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
    tar --numeric-owner -C "$root" -cf "$cache/rootfs.tar.tmp" . &&
        mv "$cache/rootfs.tar.tmp" "$cache/rootfs.tar" &&
        rm -rf "$root"
}

# One caller at a time makes and imports the base (make image beside a
# running make test); the others wait, then find it there.
(
    flock 9
    podman image exists "$base" && exit 0
    [ -f "$cache/rootfs.tar" ] || make_base || exit 1
    echo "image.sh: podman import $cache/rootfs.tar as $base" >&2
    podman import --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
        --change 'CMD ["bash"]' "$cache/rootfs.tar" "$base" >"$cache/import.log" 2>&1 || {
        echo "image.sh: podman import failed, see $cache/import.log" >&2
        exit 1
    }
) 9>"$cache/lock" || exit 1
[ "$what" = base ] && exit 0

echo "image.sh: podman build -t $what (log: $log)" >&2
podman build --isolation=chroot --pull=never --build-arg COMMIT="$(sh scripts/commit.sh)" \
    -t "$what" -f Dockerfile . >"$log" 2>&1 || {
    tail -n 20 "$log" >&2
    echo "image.sh: podman build failed, see $log" >&2
    exit 1
}
echo "$what"
