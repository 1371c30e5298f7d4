import { describe, expect, it } from 'vitest';
import { negotiateLocale } from './negotiate-locale.js';

describe('negotiate locale - Accept-Language', () => {
  it('answers Simplified Chinese for zh, zh-CN and zh-Hans, in any case', () => {
    for (const header of ['zh', 'zh-CN', 'zh-cn', 'zh-Hans', 'zh-Hans-CN', 'ZH-SG']) expect(negotiateLocale(header)).toBe('zh-CN');
  });

  it('answers English without a header, for English, for what it does not have, and for Traditional Chinese', () => {
    for (const header of [undefined, '', 'en', 'en-US', 'fr-FR', '*', 'zh-TW', 'zh-Hant', 'zh-HK'])
      expect(negotiateLocale(header)).toBe('en');
  });

  it('follows q-values, earlier ranges first on a tie, and q=0 as "not this"', () => {
    expect(negotiateLocale('en;q=0.5, zh-CN;q=0.9')).toBe('zh-CN');
    expect(negotiateLocale('fr, zh;q=0.8, en;q=0.7')).toBe('zh-CN');
    expect(negotiateLocale('zh-TW, zh-Hans;q=0.4, en;q=0.3')).toBe('zh-CN');
    expect(negotiateLocale('en-GB;q=0.8, zh;q=0.8')).toBe('en');
    expect(negotiateLocale('zh;q=0, en;q=0.1')).toBe('en');
    expect(negotiateLocale('zh;q=0')).toBe('en');
  });

  it('never fails on a malformed header: bad elements are skipped, the rest still count', () => {
    for (const header of ['zh;q=2', 'zh;q=abc', ';;;', '\u0000', '中文', 'zh-CN;q=0.5;q='])
      expect(() => negotiateLocale(header)).not.toThrow();
    expect(negotiateLocale('zh;q=2, en;q=0.1')).toBe('en');
    expect(negotiateLocale('!!!, zh-CN')).toBe('zh-CN');
    expect(negotiateLocale('x'.repeat(5000))).toBe('en');
    expect(negotiateLocale(['fr', 'zh-CN;q=0.5'])).toBe('zh-CN');
  });
});
