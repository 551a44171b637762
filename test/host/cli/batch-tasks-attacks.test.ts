// A batch's tasks file attacked by one of its own tasks, through the real CLI, the real SDK and the
// fake Messages API: a crashed batch that resumes reads the tasks file again, so a task's agent that
// appended a task to it would have that task run. While the batch runs the file is a protected
// path: readable by every task (Read works), changed by none, through the file tools (Write, Edit)
// in acceptEdits or through a command the shell policy cannot read in bypassPermissions.
import { mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { opaque } from './attack-world.js';
import { resultText, startScripted, type ScriptedServer } from './scripted-server.js';

let s: ScriptedServer;
let project: Awaited<ReturnType<typeof tempProject>>;

const cadre = (...args: string[]) =>
  runCli([...args, '--cwd', project.dir], { ...s.env, HOME: project.home }, project.dir);
/** The tool results in the latest request tagged `tag`. */
function lastResults(tag: string): { text: string; isError: boolean }[] {
  const body = JSON.parse(s.bodies(tag).at(-1) ?? '{}') as { messages: { content: unknown }[] };
  const blocks = body.messages.at(-1)?.content as { is_error?: boolean }[];
  return blocks.map((b) => ({ text: resultText(b as never), isError: b.is_error === true }));
}

beforeAll(async () => {
  project = await tempProject({ 'src/a.ts': 'export const a = 1;\n' });
  s = await startScripted();
});
afterAll(async () => {
  await s.server.close();
  await project.cleanup();
});

describe.each(['acceptEdits', 'bypassPermissions'])("a batch's tasks file, in %s", (mode) => {
  it('is readable by its tasks and changed by none of them', async () => {
    const tag = `adder-${mode.toLowerCase()}`;
    const rel = `batches/tasks-${mode}.jsonl`;
    const evil = JSON.stringify({ id: 'planted', agent: 'general-purpose', prompt: 'planted' });
    s.scripts.set(tag, [
      () =>
        toolUseReply([
          { name: 'Read', input: { file_path: rel } },
          { name: 'Write', input: { file_path: rel, content: `${evil}\n` } },
          { name: 'Edit', input: { file_path: rel, old_string: '"id"', new_string: '"id2"' } },
          {
            name: 'Bash',
            input: {
              command: opaque(
                `echo '${evil}' >> ${rel}; cp ${rel} t && echo '${evil}' >> t && mv t ${rel}; rm -f ${rel}; echo tried`,
              ),
            },
          },
        ]),
      () => textReply('done'),
    ]);
    const tasks = path.join(project.dir, rel);
    await mkdir(path.dirname(tasks), { recursive: true });
    const content = `${JSON.stringify({ id: tag, agent: 'general-purpose', prompt: `[[${tag}]] go` })}\n`;
    await writeFile(tasks, content);
    const r = await cadre('batch', tasks, '--out', `out-tasks-${mode}.jsonl`, '--permission-mode', mode);
    expect(r.code, r.stderr).toBe(0);
    const results = lastResults(tag);
    expect(results).toHaveLength(4);
    // Read works: the file is the task's to read.
    expect(results[0]?.isError).toBe(false);
    expect(results[0]?.text).toContain(tag);
    // Write and Edit are refused as writes to a protected path.
    for (const result of [results[1], results[2]]) {
      expect(result?.isError).toBe(true);
      expect(result?.text).toMatch(/protected/);
    }
    // Bypass runs the command (acceptEdits asks for what it cannot read, and nobody answers).
    if (mode === 'bypassPermissions') expect(results[3]?.text).toContain('tried');
    else expect(results[3]?.isError).toBe(true);
    expect(await readFile(tasks, 'utf8')).toBe(content);
  });
});

describe("a batch's tasks file reached through a symbolic link, in bypassPermissions", () => {
  it('can be swapped neither at the link nor behind it', async () => {
    const tag = 'linker';
    const evil = JSON.stringify({ id: 'planted', agent: 'general-purpose', prompt: 'planted' });
    s.scripts.set(tag, [
      () =>
        toolUseReply([
          { name: 'Read', input: { file_path: 'tasks-link.jsonl' } },
          { name: 'Write', input: { file_path: 'tasks-link.jsonl', content: `${evil}\n` } },
          {
            name: 'Bash',
            input: {
              command: opaque(
                `rm -f tasks-link.jsonl; echo '${evil}' > tasks-link.jsonl; echo '${evil}' >> linked/real-tasks.jsonl; echo tried`,
              ),
            },
          },
        ]),
      () => textReply('done'),
    ]);
    const real = path.join(project.dir, 'linked', 'real-tasks.jsonl');
    const link = path.join(project.dir, 'tasks-link.jsonl');
    await mkdir(path.dirname(real), { recursive: true });
    const content = `${JSON.stringify({ id: tag, agent: 'general-purpose', prompt: `[[${tag}]] go` })}\n`;
    await writeFile(real, content);
    await symlink('linked/real-tasks.jsonl', link);
    const r = await cadre('batch', link, '--out', 'out-link.jsonl', '--permission-mode', 'bypassPermissions');
    const results = lastResults(tag);
    expect(results, r.stderr).toHaveLength(3);
    expect(results[0]?.text).toContain(tag);
    expect(results[1]?.isError).toBe(true);
    expect(results[1]?.text).toMatch(/protected/);
    // The command does not run at all: a symbolic link on a protected path cannot be kept read-only.
    expect(results[2]?.isError).toBe(true);
    expect(results[2]?.text).toMatch(/tasks-link\.jsonl is a symbolic link/);
    expect(await readlink(link)).toBe('linked/real-tasks.jsonl');
    expect(await readFile(real, 'utf8')).toBe(content);
  });
});
