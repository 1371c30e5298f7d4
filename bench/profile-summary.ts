// Reads V8 .cpuprofile files (written with BENCH_PROFILE=<dir>) and prints where the time went:
// the top functions by self time and by total time (self + callees, each function counted once
// per stack), and self time by package. Times are the profile's samples, in ms and % of busy time
// (idle, GC and program nodes are shown apart).
//
//   npx tsx bench/profile-summary.ts <file.cpuprofile|dir> [top=25] [filter] [--window=<s>]
//
// A filter (a substring of a function name or URL) prints the callers of the matching functions.
// --window=<s> keeps only the busiest <s> seconds of each profile (the load, without start-up
// and idle time), so that busy ms / requests of the load is the CPU cost per request; with
// --at=<s> the window starts that many seconds into the profile instead (a bench with several
// loads: --timeline prints the busy share of each second to find them).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const windowArg = process.argv.find((a) => a.startsWith('--window='));
const windowUs = windowArg ? Number(windowArg.slice('--window='.length)) * 1e6 : Infinity;
const atArg = process.argv.find((a) => a.startsWith('--at='));
const atUs = atArg ? Number(atArg.slice('--at='.length)) * 1e6 : undefined;
const timeline = process.argv.includes('--timeline');
const [target, topArg, filter] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
if (!target) throw new Error('usage: profile-summary.ts <file.cpuprofile|dir> [top] [filter]');
const top = Number(topArg ?? 25);
const files = statSync(target).isDirectory()
  ? readdirSync(target, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => path.join(target, f))
  : [target];

const shortUrl = (url: string) => {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(url.lastIndexOf('/', dist - 1) + 1);
  return url.replace(/^file:\/\//, '').replace(/^.*\/(src|libs)\//, '$1/');
};
const packageOf = (url: string) => {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return url;
  const nm = url.lastIndexOf('node_modules/');
  if (nm < 0) return url.includes('/dist/') ? `(bundle) ${shortUrl(url).split('/')[0]}` : '(own code)';
  const rest = url.slice(nm + 'node_modules/'.length).split('/');
  return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
};
/** Sample indexes [from, to) of the busiest span of `windowUs` (all samples when Infinity). */
function busiestWindow(profile: Profile, byId: Map<number, ProfileNode>, windowUs: number): [number, number] {
  if (atUs !== undefined) {
    let t = 0;
    let from = -1;
    let to = profile.samples.length;
    for (let i = 0; i < profile.samples.length; i += 1) {
      t += profile.timeDeltas[i] ?? 0;
      if (from < 0 && t >= atUs) from = i;
      if (t >= atUs + windowUs) {
        to = i;
        break;
      }
    }
    return [Math.max(0, from), to];
  }
  if (!Number.isFinite(windowUs)) return [0, profile.samples.length];
  let best = [0, 0, -1];
  let busy = 0;
  let spanUs = 0;
  let from = 0;
  const busyAt = (i: number) => (byId.get(profile.samples[i]!)!.callFrame.functionName === '(idle)' ? 0 : (profile.timeDeltas[i] ?? 0));
  for (let to = 0; to < profile.samples.length; to += 1) {
    busy += busyAt(to);
    spanUs += profile.timeDeltas[to] ?? 0;
    while (spanUs > windowUs) {
      busy -= busyAt(from);
      spanUs -= profile.timeDeltas[from] ?? 0;
      from += 1;
    }
    if (busy > best[2]!) best = [from, to + 1, busy];
  }
  return [best[0]!, best[1]!];
}
const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || '(anonymous)'} ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`;

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  if (timeline) {
    const perSecond: number[] = [];
    let t = 0;
    profile.samples.forEach((id, i) => {
      t += profile.timeDeltas[i] ?? 0;
      const second = Math.floor(t / 1e6);
      if (byId.get(id)!.callFrame.functionName !== '(idle)') perSecond[second] = (perSecond[second] ?? 0) + (profile.timeDeltas[i] ?? 0);
    });
    console.log(`\n=== ${file}: busy % per second\n${Array.from(perSecond, (us, s) => `${s}:${Math.round((us ?? 0) / 1e4)}`).join(' ')}`);
    continue;
  }
  const [from, to] = busiestWindow(profile, byId, windowUs);
  const selfUs = new Map<number, number>();
  profile.samples.slice(from, to).forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[from + i] ?? 0)));

  const special = new Map<string, number>();
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const packages = new Map<string, number>();
  const callers = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)' || name === '(root)') {
      special.set(name, (special.get(name) ?? 0) + us);
      if (name !== '(idle)') busy += us;
      continue;
    }
    busy += us;
    self.set(label(node), (self.get(label(node)) ?? 0) + us);
    packages.set(packageOf(node.callFrame.url), (packages.get(packageOf(node.callFrame.url)) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const here = byId.get(at)!;
      const key = label(here);
      if (here.callFrame.functionName === '(root)' || seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + us);
      if (filter && key.includes(filter)) {
        const up = parent.get(at);
        const caller = up === undefined ? '(none)' : label(byId.get(up)!);
        callers.set(caller, (callers.get(caller) ?? 0) + us);
      }
    }
  }
  const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
  const pct = (us: number) => `${((100 * us) / busy).toFixed(1).padStart(5)} %`;
  const print = (title: string, entries: Map<string, number>, n = top) => {
    console.log(`\n${title}`);
    for (const [key, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, n)) console.log(`${ms(us)} ms ${pct(us)}  ${key}`);
  };
  console.log(`\n=== ${file}\nbusy ${ms(busy)} ms; ${[...special].map(([k, us]) => `${k} ${ms(us).trim()} ms`).join(', ')}`);
  print('self time by package', packages, 15);
  print('self time', self);
  print('total time', total);
  if (filter) print(`callers of *${filter}*`, callers);
}
