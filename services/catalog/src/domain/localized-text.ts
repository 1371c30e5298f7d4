import type { catalogV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { requireText } from '@atelier/validation';

/**
 * The languages a catalog name may be translated into. English is the plain column (display_name,
 * title, subtitle) and every language's fallback, so it is not among them. Adding a language
 * here is enough for the catalog; the gateway answers in the languages it has messages for.
 */
export const TRANSLATED_LOCALES: readonly string[] = ['zh-CN'];

/** Translations of a name, by BCP 47 tag; absent: the upsert keeps the entry's translations. */
export type Translations = Readonly<Record<string, string>>;

/**
 * A name's translations as an upsert gives them: only known languages (spelled as listed), each
 * one a text under the same bound as the English name; an empty text drops that language.
 */
export function requireTranslations(
  value: catalogV1.LocalizedText | undefined,
  field: string,
  maxLength: number,
): Translations | undefined {
  if (value === undefined) return undefined;
  const translations: Record<string, string> = {};
  for (const [locale, text] of Object.entries(value.values)) {
    if (!TRANSLATED_LOCALES.includes(locale)) {
      throw new InvalidArgumentError(
        `${field}`,
        `has an unknown language "${locale.slice(0, 20)}"; use one of ${TRANSLATED_LOCALES.join(', ')}`,
      );
    }
    const checked = requireText(text, `${field}.${locale}`, maxLength, { allowEmpty: true });
    if (checked !== '') translations[locale] = checked;
  }
  return translations;
}
