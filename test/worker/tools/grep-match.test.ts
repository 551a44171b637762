import { describe, expect, it } from 'vitest';
import { compilePattern, countMatchingLines, matchText } from '../../../src/worker/tools/grep-match.js';

function compile(pattern: string, ignoreCase = false, multiline = false): RegExp {
  const compiled = compilePattern(pattern, { ignoreCase, multiline });
  if (!compiled.ok) throw new Error(compiled.message);
  return compiled.regex;
}

describe('grep matching', () => {
  it('turns ripgrep inline flags into RegExp flags', () => {
    expect(compile('(?i)hello').flags).toBe('i');
    expect(matchText('HeLLo\nbye\n', compile('(?i)hello'), false).matched).toEqual([0]);
    expect(compilePattern('a[', { ignoreCase: false, multiline: false }).ok).toBe(false);
  });

  it('strips CR from CRLF lines and stops at the limit', () => {
    const found = matchText('a\r\nb\r\na\r\na\r\n', compile('^a$'), false, 2);
    expect(found.lines).toEqual(['a', 'b', 'a', 'a']);
    expect(found.matched).toEqual([0, 2]);
  });

  it('does not loop on empty multiline matches', () => {
    expect(matchText('x\n\ny\n', compile('^$', false, true), true).matched).toEqual([1]);
  });

  // Grep's regex deliberately runs on the calling (worker) thread: a catastrophic pattern blocks
  // that thread and nothing else, and the host's deadline terminates the worker. The kill itself
  // is tested with the pool; this test pins down that the work is synchronous here, not deferred.
  it('runs a catastrophic regex synchronously in the calling thread', () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const started = performance.now();
    const found = matchText(`${'a'.repeat(19)}b\n`, compile('(a+)+$'), false);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(found).not.toBeInstanceOf(Promise);
    expect(found.matched).toEqual([]);
    // Exponential backtracking takes visible time, during which no timer could run.
    expect(elapsed).toBeGreaterThan(10);
    expect(ticks).toBe(0);
  });
});

describe('plain-text patterns and line counting', () => {
  it('marks a case-sensitive pattern without regex syntax as plain text', () => {
    const literal = (pattern: string, ignoreCase = false) => {
      const compiled = compilePattern(pattern, { ignoreCase, multiline: false });
      return compiled.ok ? compiled.literal : 'invalid';
    };
    expect(literal('needle')).toBe('needle');
    expect(literal('a-b/c d_e:f')).toBe('a-b/c d_e:f');
    for (const pattern of ['ne.dle', 'a+', '^x', 'x$', 'a|b', '(x)', '[x]', 'x{2}', 'a\\b', 'x?', 'x*'])
      expect(literal(pattern)).toBeUndefined();
    expect(literal('needle', true)).toBeUndefined();
    expect(literal('(?i)needle')).toBeUndefined();
  });

  it('counts matching lines exactly as matchText finds them', () => {
    const texts = [
      '',
      '\n',
      'a',
      'a\n',
      'a\n\n',
      '\na\r\nb\r\n\r\nab',
      'x\ny\nx\nx',
      'a\r\r\n',
      'ab\r',
      'aa\nba\nab\n',
    ];
    const patterns = ['^$', '^a$', 'a', 'b$', '^', '\\r', 'x', 'a\\s', '(?<!b)a'];
    for (const text of texts) {
      for (const pattern of patterns) {
        for (const limit of [1, 2, Infinity]) {
          for (const multiline of [false, true]) {
            const regex = compile(pattern, false, multiline);
            expect(
              countMatchingLines(text, regex, multiline, limit),
              `${pattern} in ${JSON.stringify(text)}`,
            ).toBe(matchText(text, regex, multiline, limit).matched.length);
          }
        }
      }
    }
  });
});
