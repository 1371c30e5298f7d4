import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Runs scripts/check-contracts.sh in a scratch git repository holding a copy of the contracts,
// to show that CI's gate really catches stale generated code and undeclared breaking changes.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let repo: string;

const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
const check = () => spawnSync('bash', ['scripts/check-contracts.sh'], { cwd: repo, encoding: 'utf8' });
const catalogProto = () => path.join(repo, 'protos/atelier/catalog/v1/catalog.proto');

beforeAll(() => {
  repo = mkdtempSync(path.join(tmpdir(), 'atelier-contracts-'));
  for (const item of ['protos', 'libs/contracts/src/gen', 'scripts/check-contracts.sh']) {
    cpSync(path.join(root, item), path.join(repo, item), { recursive: true });
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(repo, 'node_modules'));
  git('init', '-q');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'baseline');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

function commit(message: string) {
  const buf = path.join(root, 'node_modules/.bin/buf');
  execFileSync(buf, ['generate', 'protos', '--template', 'protos/buf.gen.yaml'], { cwd: repo });
  execFileSync(buf, ['build', 'protos', '--as-file-descriptor-set', '-o', 'libs/contracts/src/gen/descriptor.binpb'], { cwd: repo });
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', message);
}

// Each case runs buf several times (generate, build, breaking): seconds each when the machine is
// quiet, over the default 30 s for the breaking-change case when it is busy (a red CI, 2026-12-05).
describe('contracts gate - scripts/check-contracts.sh', { timeout: 120_000 }, () => {
  it('passes on an unchanged contract', () => {
    const result = check();
    expect(result.stdout).toContain('generated code is up to date');
    expect(result.status).toBe(0);
  });

  it('fails when a proto changed but the generated code was not regenerated', () => {
    const original = readFileSync(catalogProto(), 'utf8');
    writeFileSync(catalogProto(), original.replace('message GetModelRequest {', 'message GetModelRequest {\n  bool verbose = 2;'));
    const result = check();
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('is stale');
    writeFileSync(catalogProto(), original);
  });

  it('fails on an undeclared breaking change, and accepts it with a Contract-Break trailer', () => {
    const original = readFileSync(catalogProto(), 'utf8');
    writeFileSync(catalogProto(), original.replace('  string model_id = 1;\n}', '  int64 model_id = 1;\n}'));
    commit('change model_id type');
    const refused = check();
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/changed type|type/i);
    expect(refused.stderr).toContain('Contract-Break');

    git(
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '-q',
      '--amend',
      '-m',
      'change model_id type\n\nContract-Break: ids become numeric before the first release',
    );
    const accepted = check();
    expect(accepted.status).toBe(0);
    expect(accepted.stdout).toContain('breaking change accepted by the commit trailer');
  });
});
