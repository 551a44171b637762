// The sandbox's modes as a user meets them through the CLI: no command runs where no sandbox works
// (bypass included), and the user is told why and how to fix it; "off" is the one opt-out, loud on
// every run and in every result, and never combined with bypassPermissions; a project cannot turn
// the sandbox off or choose its program; `cadre doctor` says what is in force and tests it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, runCli, startCli, type CliUser } from '../../support/cli.js';
import {
  startFakeAnthropic,
  textReply,
  toolResults,
  toolUseReply,
  type FakeAnthropic,
} from '../../support/fake-anthropic.js';
import { tempProject } from '../../support/project.js';
import { NO_BWRAP, sandboxBackends, survivors, survivorsAfter } from '../capabilities/sandbox-fixture.js';

const { available } = await sandboxBackends();
const asRoot = process.getuid?.() === 0;

let server: FakeAnthropic;
let world: Awaited<ReturnType<typeof tempProject>>;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  world = await tempProject({ 'src/a.ts': 'export const a = 1;\n' });
  return () => world.cleanup();
});

/** Scripts the model to run `commands` with Bash, one per turn, then end. */
function script(commands: string[]): void {
  server.clearLog();
  server.setResponder((req) => {
    const turn = req.body.messages.filter((m) => m.role === 'assistant').length;
    const command = commands[turn];
    return command === undefined ? textReply('done') : toolUseReply([{ name: 'Bash', input: { command } }]);
  });
}

function results(): string[] {
  return server.requests.flatMap((q) => toolResults(q.body)).map((b) => JSON.stringify(b.content));
}

async function config(dir: string, value: object): Promise<void> {
  await mkdir(path.join(dir, '.cadre'), { recursive: true });
  await writeFile(path.join(dir, '.cadre', 'config.json'), JSON.stringify(value));
}

const run = (mode: string, extra: string[] = []) =>
  runCli(
    ['run', 'general-purpose', 'go', '--permission-mode', mode, '--cwd', world.dir, ...extra],
    { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, HOME: world.home },
    world.dir,
  );

describe.skipIf(!asRoot)('with neither backend working', () => {
  // A bwrap that does not work, named in the user's config, and user namespaces made unusable
  // for the CLI by the system state around it (a user namespace whose limit on nested ones is 0).
  const confined = (args: string[], user?: CliUser) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const limit = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"';
      const drop = user
        ? ['/usr/bin/setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups']
        : [];
      const [file, ...rest] = [
        ...drop,
        '/usr/bin/unshare',
        ...['--user', '--map-root-user', '/bin/sh', '-c', limit, 'sh', process.execPath, CLI, ...args],
      ];
      const child = spawn(file as string, rest, {
        cwd: world.dir,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: world.home,
          ANTHROPIC_API_KEY: 'k',
          ANTHROPIC_BASE_URL: server.url,
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  it.each([
    ['root', undefined],
    ['an unprivileged user (uid 65534)', { uid: 65534, gid: 65534 }],
  ])(
    'runs no command in any mode, bypass included, and says why and how to fix it, as %s',
    async (_who, user) => {
      await config(world.home, { sandbox: { bwrapPath: '/bin/false' } });
      if (user) execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, path.dirname(world.dir)]);
      script([`touch ${path.join(world.dir, 'ran-1')}`, `touch ${path.join(world.dir, 'ran-2')}`]);
      const r = await confined(
        ['run', 'general-purpose', 'go', '--permission-mode', 'bypassPermissions', '--cwd', world.dir],
        user,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(path.join(world.dir, 'ran-1'))).toBe(false);
      expect(existsSync(path.join(world.dir, 'ran-2'))).toBe(false);
      const [first, second] = results();
      for (const result of [first, second]) {
        expect(result).toMatch(/sandbox_unavailable: no command runs without a sandbox, and none works here/);
        // Root: /bin/false runs and fails; uid 65534 in its namespace: /bin/false is not even trusted.
        expect(result).toMatch(/bwrap: [^;]*\/false (--version failed|can be changed by other users)/);
        expect(result).toMatch(/unshare cannot make a sandbox here/);
        expect(result).toContain('\\"sandbox\\": \\"off\\" in ~/.cadre/config.json');
      }
      // stderr: the whole reason once, then a line per refused command.
      expect(r.stderr).toMatch(
        /cadre: warning: a command of general-purpose-\w+ was not run: no command runs without a sandbox[\s\S]*user\.max_user_namespaces[\s\S]*"sandbox": "off"/,
      );
      expect(r.stderr).toMatch(/was not run: no sandbox works here \(see above\)/);
      // And doctor says the same, with the fix, and fails.
      const doctor = await confined(['doctor', '--cwd', world.dir], user);
      expect(doctor.code).toBe(1);
      expect(doctor.stdout).toMatch(/commands run: +not at all/);
      expect(doctor.stdout).toMatch(/how to fix:[\s\S]*sysctl -w user\.max_user_namespaces/);
    },
    60_000,
  );
});

