import { describe, expect, it } from 'vitest';
import { GLOB_RESULT_LIMIT, globTool } from '../../../src/worker/tools/glob.js';
import { FakeProject } from './fake-capabilities.js';

describe('Glob', () => {
  it('returns matching paths newest first', async () => {
    const project = new FakeProject({ 'src/old.ts': '', 'README.md': '', 'src/lib/new.ts': '' });
    const result = await globTool.run({ pattern: '**/*.ts' }, project.context());
    expect(result).toEqual({ content: 'src/lib/new.ts\nsrc/old.ts', isError: false });
  });

  it('passes path and the result limit to fs.glob', async () => {
    const project = new FakeProject({ 'src/a.ts': '', 'b.ts': '' });
    const result = await globTool.run({ pattern: '*.ts', path: 'src' }, project.context());
    expect(project.calls[0]?.request).toEqual({ pattern: '*.ts', path: 'src', limit: GLOB_RESULT_LIMIT });
    expect(result.content).toBe('src/a.ts');
  });

  it('says "No files found" when nothing matches', async () => {
    const project = new FakeProject({ 'a.md': '' });
    expect(await globTool.run({ pattern: '**/*.rs' }, project.context())).toEqual({
      content: 'No files found',
      isError: false,
    });
  });

  it('adds a truncation notice past the limit', async () => {
    const files = Object.fromEntries(
      Array.from({ length: GLOB_RESULT_LIMIT + 5 }, (_, i) => [`f${i}.txt`, '']),
    );
    const result = await globTool.run({ pattern: '*.txt' }, new FakeProject(files).context());
    expect(result.content.split('\n').filter((l) => l.endsWith('.txt'))).toHaveLength(GLOB_RESULT_LIMIT);
    expect(result.content).toContain('Results are truncated');
  });

  it('names the missing field of bad input', async () => {
    const result = await globTool.run({ path: 'src' }, new FakeProject().context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^invalid_input: Glob input: pattern: /);
  });

  it("passes on what the host's walk said", async () => {
    const project = new FakeProject({ 'a.ts': '' });
    project.walkNotices = ['.gitignore has over 10000 rules; 5 of them were not used'];
    expect((await globTool.run({ pattern: '*.ts' }, project.context())).content).toBe(
      'a.ts\n(.gitignore has over 10000 rules; 5 of them were not used)',
    );
    expect((await globTool.run({ pattern: '*.rs' }, project.context())).content).toBe(
      'No files found\n(.gitignore has over 10000 rules; 5 of them were not used)',
    );
  });
});
