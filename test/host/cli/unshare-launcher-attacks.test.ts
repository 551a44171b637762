// The unshare backend's launcher attacked through the real CLI: the real SDK against the fake
// Messages API plays a model in bypassPermissions (the sandbox is the only boundary), as root and
// as an unprivileged user. Its commands try to outlive cadre by becoming the namespace's PID 1
// (`exec`), clearing their parent-death signal and leaving cadre's process group with setsid: once
// by SIGKILLing the launcher through the group, once by waiting for cadre's timeout to kill it. No
// process is left behind; ordinary exit codes and a command's own signal still come through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliUser } from '../../support/cli.js';
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { NO_BWRAP, sandboxBackends, survivors, survivorsAfter } from '../capabilities/sandbox-fixture.js';
import { makeWorld, opaque, type World } from './attack-world.js';

const NOBODY: CliUser = { uid: 65534, gid: 65534 };
const { available } = await sandboxBackends();
const asRoot = process.getuid?.() === 0;
/** prctl's number here (PR_SET_PDEATHSIG is option 1). */
const PRCTL = process.arch === 'arm64' ? 167 : 157;

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

const users = [
  { user: undefined, who: asRoot ? 'root' : 'the current user' },
  ...(asRoot ? [{ user: NOBODY, who: 'an unprivileged user (uid 65534)' }] : []),
];
const unshare = available.some((b) => b.name === 'unshare');

/**
 * A perl that replaces the command's first process (`exec`, all the way down: a pipeline's bash
 * would not be it), stops dying with its parent, and leaves the group. The shell policy cannot read
 * it (a substitution), so only the sandbox stands in its way.
 */
function escape(marker: string, killLauncher: boolean): string {
  const kill = killLauncher ? 'kill "KILL", 0; ' : '';
  const perl = `exec perl -e 'require POSIX; $0 = "${marker}"; syscall(${PRCTL}, 1, 0, 0, 0, 0); ${kill}POSIX::setsid(); sleep 3600'`;
  return `exec bash -c "$(echo ${Buffer.from(perl).toString('base64')} | base64 -d)"`;
}

describe.skipIf(!unshare).each(users)('unshare, as $who', ({ user }) => {
  let world: World;
  beforeAll(async () => {
    world = await makeWorld(user, { sandbox: { bwrapPath: NO_BWRAP } });
  });
  afterAll(async () => {
    // A regression must not leave its escapees running on the machine.
    for (const pid of await survivors(world.marker)) process.kill(pid, 'SIGKILL');
    await world.cleanup();
  });

  it("a command that makes itself the namespace's init leaves no process behind; exit codes and signals come through", async () => {
    const { project, home, marker } = world;
    const calls = [
      { command: escape(`${marker}-kill`, true) },
      { command: escape(`${marker}-wait`, false), timeout: 1500 },
      { command: opaque('echo control-ran; exit 3') },
      { command: opaque('echo before-term; kill -TERM $$; echo after-term') },
    ];
    server.clearLog();
    server.setResponder((req) =>
      req.body.messages.some((m) => m.role === 'assistant')
        ? textReply('done')
        : toolUseReply(calls.map((input) => ({ name: 'Bash', input }))),
    );
    const r = await runCli(
      ['run', 'general-purpose', 'tidy up', '--permission-mode', 'bypassPermissions', '--cwd', project],
      { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.url, HOME: home },
      project,
      user,
    );
    expect(r.code, r.stderr).toBe(0);
    // Gone once the CLI has exited: nothing from the attack survives it.
    expect(await survivorsAfter(marker, 3000)).toEqual([]);
    const results = server.requests.flatMap((q) => toolResults(q.body)).map((b) => JSON.stringify(b.content));
    expect(results).toHaveLength(calls.length);
    for (const result of results) expect(result).toContain('[sandbox: unshare');
    const [killed, waited, control, term] = results as [string, string, string, string];
    expect(killed).toContain('killed by signal SIGKILL');
    expect(waited).toContain('Command timed out after 1500 ms');
    expect(control).toContain('control-ran');
    expect(control).toContain('Exit code: 3');
    expect(term).toContain('before-term');
    expect(term).not.toContain('after-term');
    // `$$` is the bash that base64 feeds: the shell around it reports its end.
    expect(term).toContain('Exit code: 143');
  }, 120_000);
});
