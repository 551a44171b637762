import { describe, expect, it } from 'vitest';
import { readTool } from '../../../src/worker/tools/read.js';
import { CWD, FakeProject } from './fake-capabilities.js';

const numbered = (n: number, text: string) => `${String(n).padStart(6)}\t${text}`;

describe('Read', () => {
  it('numbers lines cat -n style and records the mtime in the read state', async () => {
    const project = new FakeProject({ 'src/a.ts': 'one\ntwo\nthree\n' });
    const ctx = project.context();
    const result = await readTool.run({ file_path: 'src/a.ts' }, ctx);
    expect(result).toEqual({
      content: [numbered(1, 'one'), numbered(2, 'two'), numbered(3, 'three')].join('\n'),
      isError: false,
    });
    expect(ctx.readState.get(`${CWD}/src/a.ts`)).toEqual({ mtimeMs: project.files.get('src/a.ts')?.mtimeMs });
  });

  it('passes offset and limit, numbers from the offset, and says which window it shows', async () => {
    const project = new FakeProject({
      'big.txt': Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n'),
    });
    const result = await readTool.run(
      { file_path: `${CWD}/big.txt`, offset: 10, limit: 3 },
      project.context(),
    );
    expect(project.calls[0]?.request).toEqual({ path: `${CWD}/big.txt`, offset: 10, limit: 3 });
    expect(result.content).toBe(
      [numbered(10, 'line 10'), numbered(11, 'line 11'), numbered(12, 'line 12')].join('\n') +
        '\n\n[Showing lines 10-12 of 50. Use offset and limit to read other parts.]',
    );
  });

  it('asks for 2,000 lines by default', async () => {
    const project = new FakeProject({ 'a.txt': 'x\n' });
    await readTool.run({ file_path: 'a.txt' }, project.context());
    expect(project.calls[0]?.request).toEqual({ path: 'a.txt', offset: 1, limit: 2000 });
  });

  it('cuts lines longer than 2,000 characters', async () => {
    const project = new FakeProject({ 'min.js': `${'x'.repeat(5000)}\nshort\n` });
    const result = await readTool.run({ file_path: 'min.js' }, project.context());
    const [first, second] = result.content.split('\n');
    expect(first).toBe(numbered(1, `${'x'.repeat(2000)}… [line truncated]`));
    expect(second).toBe(numbered(2, 'short'));
  });

  it('reports an empty file and an offset past the end as notices', async () => {
    const project = new FakeProject({ 'empty.txt': '', 'short.txt': 'a\nb\n' });
    const empty = await readTool.run({ file_path: 'empty.txt' }, project.context());
    expect(empty).toEqual({ content: 'The file empty.txt exists but is empty.', isError: false });
    const past = await readTool.run({ file_path: 'short.txt', offset: 9 }, project.context());
    expect(past.content).toContain('has 2 lines; offset 9 is past the end');
  });

  it('returns a capability failure as an error result with its code', async () => {
    const project = new FakeProject();
    const result = await readTool.run({ file_path: 'nope.txt' }, project.context());
    expect(result).toEqual({ content: 'not_found: nope.txt does not exist', isError: true });
  });

  it('names the bad field of invalid input', async () => {
    const project = new FakeProject();
    const result = await readTool.run({ file_path: 'a', offset: 0 }, project.context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^invalid_input: Read input: offset: /);
    expect(project.calls).toHaveLength(0);
  });
});
