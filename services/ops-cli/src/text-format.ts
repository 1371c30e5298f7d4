/** Plain-text building blocks of the human output: aligned columns and short durations. */

/** Rows under a header, each column as wide as its widest cell; lines carry no trailing blanks. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], indent = '  '): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `${indent}${cells
      .map((cell, column) => cell.padEnd(widths[column] ?? cell.length))
      .join('  ')
      .trimEnd()}`;
  return [line(header), ...rows.map(line)];
}

/** `-` for none, then ms, s, m s, h m, d h — precise enough to tell "just now" from "stuck". */
export function formatAge(ms: number): string {
  if (ms <= 0) return '-';
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 60) return `${(ms / 1_000).toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** `1 event`, `3 events`. */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** One line of at most `max` characters, for free text (error messages) inside a table. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
