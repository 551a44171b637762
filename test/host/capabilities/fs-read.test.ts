import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMany } from '../../../src/host/capabilities/fs/read-many.js';
import { countLines, readText } from '../../../src/host/capabilities/fs/read.js';

let dir: string;
const at = (name: string) => path.join(dir, name);

beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-read-')));
  await writeFile(at('hello.txt'), 'one\ntwo\nthree\n');
  await writeFile(at('no-newline.txt'), 'a\nb');
  await writeFile(at('empty.txt'), '');
  await writeFile(at('binary.bin'), Buffer.from([0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]));
  await writeFile(at('late-nul.txt'), Buffer.concat([Buffer.alloc(9000, 'x'), Buffer.from([0])]));
  await writeFile(at('utf8.txt'), 'héllo wörld ✓\n');
  await mkdir(at('subdir'));
  // 3,000 lines of 100 bytes: 300 KB, over the small caps used below and over one read chunk.
  await writeFile(
    at('big.log'),
    Array.from(
      { length: 3000 },
      (_, i) => `line ${String(i + 1).padStart(5, '0')} `.padEnd(99, '.') + '\n',
    ).join(''),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readText', () => {
  it('reads a whole file with its line count, size and mtime', async () => {
    const r = await readText(at('hello.txt'));
    expect(r).toMatchObject({
      path: at('hello.txt'),
      content: 'one\ntwo\nthree\n',
      startLine: 1,
      totalLines: 3,
      truncated: false,
      size: 14,
    });
    expect(r.mtimeMs).toBeGreaterThan(0);
    expect((await readText(at('no-newline.txt'))).totalLines).toBe(2);
    expect((await readText(at('empty.txt'))).totalLines).toBe(0);
    expect((await readText(at('utf8.txt'))).content).toBe('héllo wörld ✓\n');
  });

  it('reads a range of lines with offset and limit', async () => {
    const r = await readText(at('hello.txt'), { offset: 2, limit: 1 });
    expect(r).toMatchObject({ content: 'two\n', startLine: 2, totalLines: 3, truncated: true });
    const tail = await readText(at('hello.txt'), { offset: 2 });
    expect(tail).toMatchObject({ content: 'two\nthree\n', totalLines: 3, truncated: false });
    const past = await readText(at('hello.txt'), { offset: 10, limit: 5 });
    expect(past).toMatchObject({ content: '', totalLines: 3 });
    expect((await readText(at('no-newline.txt'), { offset: 2, limit: 1 })).content).toBe('b');
  });

  it('pages through a file over the cap, streaming only what is asked', async () => {
    await expect(readText(at('big.log'), { maxBytes: 10_000 })).rejects.toMatchObject({
      code: 'too_large',
      message: expect.stringMatching(/offset and limit/),
    });
    const r = await readText(at('big.log'), { offset: 1500, limit: 3, maxBytes: 10_000 });
    expect(
      r.content
        .split('\n')
        .slice(0, 3)
        .map((l) => l.slice(0, 10)),
    ).toEqual(['line 01500', 'line 01501', 'line 01502']);
    expect(r).toMatchObject({ startLine: 1500, totalLines: 3000, truncated: true, size: 300_000 });
    // Line 2622 straddles the 256 KiB chunk boundary and must come back whole.
    const across = await readText(at('big.log'), { offset: 2621, limit: 3, maxBytes: 10_000 });
    expect(across.content).toHaveLength(300);
    expect(across.content.split('\n').map((l) => l.length)).toEqual([99, 99, 99, 0]);
    expect(across.content.slice(100, 110)).toBe('line 02622');
  });

  it('stops a range at the byte cap and says it truncated', async () => {
    const r = await readText(at('big.log'), { offset: 1, limit: 1000, maxBytes: 550 });
    expect(r.content.split('\n').filter(Boolean)).toHaveLength(5);
    expect(r.truncated).toBe(true);
  });

  it('refuses binary files, directories and missing files with clear codes', async () => {
    await expect(readText(at('binary.bin'))).rejects.toMatchObject({ code: 'binary_file' });
    await expect(readText(at('binary.bin'), { offset: 1, limit: 1 })).rejects.toMatchObject({
      code: 'binary_file',
    });
    // A NUL past the sniffed 8 KB does not make a file binary.
    expect((await readText(at('late-nul.txt'))).size).toBe(9001);
    await expect(readText(at('subdir'))).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/is a directory, use LS/),
    });
    await expect(readText(at('missing.txt'))).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining(at('missing.txt')),
    });
  });

  it('rejects a bad offset or limit', async () => {
    await expect(readText(at('hello.txt'), { offset: 0 })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(readText(at('hello.txt'), { limit: 1.5 })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('countLines', () => {
  it('does not count a final newline as another line', () => {
    expect(countLines(Buffer.from('a\nb\n'))).toBe(2);
    expect(countLines(Buffer.from('a\nb'))).toBe(2);
    expect(countLines(Buffer.from('\n'))).toBe(1);
  });
});

describe('readMany', () => {
  it('returns readable files in order and lists the rest with reasons', async () => {
    const r = await readMany(
      [at('hello.txt'), at('binary.bin'), at('missing.txt'), at('big.log'), at('subdir'), at('utf8.txt')],
      100_000,
    );
    expect(r.files.map((f) => path.basename(f.path))).toEqual(['hello.txt', 'utf8.txt']);
    expect(r.files[0]?.content).toBe('one\ntwo\nthree\n');
    const reasons = Object.fromEntries(r.skipped.map((s) => [path.basename(s.path), s.reason]));
    expect(reasons['binary.bin']).toBe('binary');
    expect(reasons['missing.txt']).toMatch(/not found/);
    expect(reasons['big.log']).toMatch(/too large/);
    expect(reasons['subdir']).toMatch(/directory/);
  });

  it('reads a thousand files quickly', async () => {
    const many = path.join(dir, 'many');
    await mkdir(many);
    const files = Array.from({ length: 1000 }, (_, i) => path.join(many, `f${i}.txt`));
    await Promise.all(files.map((f, i) => writeFile(f, `file ${i}\n`)));
    const started = performance.now();
    const r = await readMany(files);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(r.files).toHaveLength(1000);
    expect(r.files[999]?.content).toBe('file 999\n');
  });

  it('stops at its byte budget and hands back the tail, in order, as deferred', async () => {
    const dir2 = path.join(dir, 'budget');
    await mkdir(dir2);
    const files = Array.from({ length: 6 }, (_, i) => path.join(dir2, `f${i}.txt`));
    await Promise.all(files.map((f) => writeFile(f, 'x'.repeat(100))));
    const r = await readMany(files, 1000, 250);
    expect(r.files.map((f) => path.basename(f.path))).toEqual(['f0.txt', 'f1.txt', 'f2.txt']);
    expect(r.deferred?.map((f) => path.basename(f))).toEqual(['f3.txt', 'f4.txt', 'f5.txt']);
    // One file is always read, however small the budget.
    const one = await readMany(files, 1000, 1);
    expect(one.files).toHaveLength(1);
    expect(one.deferred).toHaveLength(5);
    expect((await readMany(files, 1000)).deferred).toBeUndefined();
  });
});
