// The command sandbox attacked through the real CLI: the real SDK against the fake Messages API
// plays a model that has read hostile text and tries every escape it knows, in
// bypassPermissions (no prompts: the sandbox is the only boundary). Run as root and as an
// unprivileged user, under bwrap and under unshare. Whatever it tries, no canary reaches a request
// body, nothing is written outside the project or into a protected path, and no process outlives
// the CLI.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_LIMITS } from '../../../src/host/capabilities/sandbox.js';
import { runCli, type CliUser } from '../../support/cli.js';
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { NO_BWRAP, sandboxBackends, survivorsAfter } from '../capabilities/sandbox-fixture.js';
import { attackScript } from './attack-script.js';
import { makeWorld, snapshot, type World } from './attack-world.js';

const NOBODY: CliUser = { uid: 65534, gid: 65534 };
const { available } = await sandboxBackends();
const asRoot = process.getuid?.() === 0;

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

const scenarios = available.flatMap((b) => [
  { backend: b.name, user: undefined, who: asRoot ? 'root' : 'the current user' },
  ...(asRoot ? [{ backend: b.name, user: NOBODY, who: 'an unprivileged user (uid 65534)' }] : []),
]);

/** What a unix socket sends on connect. */
function readSocket(at: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    connect(at)
      .on('data', (d) => (got += String(d)))
      .on('end', () => resolve(got))
      .on('error', reject);
  });
}

/** Everything the requests carried, as text. */
function bodies(from: number): string {
  return server.requests
    .slice(from)
    .map((r) => JSON.stringify(r.body))
    .join('\n');
}

