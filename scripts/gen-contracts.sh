#!/usr/bin/env bash
# Regenerates libs/contracts/src/gen from protos/: the ts-proto TypeScript and the descriptor set
# that gRPC server reflection serves. The output is committed; CI regenerates and fails on a diff.
set -euo pipefail
cd "$(dirname "$0")/.."
npx buf generate protos --template protos/buf.gen.yaml
npx buf build protos --as-file-descriptor-set -o libs/contracts/src/gen/descriptor.binpb
