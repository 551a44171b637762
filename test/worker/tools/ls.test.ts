import { describe, expect, it } from 'vitest';
import { lsTool } from '../../../src/worker/tools/ls.js';
import { CWD, FakeProject } from './fake-capabilities.js';

describe('LS', () => {
  it('lists a directory as a tree: directories first with a slash, files with sizes', async () => {
    const project = new FakeProject({
      'b.txt': 'abc',
      'a.txt': '',
      'src/x.ts': '',
      'node_modules/m/i.js': '',
    });
    const result = await lsTool.run({ path: '.', ignore: ['node_modules'] }, project.context());
    expect(result).toEqual({
      content: [`- ${CWD}/`, '  - src/', '  - a.txt (0 bytes)', '  - b.txt (3 bytes)'].join('\n'),
      isError: false,
    });
    expect(project.calls[0]?.request).toEqual({ path: '.', ignore: ['node_modules'] });
  });

  it('returns a capability failure as an error result', async () => {
    const result = await lsTool.run({ path: 'missing' }, new FakeProject().context());
    expect(result).toEqual({ content: 'not_found: missing does not exist', isError: true });
  });
});
