#!/usr/bin/env bash
# `npm test`: every check CI runs. All steps run even when one fails, so one run shows every
# problem; the exit status is non-zero when any step failed.
#
# The repository-wide checks come first and run once over the whole tree: the typecheck and the
# type-aware lint build one TypeScript program of every project, prettier, buf and the contract
# gate read files no project owns. The test suites run per project through Nx (each project's
# `test` target: vitest on its folder with the root vitest.config.ts), cached: a suite whose
# inputs (its project's files, the production files of what it imports and of the services it
# starts, the vitest setup) have not changed since it last passed is replayed, not re-run.
# CI (CI=true, a fresh clone) skips the cache and runs every suite.
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

# Two projects at a time, one test file each (VITEST_MAX_WORKERS): as many files at once as a
# single vitest run with two workers, one per core. More would run several integration suites,
# each with its own database and often a platform of service processes, on two cores, and their
# timeouts would measure the machine's load.
project_tests() {
  local log
  log=$(mktemp)
  local cache=()
  if [ -n "${CI:-}" ]; then cache=(--skip-nx-cache); fi
  VITEST_MAX_WORKERS=1 npx nx run-many -t test --parallel=2 --output-style=static "${cache[@]}" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  # Each project's vitest ends with tools/pass-fail-reporter.ts' line (replayed from the cache
  # too); their sum is the whole suite's count.
  local projects
  projects=$(npx nx show projects --with-target test | wc -l)
  grep -aE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$log" |
    awk -v projects="$projects" '
      { passed += $1; failed += $3; skipped += $5; reported += 1; if ($8 == "unhandled") errors += $7 }
      END {
        printf "\nprojects: %d of %d reported\n", reported, projects
        printf "tests: %d passed, %d failed, %d skipped%s\n", passed, failed, skipped, errors ? ", " errors " unhandled errors" : ""
        if (reported != projects) exit 1
      }' || status=1
  # Each failed test by name (tools/pass-fail-reporter.ts), here at the end where a long log is read first.
  grep -aE '^failed: ' "$log" | sort -u | head -50
  rm -f "$log"
  return "$status"
}

step "typecheck" npx tsc -p tsconfig.json
step "lint (eslint, module boundaries)" npx eslint --max-warnings=0 .
step "format (prettier)" npx prettier --check --log-level warn .
step "buf lint" npx buf lint protos
step "contracts (generated code, breaking changes)" bash scripts/check-contracts.sh
step "console typecheck; openapi.json and the typed client up to date" bash -c 'npx tsc -p apps/console/tsconfig.json && npx tsx scripts/gen-openapi.ts --check'
step "docs/configuration.md up to date with the config specs" npx tsx scripts/gen-config-docs.ts --check
step "tests (nx run-many -t test)" project_tests

echo
if [ ${#failed[@]} -gt 0 ]; then
  printf 'npm test: FAILED: %s\n' "${failed[*]}"
  exit 1
fi
echo "npm test: all checks passed"
