// atelier-ops: the operator CLI. Commands arrive with issue 8 (see services/ops-cli/README.md).
process.stderr.write('atelier-ops: not implemented yet\n');
process.exit(64);
