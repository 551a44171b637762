// What the capability layer finds out about a write beyond its path, on real files, and what the
// policy then decides.
import { mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFacts } from '../../../src/host/capabilities/file-facts.js';
import { resolvePath } from '../../../src/host/capabilities/paths.js';
import { decide } from '../../../src/host/capabilities/policy.js';

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-facts-')));
  await writeFile(path.join(dir, 'run.cassette.jsonl'), '{"v":1,"request":{"model":"m","system":""}}\n');
  await writeFile(path.join(dir, 'package.json'), '{"name":"a","scripts":{"test":"vitest"}}\n');
  await writeFile(path.join(dir, 'notes.txt'), 'plain\n');
  await symlink('package.json', path.join(dir, 'pkg.json'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function judgeWrite(rel: string, content: string) {
  const target = await resolvePath(rel, dir);
  const facts = await writeFacts(target, content);
  return decide({
    capability: 'fs.write',
    path: target,
    projectDir: dir,
    mode: 'bypassPermissions',
    ...facts,
  });
}

describe('writeFacts', () => {
  it("refuses to overwrite one of cadre's records, found by what it begins with", async () => {
    expect(await judgeWrite('run.cassette.jsonl', 'x')).toMatchObject({
      decision: 'deny',
      code: 'forbidden_operation',
    });
  });

  it('asks for a package.json change to scripts, and lets others through', async () => {
    expect((await judgeWrite('package.json', '{"name":"a","scripts":{"test":"evil"}}')).decision).toBe('ask');
    expect((await judgeWrite('package.json', '{"name":"b","scripts":{"test":"vitest"}}')).decision).toBe(
      'allow',
    );
    expect((await judgeWrite('sub/package.json', '{"scripts":{"postinstall":"x"}}')).decision).toBe('ask');
    expect((await judgeWrite('sub/package.json', '{"name":"c"}')).decision).toBe('allow');
  });

  it('judges a package.json written through a symlink by what it changes', async () => {
    expect((await judgeWrite('pkg.json', '{"name":"a","scripts":{"test":"evil"}}')).decision).toBe('ask');
    expect((await judgeWrite('pkg.json', '{"name":"z","scripts":{"test":"vitest"}}')).decision).toBe('allow');
  });

  it('leaves ordinary files to the mode', async () => {
    expect((await judgeWrite('notes.txt', 'more')).decision).toBe('allow');
    expect((await judgeWrite('new.txt', 'x')).decision).toBe('allow');
  });
});

describe('writeFacts on what is not a regular file', () => {
  it('does not wait on a FIFO', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(dir, 'pipe')]);
    const started = performance.now();
    expect((await judgeWrite('pipe', 'x')).decision).toBe('allow');
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