describe.skipIf(available.length === 0)('modes', () => {
  it('"off" warns on every run, says so in every result, and never runs under bypassPermissions', async () => {
    await config(world.home, { sandbox: 'off', permissions: { allow: ['Bash(echo:*)'] } });
    script(['echo unsandboxed']);
    const r = await run('default');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /cadre: warning: the command sandbox is off \("sandbox": "off" in ~\/\.cadre\/config\.json\)/,
    );
    expect(results()[0]).toMatch(
      /unsandboxed\\nExit code: 0\\n\[sandbox: none — \\"sandbox\\": \\"off\\" in config: the command ran without isolation\]/,
    );
    script([`touch ${path.join(world.dir, 'ran')}`]);
    const bypass = await run('bypassPermissions');
    // The refused command did not take effect, so the run exits 1 and says so.
    expect(bypass.code).toBe(1);
    expect(bypass.stderr).toMatch(/refused/);
    expect(results()[0]).toMatch(
      /permission_denied: bypassPermissions runs commands only inside the sandbox/,
    );
    expect(existsSync(path.join(world.dir, 'ran'))).toBe(false);
  }, 60_000);

  it("a project's config cannot turn the sandbox off or pick its program, and says it tried", async () => {
    await config(world.dir, { sandbox: { mode: 'off', bwrapPath: '/tmp/evil-bwrap' } });
    script(['cat /proc/self/status | grep CapBnd']);
    const r = await run('bypassPermissions');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /warning: sandbox\.mode "off" in the \.cadre\/config\.json of the project is ignored/,
    );
    expect(r.stderr).toMatch(
      /warning: sandbox\.bwrapPath in the \.cadre\/config\.json of the project is ignored/,
    );
    expect(results()[0]).toMatch(/CapBnd:\\t0+\\n[\s\S]*\[sandbox: (bubblewrap|unshare) —/);
  }, 60_000);

  it('a CLI killed outright (SIGKILL) mid-command leaves no process behind, under each backend', async () => {
    for (const backend of available) {
      await config(world.home, backend.name === 'unshare' ? { sandbox: { bwrapPath: NO_BWRAP } } : {});
      const marker = `killed-cli-${backend.name}-${process.pid}-${Date.now()}`;
      script([`bash -c 'sleep 3600; :' ${marker} & setsid bash -c 'sleep 3600; :' ${marker}`]);
      const { child, done } = startCli(
        ['run', 'general-purpose', 'go', '--permission-mode', 'bypassPermissions', '--cwd', world.dir],
        { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url, HOME: world.home },
        world.dir,
      );
      try {
        // Up to 30 s for the CLI to start, ask the model and start both (about 1.5 s when quiet).
        for (let i = 0; i < 600 && (await survivors(marker)).length < 2; i++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        expect((await survivors(marker)).length).toBeGreaterThanOrEqual(2);
      } finally {
        child.kill('SIGKILL');
        await done;
      }
      expect(await survivorsAfter(marker), backend.name).toEqual([]);
    }
  }, 120_000);

  it('cadre doctor reports the backend in force and passes its self-test, under each backend', async () => {
    for (const backend of available) {
      await config(world.home, backend.name === 'unshare' ? { sandbox: { bwrapPath: NO_BWRAP } } : {});
      const r = await runCli(['doctor', '--json', '--cwd', world.dir], { HOME: world.home }, world.dir);
      expect(r.code, r.stdout).toBe(0);
      const report = JSON.parse(r.stdout) as {
        ok: boolean;
        commandsRun: string;
        selfTest: { name: string; ok: boolean }[];
      };
      expect(report).toMatchObject({ ok: true, commandsRun: `sandboxed (${backend.name})` });
      expect(report.selfTest.map((c) => [c.name, c.ok])).toEqual([
        ['network blocked', true],
        ['outside write refused', true],
        ['hidden secret unreadable', true],
        ['no capabilities', true],
        ['no host processes visible', true],
        ['protected paths read-only', true],
        ['set-user-ID files refused', true],
      ]);
    }
  }, 120_000);
});
