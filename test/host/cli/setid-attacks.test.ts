// Set-user-ID and set-group-ID files attacked through the real CLI: the real SDK against the fake
// Messages API plays a model in bypassPermissions (no prompts: the sandbox is the only boundary)
// that tries every way it knows to leave a file with either bit in the project, in one command the
// shell policy cannot read. Run as root and as an unprivileged user, under bwrap and under
// unshare: the project holds no such file afterwards, the copies themselves were made, and the
// ordinary mode changes in the same command worked.
import { chown } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliUser } from '../../support/cli.js';
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { NO_BWRAP, sandboxBackends } from '../capabilities/sandbox-fixture.js';
import {
  attemptsCommand,
  makeSetidTar,
  ORDINARY,
  ORDINARY_NAMES,
  SETID_ATTEMPTS,
  setidFiles,
} from '../capabilities/setid-attempts.js';
import { makeWorld, opaque, type World } from './attack-world.js';

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

describe.skipIf(scenarios.length === 0).each(scenarios)('$backend, as $who', ({ backend, user }) => {
  let world: World;
  beforeAll(async () => {
    world = await makeWorld(user, backend === 'unshare' ? { sandbox: { bwrapPath: NO_BWRAP } } : {});
    makeSetidTar(world.project);
    if (user !== undefined) await chown(path.join(world.project, 'setid.tar'), user.uid, user.gid);
  });
  afterAll(async () => {
    await world.cleanup();
  });

  it('a model leaves no set-user-ID or set-group-ID file in the project, and ordinary chmod works', async () => {
    const { project, home } = world;
    const command = opaque(`${attemptsCommand()}\n${ORDINARY}\necho attempts-done`);
    server.clearLog();
    server.setResponder((req) =>
      req.body.messages.some((m) => m.role === 'assistant')
        ? textReply('done')
        : toolUseReply([{ name: 'Bash', input: { command } }]),
    );
    const r = await runCli(
      [
        'run',
        'general-purpose',
        'set up the tools',
        '--permission-mode',
        'bypassPermissions',
        '--cwd',
        project,
      ],
      { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, HOME: home },
      project,
      user,
    );
    expect(r.code, r.stderr).toBe(0);
    const result = server.requests
      .flatMap((q) => toolResults(q.body))
      .map((b) => JSON.stringify(b.content))[0];
    expect(result).toContain('attempts-done');
    expect(result).toContain(`[sandbox: ${backend === 'bwrap' ? 'bubblewrap' : 'unshare'}`);
    expect(setidFiles(project), result).toEqual([]);
    // The copies were made (only their bits were refused), so the check above saw real files.
    for (const file of ['s-chmod', 's-us', 's-gs', 'sub/s-find', 's-perl'])
      expect(existsSync(path.join(project, file)), file).toBe(true);
    expect(SETID_ATTEMPTS.length).toBeGreaterThanOrEqual(10);
    for (const name of ORDINARY_NAMES) expect(result, name).toContain(`ok ${name}`);
  }, 120_000);
});
