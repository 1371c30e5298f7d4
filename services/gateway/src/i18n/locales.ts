/** The languages the API answers in: English (the default) and Simplified Chinese. */
export const LOCALES = ['en', 'zh-CN'] as const;
export type Locale = (typeof LOCALES)[number];

/** What a caller who asks for nothing we have is answered in. */
export const DEFAULT_LOCALE: Locale = 'en';

/** One text in every supported language: a missing language is a type error. */
export type Localized = Readonly<Record<Locale, string>>;
