import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { sandboxedServerCommand } from '../../../../src/host/capabilities/mcp/sandbox-command.js';
import { probeSandbox } from '../../../../src/host/capabilities/sandbox.js';

const run = promisify(execFile);
const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tmpDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

describe('a sandboxed MCP server kept under /tmp', () => {
  it('runs from its own directory there, and the rest of /tmp stays hidden', async () => {
    const status = await probeSandbox();
    if (!status.available || !os.tmpdir().startsWith('/tmp')) return;
    const programDir = await tmpDir('cadre-mcp-program-');
    const other = await tmpDir('cadre-mcp-other-');
    const project = await tmpDir('cadre-mcp-project-');
    const state = await tmpDir('cadre-mcp-state-');
    await writeFile(path.join(other, 'secret.txt'), 'hidden');
    const script = path.join(programDir, 'server.mjs');
    await writeFile(
      script,
      `import { existsSync } from 'node:fs';\nconsole.log(JSON.stringify({ ran: true, sees: existsSync(${JSON.stringify(path.join(other, 'secret.txt'))}) }));\n`,
    );
    const cmd = await sandboxedServerCommand(
      {
        type: 'stdio',
        command: process.execPath,
        args: [script],
        env: {},
        cwd: project,
        sandbox: { network: false, writable: [] },
      },
      { mode: 'auto', projectDir: project, stateDir: state, home: os.homedir(), status },
    );
    expect(cmd.sandbox).toBe('bwrap');
    const out = await run(cmd.file, cmd.args, { cwd: cmd.cwd, env: cmd.env });
    expect(JSON.parse(out.stdout)).toEqual({ ran: true, sees: false });
  });
});

describe('a sandboxed MCP server', () => {
  it('runs under the set-ID seccomp filter: a file it writes gets no set-user-ID bit', async () => {
    const status = await probeSandbox();
    if (!status.available || status.mode !== 'bwrap') return;
    const project = await tmpDir('cadre-mcp-project-');
    const state = await tmpDir('cadre-mcp-state-');
    const cmd = await sandboxedServerCommand(
      {
        type: 'stdio',
        command: '/bin/sh',
        args: [
          '-c',
          'grep "^Seccomp:" /proc/self/status; cp /usr/bin/env x; chmod 4755 x; echo "4755 $?"; chmod 755 x; echo "755 $?"',
        ],
        env: {},
        cwd: state,
        sandbox: { network: false, writable: [] },
      },
      { mode: 'auto', projectDir: project, stateDir: state, home: os.homedir(), status },
    );
    expect(cmd.sandbox).toBe('bwrap');
    const out = await run(cmd.file, cmd.args, { cwd: cmd.cwd, env: cmd.env });
    expect(out.stdout).toMatch(/^Seccomp:\s+2$/m);
    expect(out.stdout).toMatch(/^4755 1$/m);
    expect(out.stdout).toMatch(/^755 0$/m);
    expect((await stat(path.join(state, 'x'))).mode & 0o7777).toBe(0o755);
  });
});
