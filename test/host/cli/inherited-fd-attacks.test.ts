// Descriptors cadre inherited, attacked through the real CLI. A parent process (a shell, an editor,
// a CI runner) can leak descriptors without close-on-exec, and Node hands them on to every child
// it spawns: inside the sandbox such a descriptor still leads to the host. Here cadre starts with a
// directory descriptor on `/` (200) and a pipe's write end (201) that nobody else reads. A model in
// bypassPermissions (the sandbox is the only boundary) reads the outside canary through
// `/proc/self/fd/200/…`, from the command's own table and from every process it can see, and writes
// into the pipe: no canary reaches the model and nothing reaches the pipe, under either backend.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CliResult } from '../../support/cli.js';
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { NO_BWRAP, sandboxBackends } from '../capabilities/sandbox-fixture.js';
import { makeWorld, opaque, type World } from './attack-world.js';

const { available } = await sandboxBackends();

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

/** `cadre ...args` started by a shell that leaks descriptor 200 (`/`) and 201 (a file's writer). */
function runLeaking(args: string[], env: Record<string, string>, cwd: string, sink: string) {
  const leak = 'exec 200</ 201>>"$1"; shift; exec "$@"';
  const child = spawn('/bin/bash', ['-c', leak, 'leak', sink, process.execPath, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe.skipIf(available.length === 0).each(available.map((b) => b.name))('%s', (backend) => {
  let world: World;
  beforeAll(async () => {
    world = await makeWorld(undefined, backend === 'unshare' ? { sandbox: { bwrapPath: NO_BWRAP } } : {});
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it('a command reaches no descriptor cadre inherited: no host file through it, no write into it', async () => {
    const { project, home, outside, canaries } = world;
    const sink = path.join(outside, 'leaked-pipe.txt');
    const secret = path.join(outside, 'secret.txt').slice(1);
    const attack = [
      'ls /proc/self/fd | tr "\\n" " "; echo',
      `cat /proc/self/fd/200/${secret}`,
      `for p in /proc/[0-9]*; do cat $p/fd/200/${secret}; echo written-by-$p >&201; echo written-by-$p > $p/fd/201; done`,
      'echo attack-done',
    ].join('\n');
    server.clearLog();
    server.setResponder((req) =>
      req.body.messages.some((m) => m.role === 'assistant')
        ? textReply('done')
        : toolUseReply([{ name: 'Bash', input: { command: opaque(attack) } }]),
    );
    const r = await runLeaking(
      ['run', 'general-purpose', 'look around', '--permission-mode', 'bypassPermissions', '--cwd', project],
      { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, HOME: home },
      project,
      sink,
    );
    expect(r.code, r.stderr).toBe(0);
    const result = server.requests
      .flatMap((q) => toolResults(q.body))
      .map((b) => JSON.stringify(b.content))[0];
    expect(result).toContain('attack-done');
    expect(result).toContain(`[sandbox: ${backend === 'bwrap' ? 'bubblewrap' : 'unshare'}`);
    // The command's own table holds only its standard streams (and ls's own directory).
    expect(result).toMatch(/0 1 2 3 \\n/);
    expect(JSON.stringify(server.requests.map((q) => q.body))).not.toContain(canaries.outside);
    expect(await readFile(sink, 'utf8')).toBe('');
  }, 120_000);
});
