import { describe, expect, it } from 'vitest';
import { readTool } from '../../../src/worker/tools/read.js';
import { writeTool } from '../../../src/worker/tools/write.js';
import { CWD, FakeProject } from './fake-capabilities.js';

describe('Write', () => {
  it('creates a new file without a prior read, and remembers it as read', async () => {
    const project = new FakeProject();
    const ctx = project.context();
    const result = await writeTool.run({ file_path: 'src/new.ts', content: 'hello\n' }, ctx);
    expect(result).toEqual({ content: 'File created successfully at src/new.ts (6 bytes).', isError: false });
    expect(project.files.get('src/new.ts')?.content).toBe('hello\n');
    expect(project.calls.find((c) => c.name === 'fs.write')?.request).toEqual({
      path: 'src/new.ts',
      content: 'hello\n',
    });
    expect(ctx.readState.has(`${CWD}/src/new.ts`)).toBe(true);
  });

  it('refuses to overwrite a file not read in this run, writing nothing', async () => {
    const project = new FakeProject({ 'a.txt': 'original' });
    const result = await writeTool.run({ file_path: 'a.txt', content: 'clobbered' }, project.context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^forbidden_operation: a.txt has not been read in this run/);
    expect(project.files.get('a.txt')?.content).toBe('original');
    expect(project.count('fs.write')).toBe(0);
  });

  it('overwrites a read file, passing the mtime it read as expectedMtimeMs', async () => {
    const project = new FakeProject({ 'a.txt': 'original' });
    const ctx = project.context();
    await readTool.run({ file_path: 'a.txt' }, ctx);
    const seen = project.files.get('a.txt')?.mtimeMs;
    // The same file named by its absolute path is the same read-state entry.
    const result = await writeTool.run({ file_path: `${CWD}/a.txt`, content: 'new' }, ctx);
    expect(result).toEqual({ content: `File ${CWD}/a.txt has been overwritten (3 bytes).`, isError: false });
    expect(project.calls.find((c) => c.name === 'fs.write')?.request).toMatchObject({
      expectedMtimeMs: seen,
    });
    expect(project.files.get('a.txt')?.content).toBe('new');
  });

  it('refuses a file changed since it was read', async () => {
    const project = new FakeProject({ 'a.txt': 'original' });
    const ctx = project.context();
    await readTool.run({ file_path: 'a.txt' }, ctx);
    project.put('a.txt', 'changed by the user');
    const result = await writeTool.run({ file_path: 'a.txt', content: 'new' }, ctx);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^stale_file: /);
    expect(project.files.get('a.txt')?.content).toBe('changed by the user');
  });

  it('surfaces a policy denial as an error result with its code and message', async () => {
    const project = new FakeProject();
    project.denials.set('fs.write', {
      code: 'permission_denied',
      message: 'writes need approval in default mode; allow with --permission-mode acceptEdits',
    });
    const result = await writeTool.run({ file_path: 'b.txt', content: 'x' }, project.context());
    expect(result).toEqual({
      content:
        'permission_denied: writes need approval in default mode; allow with --permission-mode acceptEdits',
      isError: true,
    });
  });
});
