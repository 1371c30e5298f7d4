#!/usr/bin/env bash
# Fails when the generated contracts are stale or when the protos break compatibility with the
# previous commit without saying so.
#
# 1. Regenerates into a scratch folder and compares with libs/contracts/src/gen (no side effects).
# 2. `buf breaking` against HEAD~1. A break fails unless HEAD's commit message carries a
#    `Contract-Break: <reason>` trailer; then the break is printed and accepted. (After the first
#    release a break means a new v2 package instead, see docs/development.md, "Contracts".)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

npx buf generate protos --template protos/buf.gen.yaml -o "$scratch"
npx buf build protos --as-file-descriptor-set -o "$scratch/libs/contracts/src/gen/descriptor.binpb"
if ! diff -r "$scratch/libs/contracts/src/gen" libs/contracts/src/gen > "$scratch/diff.txt"; then
  head -n 40 "$scratch/diff.txt"
  echo "contracts: libs/contracts/src/gen is stale. Run \`npm run gen\` and commit the result." >&2
  exit 1
fi
echo "contracts: generated code is up to date"

if ! git rev-parse --verify --quiet HEAD~1 > /dev/null; then
  echo "contracts: no previous commit to compare with; breaking check skipped"
  exit 0
fi
if ! git cat-file -e HEAD~1:protos/buf.yaml 2> /dev/null; then
  echo "contracts: the previous commit has no protos; breaking check skipped"
  exit 0
fi
if npx buf breaking protos --against ".git#ref=HEAD~1,subdir=protos" > "$scratch/breaking.txt" 2>&1; then
  echo "contracts: no breaking change against HEAD~1"
  exit 0
fi
cat "$scratch/breaking.txt"
trailer=$(git log -1 --format=%B HEAD | git interpret-trailers --parse | grep -i '^Contract-Break:' || true)
if [ -n "$trailer" ]; then
  echo "contracts: breaking change accepted by the commit trailer: $trailer"
  exit 0
fi
echo "contracts: breaking change against HEAD~1. Keep the contract compatible, or add a" >&2
echo "\`Contract-Break: <reason>\` trailer to the commit message (before the first release only)." >&2
exit 1
