import { LOCALES, type Localized } from './locales.js';
import { placeholdersOf } from './message-format.js';

/**
 * What is wrong with a message catalog, one sentence per problem naming the reason: a reason of
 * `reasons` without an entry, a language without a text, placeholders that differ between
 * languages, or one outside `allowedPlaceholders` (when given). Empty: the catalog is complete.
 */
export function catalogProblems(
  reasons: readonly string[],
  catalog: Readonly<Record<string, Localized | undefined>>,
  allowedPlaceholders?: readonly string[],
): string[] {
  const problems: string[] = [];
  for (const reason of reasons) if (!catalog[reason]) problems.push(`${reason}: no message`);
  for (const [reason, entry] of Object.entries(catalog)) {
    if (!entry) continue;
    const reference = placeholdersOf(entry.en ?? '');
    for (const locale of LOCALES) {
      const text = entry[locale];
      if (typeof text !== 'string' || text.trim() === '') {
        problems.push(`${reason}: no ${locale} message`);
        continue;
      }
      const names = placeholdersOf(text);
      if (names.join(',') !== reference.join(','))
        problems.push(`${reason}: ${locale} placeholders {${names.join('},{')}} differ from en {${reference.join('},{')}}`);
      const stray = allowedPlaceholders ? names.filter((name) => !allowedPlaceholders.includes(name)) : [];
      if (stray.length > 0) problems.push(`${reason}: ${locale} uses {${stray.join('},{')}}, which it is never given`);
    }
  }
  return problems;
}
