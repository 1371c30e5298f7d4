import { describe, expect, it } from 'vitest';
import { checkTarget, parseAllowedHosts } from './target-check.js';

const resolver =
  (answers: Record<string, string[]>) =>
  async (host: string): Promise<{ address: string; family: number }[]> =>
    (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('target check - where a webhook may go', () => {
  const none = parseAllowedHosts('');

  it.each(['http://127.0.0.1/hook', 'https://10.0.0.7/hook', 'https://169.254.169.254/latest', 'https://[::1]:8443/hook'])(
    'refuses %s with WEBHOOK_URL_NOT_ALLOWED',
    async (url) => {
      await expect(checkTarget(new URL(url), none)).rejects.toMatchObject({ reason: 'WEBHOOK_URL_NOT_ALLOWED', field: 'url' });
    },
  );

  it('refuses a name when any of its addresses is not public', async () => {
    const resolve = resolver({ 'mixed.example': ['93.184.216.34', '10.0.0.1'] });
    await expect(checkTarget(new URL('https://mixed.example/'), none, resolve)).rejects.toThrow(/10\.0\.0\.1, a private address/);
  });

  it('answers the address the connection is pinned to', async () => {
    const resolve = resolver({ 'hooks.example': ['93.184.216.34'] });
    await expect(checkTarget(new URL('https://hooks.example/x'), none, resolve)).resolves.toMatchObject({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('lets an allowlisted host through, whatever it resolves to', async () => {
    const allowed = parseAllowedHosts(' LocalHost , 127.0.0.1,[::1]');
    expect([...allowed]).toEqual(['localhost', '127.0.0.1', '::1']);
    await expect(checkTarget(new URL('http://127.0.0.1:9/x'), allowed)).resolves.toMatchObject({ address: '127.0.0.1' });
    await expect(checkTarget(new URL('http://[::1]:9/x'), allowed)).resolves.toMatchObject({ address: '::1', family: 6 });
  });

  it('refuses a name that does not resolve', async () => {
    await expect(checkTarget(new URL('https://nowhere.invalid/'), none, resolver({}))).rejects.toMatchObject({
      reason: 'WEBHOOK_URL_NOT_ALLOWED',
    });
  });
});
