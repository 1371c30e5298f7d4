import type { Model, Style } from '../db/catalog-sql.js';

/**
 * A catalog entry as the audit log keeps it before and after an edit: everything an operator set,
 * without the row's own timestamps (the entry's time is the edit's).
 */
export function entrySnapshot(entry: Model | Style | null): object | null {
  if (!entry) return null;
  const { createdAt: _created, updatedAt: _updated, ...settings } = entry;
  return settings;
}

/** The audit target of a model or a style: its code, which operators know it by. */
export const modelTarget = (code: string) => `model:${code}`;
export const styleTarget = (code: string) => `style:${code}`;
