import { describe, expect, it } from 'vitest';
import { MAX_NESTING_DEPTH, findInputProblem } from './input-rules.js';

describe('input rules', () => {
  it.each([
    ['NUL', { title: 'a\u0000b' }, 'body.title contains a control character'],
    ['a C0 control', { params: { p: ['ok', 'bell\u0007'] } }, 'body.params.p.1 contains a control character'],
    ['DEL', { content: 'x\u007f' }, 'body.content contains a control character'],
    ['a lone high surrogate', { prompt: 'cat \ud83d' }, 'body.prompt contains an invalid character'],
    ['a lone low surrogate', { prompt: '\udc00' }, 'body.prompt contains an invalid character'],
    ['a bad field name', { 'a\u0000': 1 }, 'body has a field name that contains a control character'],
    ['Infinity (JSON 1e400)', { width: JSON.parse('1e400') as number }, 'body.width must be a finite number'],
    ['NaN', { n: Number.NaN }, 'body.n must be a finite number'],
  ])('names the field holding %s', (_what, body, expected) => {
    expect(findInputProblem(body, 'body')).toContain(expected);
  });

  it('quotes at most 100 characters of a field name the client made up, however long', () => {
    const problem = findInputProblem({ ['x'.repeat(1_000_000)]: 'a\u0000' }, 'body')!;
    expect(problem).toMatch(/^body\.x{95}…/);
    expect(problem.length).toBeLessThan(200);
  });

  it('accepts tab, line feed, carriage return, emoji and other scripts', () => {
    expect(findInputProblem({ content: 'line\n\tindented\r\n🐱 猫 ĉ', n: 1.5, list: [1, null, true] }, 'body')).toBeUndefined();
  });

  it('refuses nesting deeper than the limit without exhausting the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(findInputProblem({ parameters: deep }, 'body')).toMatch(new RegExp(`nested more than ${MAX_NESTING_DEPTH} levels`));
    let fine: unknown = 'leaf';
    for (let i = 0; i < MAX_NESTING_DEPTH - 1; i += 1) fine = { a: fine };
    expect(findInputProblem(fine, 'body')).toBeUndefined();
  });
});
