import { describe, expect, it } from 'vitest';
import type { FsReadManyResult } from '../../../src/shared/capabilities.js';
import { needleFor, visitFiles, type FileText } from '../../../src/worker/tools/grep-unpack.js';

function packed(files: Record<string, string>): FsReadManyResult {
  const encoder = new TextEncoder();
  const parts = Object.values(files).map((text) => encoder.encode(text));
  const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  const ends: number[] = [];
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
    ends.push(at);
  }
  const paths = Object.keys(files);
  return { files: [], skipped: [], packed: { paths, ends, mtimes: paths.map((_, i) => 1000 + i), bytes } };
}

function all(result: FsReadManyResult): FileText[] {
  const seen: FileText[] = [];
  visitFiles(result, (file) => {
    seen.push(file);
    return false;
  });
  return seen;
}

describe('visitFiles', () => {
  it('decodes packed files one by one, keeping a byte-order mark, empty files and multibyte text', () => {
    const seen = all(packed({ 'a.txt': '\uFEFFbom\n', 'empty.txt': '', 'u.txt': 'héllo ✓ 𝄞\n' }));
    expect(seen).toEqual([
      { path: 'a.txt', content: '\uFEFFbom\n', mtimeMs: 1000 },
      { path: 'empty.txt', content: '', mtimeMs: 1001 },
      { path: 'u.txt', content: 'héllo ✓ 𝄞\n', mtimeMs: 1002 },
    ]);
  });

  it('turns invalid UTF-8 into replacement characters, as the host decoding did', () => {
    const result = packed({ 'bad.txt': '' });
    if (!result.packed) throw new Error('not packed');
    result.packed.bytes = Uint8Array.from([0x61, 0xff, 0x62]);
    result.packed.ends = [3];
    expect(all(result)[0]?.content).toBe('a\uFFFDb');
  });

  it('visits string files too, and stops when the visitor says so', () => {
    const result: FsReadManyResult = {
      files: [{ path: 'one.txt', content: 'x', mtimeMs: 5 }],
      skipped: [],
      packed: packed({ 'two.txt': 'y', 'three.txt': 'z' }).packed as NonNullable<FsReadManyResult['packed']>,
    };
    const seen: string[] = [];
    const stopped = visitFiles(result, (file) => {
      seen.push(file.path);
      return file.path === 'two.txt';
    });
    expect(stopped).toBe(true);
    expect(seen).toEqual(['one.txt', 'two.txt']);
  });

  it('with a needle, decodes only the files whose bytes hold it, in order', () => {
    const result = packed({
      'a.txt': 'no\n',
      'b.txt': 'one ✓ hit\n',
      'c.txt': 'ne',
      'd.txt': 'edle\n',
      'e.txt': '✓✓\n',
    });
    const visited = (needle: string) => {
      const seen: string[] = [];
      visitFiles(
        result,
        (file) => {
          seen.push(file.path);
          return false;
        },
        needleFor(needle),
      );
      return seen;
    };
    expect(visited('✓')).toEqual(['b.txt', 'e.txt']);
    expect(visited('hit')).toEqual(['b.txt']);
    // 'ne' + 'edle' straddles two files: the first is visited (a false alarm its test rejects).
    expect(visited('needle')).toEqual(['c.txt']);
    expect(visited('absent')).toEqual([]);
  });

  it('makes no needle where bytes could not stand for the text', () => {
    expect(needleFor(undefined)).toBeUndefined();
    expect(needleFor('')).toBeUndefined();
    expect(needleFor('a\uFFFDb')).toBeUndefined();
    expect(needleFor('é')).toEqual(Uint8Array.from([0xc3, 0xa9]));
  });
});
