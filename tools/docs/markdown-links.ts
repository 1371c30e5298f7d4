// The relative links of the repository's documentation (README.md, docs/*.md, bench/README.md),
// checked against the tree: each must name a file or folder that exists and, for a heading
// (`file.md#anchor`), a heading that file has.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** The documentation whose links are checked, relative to the repository root. */
export function documentationFiles(root: string): string[] {
  const docs = readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs.sort(), 'bench/README.md'];
}

/** Markdown without its fenced code blocks and inline code, where `[x](y)` is not a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const slug = match[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

export interface BrokenLink {
  readonly file: string;
  readonly link: string;
  readonly problem: string;
}

/** Every relative link of `files` (paths from `root`) that leads nowhere. */
export function brokenLinks(root: string, files: readonly string[]): BrokenLink[] {
  const broken: BrokenLink[] = [];
  for (const file of files) {
    const text = readFileSync(path.join(root, file), 'utf8');
    for (const match of prose(text).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
      const link = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: …
      const [target, anchor] = link.split('#', 2) as [string, string | undefined];
      const resolved = target === '' ? path.join(root, file) : path.resolve(path.dirname(path.join(root, file)), target);
      if (!resolved.startsWith(root) || !existsSync(resolved)) {
        broken.push({ file, link, problem: 'no such file' });
        continue;
      }
      if (anchor === undefined || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue;
      if (!headingAnchors(readFileSync(resolved, 'utf8')).has(anchor))
        broken.push({ file, link, problem: `no heading #${anchor} in ${path.relative(root, resolved)}` });
    }
  }
  return broken;
}
