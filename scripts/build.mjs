// `npm run build`: bundles each service into services/<name>/dist for production images and
// memory measurements — plain `node dist/main.js`, no TypeScript loader at run time.
//
// Workspace libs (@atelier/*) are bundled in; npm packages stay external and load from
// node_modules. Code splitting keeps dynamic imports lazy (the OpenTelemetry SDK, migration
// classes), so a service loads only what its configuration uses.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedNodeMajor } from './node-runtime.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const services = readdirSync(path.join(root, 'services')).filter((name) => only.length === 0 || only.includes(name));

const externalPackages = {
  name: 'external-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@atelier/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * esbuild escapes every non-ASCII character of the code, but keeps the comments it preserves
 * (the JSDoc of object members and class methods, much of it from the contracts) as written. One
 * `→` makes V8 hold the whole bundle's source as a two-byte string: twice the memory, in every
 * process, for as long as it runs. Escaped, the comments read `\u2192` and the source stays one
 * byte a character. An escape is as valid in code; only columns after one on its own line move.
 */
function asciiOnly(dir) {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const file = path.join(entry.parentPath, entry.name);
    const source = readFileSync(file, 'utf8');
    const ascii = source.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    if (ascii !== source) writeFileSync(file, ascii);
  }
}

for (const service of services) {
  const src = path.join(root, 'services', service, 'src');
  const outdir = path.join(root, 'services', service, 'dist');
  const entryPoints = { main: path.join(src, 'main.ts') };
  if (existsSync(path.join(src, 'db', 'migrate-cli.ts'))) entryPoints.migrate = path.join(src, 'db', 'migrate-cli.ts');
  // A child process's script (`src/**/<name>-child.ts`, e.g. the worker's output decoder) lands
  // beside main.js as dist/<name>-child.js, where its parent looks for it.
  for (const file of readdirSync(src, { recursive: true })) {
    const name = path.basename(file, '.ts');
    if (!file.endsWith('-child.ts')) continue;
    if (entryPoints[name]) throw new Error(`services/${service}: two entries named ${name}`);
    entryPoints[name] = path.join(src, file);
  }
  rmSync(outdir, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: `node${pinnedNodeMajor(root)}`,
    sourcemap: 'linked',
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [externalPackages],
    logLevel: 'warning',
  });
  asciiOnly(outdir);
  // loadDescriptorSet() reads gen/descriptor.binpb next to the module that calls it, which may
  // be an entry or a chunk.
  for (const dir of [outdir, path.join(outdir, 'chunks')]) {
    mkdirSync(path.join(dir, 'gen'), { recursive: true });
    copyFileSync(path.join(root, 'libs', 'contracts', 'src', 'gen', 'descriptor.binpb'), path.join(dir, 'gen', 'descriptor.binpb'));
  }
  console.log(`build: services/${service}/dist (${Object.keys(entryPoints).join(', ')})`);
}
