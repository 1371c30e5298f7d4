#!/usr/bin/env bash
# `npm test`: every check CI runs. All steps run even when one fails, so one run shows every
# problem; the exit status is non-zero when any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export NX_NO_CLOUD=true NX_DAEMON=false

# Everything below runs on the pinned Node (scripts/node-runtime.mjs): stop at once otherwise.
node scripts/node-runtime.mjs 'npm test' || exit 1

failed=()
step() {
  local name=$1
  shift
  echo
  echo "=== $name"
  local started=$SECONDS
  if "$@"; then
    echo "=== $name: ok ($((SECONDS - started)) s)"
  else
    echo "=== $name: FAILED ($((SECONDS - started)) s)"
    failed+=("$name")
  fi
}

step "typecheck" npx tsc -p tsconfig.json
step "lint (eslint, module boundaries)" npx eslint --max-warnings=0 .
step "format (prettier)" npx prettier --check --log-level warn .
step "buf lint" npx buf lint protos
step "contracts (generated code, breaking changes)" bash scripts/check-contracts.sh
step "tests (vitest)" npx vitest run

echo
if [ ${#failed[@]} -gt 0 ]; then
  printf 'npm test: FAILED: %s\n' "${failed[*]}"
  exit 1
fi
echo "npm test: all checks passed"
