import { describe, expect, it } from 'vitest';
import { compilePattern, matchText } from '../../../src/worker/tools/grep-match.js';

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
