/** A placeholder in a catalog message: `{limit}` (a name in lowerCamelCase). */
const PLACEHOLDER = /\{([a-zA-Z][a-zA-Z0-9]*)\}/g;

export type MessageParams = Readonly<Record<string, string | number>>;

/** The placeholder names a message uses, sorted and each once. */
export function placeholdersOf(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1]!))].sort();
}

/** Whether `params` has a value for every placeholder of `template`. */
export function canFill(template: string, params: MessageParams): boolean {
  return placeholdersOf(template).every((name) => Object.hasOwn(params, name));
}

/**
 * The message with its placeholders filled in. A placeholder without a value stays as written
 * (callers check canFill first; a visible `{limit}` is a bug to see, not a crash).
 */
export function formatMessage(template: string, params: MessageParams): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}
