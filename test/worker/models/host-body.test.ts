// The model channel's response body: chunks in order, the end, failures and cancellation behave as
// the SDK expects of a response body (it reads it as an async iterable, or through a reader).
import { describe, expect, it } from 'vitest';
import { HostBody } from '../../../src/worker/models/host-body.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (chunks: Uint8Array[]) => chunks.map((c) => new TextDecoder().decode(c)).join('');

describe('HostBody', () => {
  it('yields chunks pushed before and after the read started, then ends', async () => {
    const body = new HostBody(() => undefined);
    body.push(bytes('a'));
    const seen: Uint8Array[] = [];
    const reading = (async () => {
      for await (const chunk of body) seen.push(chunk);
    })();
    await Promise.resolve();
    body.push(bytes('b'));
    body.push(bytes('c'));
    body.end();
    body.push(bytes('late'));
    await reading;
    expect(text(seen)).toBe('abc');
  });

  it('rejects the pending read when it fails, and aborts the request only if the reader gives up', async () => {
    let aborted = 0;
    const failing = new HostBody(() => aborted++);
    const reader = failing.getReader();
    const pending = reader.read();
    failing.fail(new TypeError('terminated'));
    await expect(pending).rejects.toThrow('terminated');
    await failing.cancel();
    expect(aborted).toBe(0);

    const dropped = new HostBody(() => aborted++);
    dropped.push(bytes('x'));
    const iterator = dropped[Symbol.asyncIterator]();
    expect(text([(await iterator.next()).value as Uint8Array])).toBe('x');
    await iterator.return?.();
    expect(aborted).toBe(1);
    expect(await dropped.getReader().read()).toEqual({ done: true, value: undefined });
  });

  it('has one reader at a time', () => {
    const body = new HostBody(() => undefined);
    body.getReader();
    expect(() => body[Symbol.asyncIterator]()).toThrow(TypeError);
  });
});
