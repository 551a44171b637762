import { describe, expect, it } from 'vitest';
import type { ExecRunResult } from '../../../src/shared/capabilities.js';
import { bashTool, DEFAULT_BASH_TIMEOUT_MS } from '../../../src/worker/tools/bash.js';
import { FakeProject } from './fake-capabilities.js';

const base: ExecRunResult = {
  exitCode: 0,
  signal: null,
  stdout: '',
  stderr: '',
  timedOut: false,
  truncated: false,
  sandbox: 'bwrap',
  durationMs: 5,
};

function projectWith(result: Partial<ExecRunResult>): FakeProject {
  const project = new FakeProject();
  project.exec = () => ({ ...base, ...result });
  return project;
}

describe('Bash', () => {
  it('shows stdout, the exit code and the sandbox mode', async () => {
    const project = projectWith({ stdout: 'hello\n' });
    const result = await bashTool.run({ command: 'echo hello', description: 'Say hello' }, project.context());
    expect(result).toEqual({
      content:
        'hello\nExit code: 0\n[sandbox: bubblewrap — no network; only the project (not its protected paths), a private /tmp and home writable; secrets hidden]',
      isError: false,
    });
    expect(project.calls[0]?.request).toEqual({
      command: 'echo hello',
      timeoutMs: DEFAULT_BASH_TIMEOUT_MS,
      description: 'Say hello',
    });
  });

  it('treats a non-zero exit as output, not as a tool error, and labels stderr', async () => {
    const project = projectWith({ stdout: 'partial', stderr: 'boom\n', exitCode: 2, sandbox: 'none' });
    const result = await bashTool.run({ command: 'false', timeout: 5000 }, project.context());
    expect(result.isError).toBe(false);
    expect(result.content).toBe(
      'partial\n[stderr]\nboom\nExit code: 2\n[sandbox: none — "sandbox": "off" in config: the command ran without isolation]',
    );
    expect(project.calls[0]?.request).toMatchObject({ timeoutMs: 5000 });
  });

  it('names the unshare backend and shows what the sandbox had to do afterwards', async () => {
    const project = projectWith({
      stdout: 'ok\n',
      sandbox: 'unshare',
      notices: ['.vscode appeared in the project while a command ran with it protected; it was moved aside'],
    });
    const result = await bashTool.run({ command: 'true' }, project.context());
    expect(result.content).toBe(
      'ok\nExit code: 0\n[.vscode appeared in the project while a command ran with it protected; it was moved aside]\n' +
        '[sandbox: unshare — no network; only the project (not its protected paths), a private /tmp and home writable; secrets hidden]',
    );
  });

  it('marks a timed-out command as an error and says so, with no output', async () => {
    const project = projectWith({ timedOut: true, exitCode: null, signal: 'SIGKILL', truncated: true });
    const result = await bashTool.run({ command: 'sleep 99', timeout: 1000 }, project.context());
    expect(result.isError).toBe(true);
    expect(result.content).toContain('(no output)');
    expect(result.content).toContain('[output truncated: only the first part is shown]');
    expect(result.content).toContain('Command timed out after 1000 ms and was killed.');
    expect(result.content).toContain('Exit code: none');
  });

  it('reports a denied command with the policy message', async () => {
    const project = projectWith({});
    project.denials.set('exec.run', {
      code: 'approval_denied',
      message: 'Bash(rm -rf /) denied by rule deny: Bash(rm:*)',
    });
    const result = await bashTool.run({ command: 'rm -rf /' }, project.context());
    expect(result).toEqual({
      content: 'approval_denied: Bash(rm -rf /) denied by rule deny: Bash(rm:*)',
      isError: true,
    });
  });

  it('refuses a timeout above ten minutes, naming the field', async () => {
    const result = await bashTool.run({ command: 'ls', timeout: 700_000 }, projectWith({}).context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^invalid_input: Bash input: timeout: /);
  });
});
