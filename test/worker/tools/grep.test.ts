import { describe, expect, it } from 'vitest';
import { GREP_READ_CHUNK } from '../../../src/worker/tools/grep-files.js';
import { grepTool } from '../../../src/worker/tools/grep.js';
import { FakeProject } from './fake-capabilities.js';

// Files are created in this order, so fs.glob (newest first) returns them reversed.
function project(): FakeProject {
  return new FakeProject({
    'src/app.ts': [
      'import { foo } from "./foo";',
      'export function main() {',
      '  foo();',
      '  return FOO;',
      '}',
      '',
    ].join('\n'),
    'src/foo.ts': 'export function foo() {}\n',
    'lib/util.py': 'def foo():\n    pass\n',
    'docs/readme.md': 'Nothing to see.\n',
    'bin/data.bin': '\0foo',
  });
}

describe('Grep', () => {
  it('lists matching files newest first by default, skipping binary files', async () => {
    const result = await grepTool.run({ pattern: 'foo' }, project().context());
    expect(result).toEqual({ content: 'Found 3 files\nlib/util.py\nsrc/foo.ts\nsrc/app.ts', isError: false });
  });

  it("passes on what the host's walk said", async () => {
    const p = project();
    p.walkNotices = ['the walk stopped after 10 s with what it had found; narrow the path or pattern'];
    const result = await grepTool.run({ pattern: 'foo' }, p.context());
    expect(result.content).toBe(
      'Found 3 files\nlib/util.py\nsrc/foo.ts\nsrc/app.ts\n' +
        '[the walk stopped after 10 s with what it had found; narrow the path or pattern]',
    );
  });

  it('shows path:line:text in content mode (in path order), and path:text with -n false', async () => {
    const p = project();
    const numbered = await grepTool.run({ pattern: 'foo\\(', output_mode: 'content' }, p.context());
    expect(numbered.content).toBe(
      'lib/util.py:1:def foo():\nsrc/app.ts:3:  foo();\nsrc/foo.ts:1:export function foo() {}',
    );
    const bare = await grepTool.run(
      { pattern: 'foo\\(', output_mode: 'content', '-n': false, path: 'src' },
      p.context(),
    );
    expect(bare.content).toBe('src/app.ts:  foo();\nsrc/foo.ts:export function foo() {}');
  });

  it('prints context lines with "-" and separates groups and files with "--"', async () => {
    const p = new FakeProject({
      'b.txt': 'x\nhit 1\ny\nz\nw\nv\nhit 2\nu\n',
      'a.txt': 'hit 3\nq\n',
    });
    const around = await grepTool.run({ pattern: 'hit', output_mode: 'content', '-C': 1 }, p.context());
    expect(around.content).toBe(
      [
        'a.txt:1:hit 3',
        'a.txt-2-q',
        '--',
        'b.txt-1-x',
        'b.txt:2:hit 1',
        'b.txt-3-y',
        '--',
        'b.txt-6-v',
        'b.txt:7:hit 2',
        'b.txt-8-u',
      ].join('\n'),
    );
    const after = await grepTool.run({ pattern: 'hit [12]', output_mode: 'content', '-A': 4 }, p.context());
    // Overlapping windows merge into one group, and a match inside a window is still marked ":".
    expect(after.content).toBe(
      [
        'b.txt:2:hit 1',
        'b.txt-3-y',
        'b.txt-4-z',
        'b.txt-5-w',
        'b.txt-6-v',
        'b.txt:7:hit 2',
        'b.txt-8-u',
      ].join('\n'),
    );
    const before = await grepTool.run(
      { pattern: 'hit 2', output_mode: 'content', '-B': 2, '-n': false },
      p.context(),
    );
    expect(before.content).toBe('b.txt-w\nb.txt-v\nb.txt:hit 2');
  });

  it('counts matching lines per file with a total', async () => {
    const result = await grepTool.run(
      { pattern: 'foo', output_mode: 'count', '-i': true },
      project().context(),
    );
    expect(result.content).toBe(
      'lib/util.py:1\nsrc/app.ts:3\nsrc/foo.ts:1\n\nFound 5 matching lines across 3 files.',
    );
  });

  it('matches case-insensitively with -i only', async () => {
    const p = project();
    const exact = await grepTool.run({ pattern: 'FOO', output_mode: 'content' }, p.context());
    expect(exact.content).toBe('src/app.ts:4:  return FOO;');
    const folded = await grepTool.run({ pattern: 'FOO', '-i': true }, p.context());
    expect(folded.content).toBe('Found 3 files\nlib/util.py\nsrc/foo.ts\nsrc/app.ts');
  });

  it('filters by ripgrep type, and rejects an unknown type listing the known ones', async () => {
    const p = project();
    const py = await grepTool.run({ pattern: 'foo', type: 'py' }, p.context());
    expect(py.content).toBe('Found 1 file\nlib/util.py');
    expect(p.calls.find((c) => c.name === 'fs.readMany')?.request).toMatchObject({
      paths: [],
      glob: { pattern: '**/{*.py,*.pyi}' },
      packed: true,
    });
    const bad = await grepTool.run({ pattern: 'foo', type: 'cobol' }, p.context());
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/^invalid_input: type: unknown file type "cobol". Known types: .*\bts\b/);
  });

  it('applies a glob filter at any depth, and a glob with "/" as given', async () => {
    const p = project();
    const ts = await grepTool.run({ pattern: 'foo', glob: '*.ts' }, p.context());
    expect(ts.content).toBe('Found 2 files\nsrc/foo.ts\nsrc/app.ts');
    expect(p.calls.find((c) => c.name === 'fs.readMany')?.request).toMatchObject({
      glob: { pattern: '**/*.ts' },
    });
    const rooted = await grepTool.run({ pattern: 'foo', glob: 'lib/*.{py,rb}' }, p.context());
    expect(rooted.content).toBe('Found 1 file\nlib/util.py');
    const both = await grepTool.run({ pattern: 'foo', glob: 'src/**', type: 'ts' }, p.context());
    expect(both.content).toBe('Found 2 files\nsrc/foo.ts\nsrc/app.ts');
  });

  it('keeps the first head_limit entries and says more were omitted', async () => {
    const p = project();
    const files = await grepTool.run({ pattern: 'foo', head_limit: 2 }, p.context());
    expect(files.content).toBe(
      'Found 2 files\nlib/util.py\nsrc/foo.ts\n[head_limit 2 reached: further results omitted]',
    );
    const lines = await grepTool.run({ pattern: 'o', output_mode: 'content', head_limit: 1 }, p.context());
    expect(lines.content).toBe(
      'docs/readme.md:1:Nothing to see.\n[head_limit 1 reached: further results omitted]',
    );
    const exact = await grepTool.run({ pattern: 'foo', head_limit: 3 }, p.context());
    expect(exact.content).not.toContain('head_limit');
  });

  it('greps just the file when path names one, without listing files', async () => {
    const p = project();
    const result = await grepTool.run(
      { pattern: 'foo', path: 'src/app.ts', output_mode: 'count' },
      p.context(),
    );
    expect(result.content).toContain('src/app.ts:2');
    expect(p.count('fs.glob')).toBe(0);
    expect(p.calls.find((c) => c.name === 'fs.readMany')?.request).toEqual({
      paths: ['src/app.ts'],
      packed: true,
    });
    const missing = await grepTool.run({ pattern: 'foo', path: 'nowhere' }, p.context());
    expect(missing).toEqual({ content: 'not_found: path nowhere does not exist.', isError: true });
  });

  it('rejects an invalid regex, naming the pattern, before any capability call', async () => {
    const p = project();
    const result = await grepTool.run({ pattern: 'foo(' }, p.context());
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^invalid_input: pattern is not a valid regular expression: .*foo\(/);
    expect(p.calls).toHaveLength(0);
  });

  it('surfaces a capability denial as an error result', async () => {
    const p = project();
    p.denials.set('fs.readMany', {
      code: 'path_outside_project',
      message: '../etc/passwd is outside the project',
    });
    const result = await grepTool.run({ pattern: 'root' }, p.context());
    expect(result).toEqual({
      content: 'path_outside_project: ../etc/passwd is outside the project',
      isError: true,
    });
    const missingGrant = project().context();
    delete missingGrant.caps['fs.readMany'];
    const notGranted = await grepTool.run({ pattern: 'x' }, missingGrant);
    expect(notGranted).toEqual({
      content: 'not_granted: this agent is not granted the fs.readMany capability',
      isError: true,
    });
  });

  it('reads in one call, then what it deferred in chunks, and stops at the run caps with notices', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 450 }, (_, i) => [`f/${String(i).padStart(3, '0')}.txt`, 'match\nmatch\n']),
    );
    const p = new FakeProject(files);
    const all = await grepTool.run({ pattern: 'match', output_mode: 'count' }, p.context());
    expect(p.count('fs.readMany')).toBe(1);
    expect(all.content).toContain('Found 900 matching lines across 450 files.');

    // A first answer that ran out of byte budget after 50 files hands the rest back by name.
    const ctx = p.context();
    const readMany = ctx.caps['fs.readMany'];
    if (!readMany) throw new Error('fake grants fs.readMany');
    ctx.caps['fs.readMany'] = async (req) => {
      const envelope = await readMany(req);
      if (envelope.ok && req.glob) {
        envelope.value.deferred = envelope.value.files.slice(50).map((f) => f.path);
        envelope.value.files = envelope.value.files.slice(0, 50);
      }
      return envelope;
    };
    const calls = p.count('fs.readMany');
    const chunked = await grepTool.run({ pattern: 'match', output_mode: 'count' }, ctx);
    expect(chunked.content).toContain('Found 900 matching lines across 450 files.');
    expect(p.count('fs.readMany') - calls).toBe(1 + Math.ceil(400 / GREP_READ_CHUNK));
    expect(p.calls.at(-1)?.request).toMatchObject({ paths: Object.keys(files).slice(250), packed: true });

    const fewFiles = await grepTool.run({ pattern: 'match' }, p.context({ maxGrepFiles: 10 }));
    expect(fewFiles.content).toContain('Found 10 files');
    expect(fewFiles.content).toContain('[only the first 10 files were searched; narrow the path or glob]');

    const fewMatches = await grepTool.run(
      { pattern: 'match', output_mode: 'content' },
      p.context({ maxGrepMatches: 5 }),
    );
    expect(fewMatches.content.split('\n').filter((l) => l.includes(':match'))).toHaveLength(5);
    expect(fewMatches.content).toContain('[search stopped at the cap of 5 results');
  });

  it('matches across lines with multiline, printing every line of the match', async () => {
    const p = new FakeProject({ 's.rs': 'struct A {\n    x: u8,\n    field: u8,\n}\nfield\n' });
    const single = await grepTool.run(
      { pattern: 'struct A \\{.*field', output_mode: 'content' },
      p.context(),
    );
    expect(single.content).toBe('No matches found');
    const multi = await grepTool.run(
      { pattern: 'struct A \\{.*?field', output_mode: 'content', multiline: true },
      p.context(),
    );
    expect(multi.content).toBe('s.rs:1:struct A {\ns.rs:2:    x: u8,\ns.rs:3:    field: u8,');
  });

  it('mentions files it could not read for reasons other than being binary', async () => {
    const p = project();
    const ctx = p.context();
    const readMany = ctx.caps['fs.readMany'];
    if (!readMany) throw new Error('fake grants fs.readMany');
    ctx.caps['fs.readMany'] = async (req) => {
      const envelope = await readMany(req);
      if (envelope.ok) {
        envelope.value.skipped.push({ path: 'huge.log', reason: 'too large (2000000 bytes, cap 1048576)' });
        envelope.value.skipped.push({ path: 'big.log', reason: 'too large (3000000 bytes, cap 1048576)' });
      }
      return envelope;
    };
    const noted = await grepTool.run({ pattern: 'foo' }, ctx);
    expect(noted.content).toContain('[not searched: 2 file(s): too large]');
    expect(noted.content).not.toContain('binary');
  });
});
