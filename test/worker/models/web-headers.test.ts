// The worker bundle's Headers stands in for the standard one inside the SDK: it must behave like
// it wherever the SDK looks (case-insensitive names, appended values, iteration, init forms).
import { describe, expect, it } from 'vitest';
import { Headers } from '../../../src/worker/models/web-headers.js';

describe('the worker Headers', () => {
  it('matches names case-insensitively and joins appended values as the standard does', () => {
    const h = new Headers();
    h.append('X-Api-Key', 'a');
    h.append('x-api-key', 'b');
    expect(h.get('X-API-KEY')).toBe('a, b');
    expect(h.has('x-Api-key')).toBe(true);
    h.set('X-Api-Key', ' c ');
    expect(h.get('x-api-key')).toBe('c');
    h.delete('X-API-Key');
    expect(h.get('x-api-key')).toBeNull();
    expect(h.has('x-api-key')).toBe(false);
  });

  it('iterates sorted by lowercased name, set-cookie values one by one', () => {
    const h = new Headers({ 'Retry-After': '3', 'content-type': 'text/event-stream' });
    h.append('Set-Cookie', 'a=1');
    h.append('set-cookie', 'b=2');
    expect([...h]).toEqual([
      ['content-type', 'text/event-stream'],
      ['retry-after', '3'],
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
    expect(h.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect([...h.keys()]).toEqual(['content-type', 'retry-after', 'set-cookie', 'set-cookie']);
    const seen: string[] = [];
    h.forEach((value, name) => seen.push(`${name}=${value}`));
    expect(seen[0]).toBe('content-type=text/event-stream');
  });

  it('takes pairs, records, other Headers and anything with forEach', () => {
    expect(new Headers([['A', '1']]).get('a')).toBe('1');
    expect(new Headers({ B: '2' }).get('b')).toBe('2');
    const copy = new Headers(new Headers({ C: '3' }));
    expect(copy.get('c')).toBe('3');
    const native = new globalThis.Headers({ D: '4' });
    expect(new Headers(native).get('d')).toBe('4');
    expect(new Headers(null).get('x')).toBeNull();
  });

  it('refuses names that are not tokens and values with line breaks', () => {
    expect(() => new Headers({ 'bad name': 'x' })).toThrow(TypeError);
    expect(() => new Headers().set('x-ok', 'one\r\nInjected: yes')).toThrow(TypeError);
    expect(() => new Headers([['only-one'] as unknown as [string, string]])).toThrow(TypeError);
  });
});
