import { describe, expect, it } from 'vitest';
import { editTool } from '../../../src/worker/tools/edit.js';
import { readTool } from '../../../src/worker/tools/read.js';
import type { ToolContext } from '../../../src/worker/tools/tool.js';
import { FakeProject } from './fake-capabilities.js';

const SOURCE = [
  'import x from "x";',
  '',
  'function a() {',
  '  return 1;',
  '}',
  '',
  'function b() {',
  '  return 1;',
  '}',
  '',
].join('\n');

async function readFirst(files: Record<string, string>): Promise<{ project: FakeProject; ctx: ToolContext }> {
  const project = new FakeProject(files);
  const ctx = project.context();
  for (const path of Object.keys(files)) await readTool.run({ file_path: path }, ctx);
  return { project, ctx };
}

describe('Edit', () => {
  it('replaces a unique match and shows the edited region with line numbers', async () => {
    const { project, ctx } = await readFirst({ 'a.ts': SOURCE });
    const result = await editTool.run(
      {
        file_path: 'a.ts',
        old_string: 'function b() {\n  return 1;',
        new_string: 'function b() {\n  return 2;',
      },
      ctx,
    );
    expect(result.isError).toBe(false);
    const at = SOURCE.lastIndexOf('return 1;');
    expect(project.files.get('a.ts')?.content).toBe(
      `${SOURCE.slice(0, at)}return 2;${SOURCE.slice(at + 'return 1;'.length)}`,
    );
    expect(result.content).toContain('The file a.ts has been updated.');
    expect(result.content).toContain(`${String(8).padStart(6)}\t  return 2;`);
    expect(result.content).toContain(`${String(3).padStart(6)}\tfunction a() {`);
  });

  it('refuses an ambiguous old_string, saying how many matches and what to do', async () => {
    const { project, ctx } = await readFirst({ 'a.ts': SOURCE });
    const result = await editTool.run(
      { file_path: 'a.ts', old_string: 'return 1;', new_string: 'return 2;' },
      ctx,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toContain('matches 2 places');
    expect(result.content).toContain('replace_all');
    expect(project.files.get('a.ts')?.content).toBe(SOURCE);
  });

  it('replaces every occurrence with replace_all, literally (no $ patterns)', async () => {
    const { project, ctx } = await readFirst({ 'a.ts': SOURCE });
    const result = await editTool.run(
      { file_path: 'a.ts', old_string: 'return 1;', new_string: "return '$&';", replace_all: true },
      ctx,
    );
    expect(result.isError).toBe(false);
    expect(result.content).toContain('all 2 occurrences replaced');
    expect(project.files.get('a.ts')?.content).toBe(SOURCE.split('return 1;').join("return '$&';"));
  });

  it('reports a missing old_string, with a hint when it carries Read line numbers', async () => {
    const { ctx } = await readFirst({ 'a.ts': SOURCE });
    const missing = await editTool.run({ file_path: 'a.ts', old_string: 'return 3;', new_string: 'x' }, ctx);
    expect(missing.isError).toBe(true);
    expect(missing.content).toMatch(/^not_found: old_string was not found in a.ts/);
    const numbered = await editTool.run(
      { file_path: 'a.ts', old_string: '     4\t  return 1;', new_string: 'x' },
      ctx,
    );
    expect(numbered.content).toContain('line-number prefixes');
  });

  it('refuses old_string equal to new_string before touching anything', async () => {
    const project = new FakeProject({ 'a.ts': SOURCE });
    const result = await editTool.run(
      { file_path: 'a.ts', old_string: 'a', new_string: 'a' },
      project.context(),
    );
    expect(result).toMatchObject({ isError: true, content: expect.stringContaining('identical') });
    expect(project.calls).toHaveLength(0);
  });

  it('refuses a file not read in this run', async () => {
    const project = new FakeProject({ 'a.ts': SOURCE });
    const result = await editTool.run(
      { file_path: 'a.ts', old_string: 'function a', new_string: 'function z' },
      project.context(),
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^forbidden_operation: a.ts has not been read in this run/);
    expect(project.count('fs.write')).toBe(0);
  });

  it('refuses a file changed since it was read (stale)', async () => {
    const { project, ctx } = await readFirst({ 'a.ts': SOURCE });
    project.put('a.ts', `${SOURCE}// added by a linter\n`);
    const result = await editTool.run(
      { file_path: 'a.ts', old_string: 'function a', new_string: 'function z' },
      ctx,
    );
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^stale_file: a.ts has been modified since it was read/);
    expect(project.count('fs.write')).toBe(0);
  });

  it('passes expectedMtimeMs, so a change racing the edit is refused by the host', async () => {
    const { project, ctx } = await readFirst({ 'a.ts': SOURCE });
    const seen = project.files.get('a.ts')?.mtimeMs;
    await editTool.run({ file_path: 'a.ts', old_string: 'function a', new_string: 'function z' }, ctx);
    expect(project.calls.find((c) => c.name === 'fs.write')?.request).toMatchObject({
      expectedMtimeMs: seen,
    });
    // The run's own edit updates the read state: a second edit needs no new Read.
    const again = await editTool.run(
      { file_path: 'a.ts', old_string: 'function z', new_string: 'function y' },
      ctx,
    );
    expect(again.isError).toBe(false);
    expect(project.files.get('a.ts')?.content).toContain('function y()');
  });

  it('creates a missing file from an empty old_string, and refuses an empty old_string on an existing one', async () => {
    const { project, ctx } = await readFirst({ 'a.ts': SOURCE });
    const created = await editTool.run(
      { file_path: 'new.ts', old_string: '', new_string: 'export {};\n' },
      ctx,
    );
    expect(created).toEqual({ content: 'Created new.ts (11 bytes).', isError: false });
    expect(project.files.get('new.ts')?.content).toBe('export {};\n');
    const refused = await editTool.run({ file_path: 'a.ts', old_string: '', new_string: 'x' }, ctx);
    expect(refused.isError).toBe(true);
    const absent = await editTool.run({ file_path: 'ghost.ts', old_string: 'x', new_string: 'y' }, ctx);
    expect(absent.content).toMatch(/^not_found: ghost.ts does not exist/);
  });

  it('matches \\n in old_string against a CRLF file and keeps its line endings', async () => {
    const { project, ctx } = await readFirst({ 'w.txt': 'one\r\ntwo\r\nthree\r\n' });
    const result = await editTool.run(
      { file_path: 'w.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' },
      ctx,
    );
    expect(result.isError).toBe(false);
    expect(project.files.get('w.txt')?.content).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('says a file over the host read cap is too large to edit', async () => {
    const { project, ctx } = await readFirst({ 'huge.log': 'x\n' });
    project.denials.set('fs.read', {
      code: 'too_large',
      message: 'over the read cap; read part of it with offset and limit',
    });
    const result = await editTool.run({ file_path: 'huge.log', old_string: 'x', new_string: 'y' }, ctx);
    expect(result).toEqual({
      content: 'too_large: huge.log is too large to edit in one piece (2 bytes). Use Bash or Write.',
      isError: true,
    });
  });
});
