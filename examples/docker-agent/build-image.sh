#!/bin/sh
# Build the example's container image from a local root file system: no registry, no network.
#
# The image holds only a static busybox; the agent's Python comes from the host, mounted
# read-only at /usr by the agent file (docker-example.yaml). For an image with its own
# Python, see "External agents" in the README (debootstrap, then the same `podman import`).
#
#     sh examples/docker-agent/build-image.sh [IMAGE]     # needs podman (or docker) and busybox
set -eu
IMAGE=${1:-localhost/pastbench-agent-base:latest}
ENGINE=${ENGINE:-podman}
BUSYBOX=$(command -v busybox)
ROOT=$(mktemp -d)
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT/bin" "$ROOT/tmp" "$ROOT/usr" "$ROOT/etc" "$ROOT/agent" "$ROOT/pastbench" \
         "$ROOT/proc" "$ROOT/sys" "$ROOT/dev"
cp "$BUSYBOX" "$ROOT/bin/busybox"
ln -s busybox "$ROOT/bin/sh"
ln -s usr/lib "$ROOT/lib"      # merged /usr, as on the host whose /usr is mounted
ln -s usr/lib64 "$ROOT/lib64"
touch "$ROOT/pastbench/shim.py"  # mount point of the harness's shim (the root is read-only)
tar -C "$ROOT" -c . | "$ENGINE" import --change 'CMD ["/bin/sh"]' - "$IMAGE" >/dev/null
echo "$IMAGE"