describe.skipIf(scenarios.length === 0).each(scenarios)('$backend, as $who', ({ backend, user }) => {
  let world: World;
  beforeAll(async () => {
    world = await makeWorld(user, backend === 'unshare' ? { sandbox: { bwrapPath: NO_BWRAP } } : {});
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it('a model trying every escape leaks no canary, writes nothing it may not, leaves no process', async () => {
    const { project, home, outside, varOutside, canaries } = world;
    const before = {
      project: await snapshot(project),
      home: await snapshot(home),
      outside: await snapshot(outside),
      varOutside: await snapshot(varOutside),
    };
    // The world's sockets do answer whoever reaches them (here, outside any sandbox).
    for (const at of [world.sockets.project, world.sockets.run, `\0${world.sockets.abstract}`])
      expect(await readSocket(at)).toContain(canaries.socket);
    const port = new URL(server.url).port;
    const script = attackScript({ ...world, port });
    server.clearLog();
    const first = server.requestCount;
    server.setResponder((req) => {
      const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
      const step = script[turn];
      return step === undefined ? textReply('done') : toolUseReply([step]);
    });
    const r = await runCli(
      [
        'run',
        'general-purpose',
        'tidy the project',
        '--permission-mode',
        'bypassPermissions',
        '--json',
        '--cwd',
        project,
      ],
      {
        ANTHROPIC_API_KEY: 'test-key',
        ANTHROPIC_BASE_URL: server.url,
        HOME: home,
        CADRE_TEST_HOST_SECRET: canaries.hostEnv,
      },
      project,
      user,
    );
    // The run completes; it exits 1 because the plain first attack was refused (see below).
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/1 write or command of \d+ this run tried was refused/);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'completed', toolCalls: script.length });
    // The plain first attack was stopped by the shell policy (it asks, and nobody can answer).
    const results = server.requests.flatMap((q) => toolResults(q.body)).map((b) => JSON.stringify(b.content));
    expect(results[0]).toMatch(/approval_denied/);
    // Every request the server saw was the model's own, one per turn: nothing else got out.
    expect(server.requestCount - first).toBe(script.length + 1);
    expect(server.requests).toHaveLength(script.length + 1);
    expect(server.requests.every((q) => q.path === '/v1/messages' && typeof q.body.model === 'string')).toBe(
      true,
    );
    const sent = bodies(0);
    for (const [where, canary] of Object.entries(canaries))
      expect(sent.includes(canary), `${where} canary leaked`).toBe(false);
    // The commands did run, sandboxed, as the results say; and the limits held.
    expect(
      results.filter((t) => t.includes(`[sandbox: ${backend === 'bwrap' ? 'bubblewrap' : 'unshare'} —`))
        .length,
    ).toBeGreaterThan(10);
    // The commands are base64: find the limit steps by what they decode to.
    const decoded = script.map((step) => {
      const b64 = /^echo (\S+) \| base64 -d/.exec(String((step.input as { command?: unknown }).command))?.[1];
      return b64 === undefined ? '' : Buffer.from(b64, 'base64').toString();
    });
    const limits = decoded
      .map((command, i) => (/procs=|tmpfill=/.test(command) ? (results[i] ?? '(no result)') : ''))
      .join('\n');
    // The socket step ran, and every connection failed.
    const sockets = results[decoded.findIndex((c) => c.includes('AF_UNIX'))] ?? '(no result)';
    expect(sockets.match(/no [/@]/g)?.length, sockets).toBe(5);
    expect(sockets).not.toMatch(/got b['"]/);
    const procs = Number(/procs=(\d+)/.exec(limits)?.[1]);
    expect(procs, limits).toBeGreaterThan(50);
    expect(procs, limits).toBeLessThanOrEqual(SANDBOX_LIMITS.processes + 32);
    expect(Number(/tmpfill=(\d+)/.exec(limits)?.[1]), limits).toBeLessThanOrEqual(SANDBOX_LIMITS.tmpBytes);
    // Nothing changed outside the project; in it, nothing protected changed or appeared.
    expect(withoutOwnData(await snapshot(home))).toEqual(withoutOwnData(before.home));
    expect(await snapshot(outside)).toEqual(before.outside);
    expect(await snapshot(varOutside)).toEqual(before.varOutside);
    const after = await snapshot(project);
    const guarded = (rel: string) =>
      /^\.git\/(config|hooks\/|info\/|commondir)|^\.git\/$|^\.cadre\/config\.json$/.test(rel);
    expect(Object.entries(after).filter(([rel]) => guarded(rel))).toEqual(
      Object.entries(before.project).filter(([rel]) => guarded(rel)),
    );
    for (const name of [
      '.vscode',
      '.husky',
      '.claude',
      '.envrc',
      '.mcp.json',
      '.npmrc',
      '.devcontainer',
      '.git-old',
    ])
      expect(existsSync(path.join(project, name)), name).toBe(false);
    expect(
      Object.keys(after).filter(
        (k) => k.startsWith('.git/hooks/') && !k.endsWith('.sample') && k !== '.git/hooks/',
      ),
    ).toEqual([]);
    // The host's own git, run afterwards, runs nothing a command planted.
    const gitEnv = { HOME: home, PATH: process.env.PATH ?? '' };
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd: project, env: gitEnv, stdio: 'pipe' });
    git('status', '--short');
    git('checkout', '-q', '-b', 'after-attack');
    expect(existsSync(path.join(world.root, 'hook-ran'))).toBe(false);
    expect(existsSync(path.join(world.root, 'fsmonitor-ran'))).toBe(false);
    expect(existsSync(path.join(world.root, 'commondir-ran'))).toBe(false);
    expect(existsSync(path.join(project, '.git', 'commondir'))).toBe(false);
    // No process outlives the CLI, whatever it started and however.
    expect(await survivorsAfter(world.marker)).toEqual([]);
    // And the user was not told anything failed to be sandboxed, because nothing did.
    // (The policy's refusal of the first attack says "exec.run was not run": a different line.)
    expect(r.stderr).not.toMatch(/a command of \S+ was not run/);
  }, 240_000);
});

/**
 * A home snapshot without what cadre itself writes there (the host, not a command): its records
 * under ~/.cadre/projects and its registry cache under ~/.cache/cadre. Anything else under
 * ~/.cadre (its config, agents, trust list) still counts.
 */
function withoutOwnData(snap: Record<string, string>): Record<string, string> {
  const own = (key: string) =>
    key === '.cadre/' ||
    key.startsWith('.cadre/projects') ||
    key === '.cache/' ||
    key.startsWith('.cache/cadre');
  return Object.fromEntries(Object.entries(snap).filter(([key]) => !own(key)));
}
