import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { splitFrontmatter } from '../../../src/host/registry/frontmatter.js';
import { FIXTURES, tempDir } from './temp-dirs.js';

describe('splitFrontmatter', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((c) => c()));
  });

  it('splits YAML fields from the body and records the line of each key', () => {
    const split = splitFrontmatter(
      '---\nname: a\ndescription: >\n  folded\n  text\ntools: Read\n---\nBody line\n',
    );
    expect(split).toMatchObject({
      ok: true,
      data: { name: 'a', description: 'folded text\n', tools: 'Read' },
      body: 'Body line\n',
    });
    if (split.ok)
      expect([...split.keyLines]).toEqual([
        ['name', 2],
        ['description', 3],
        ['tools', 6],
      ]);
  });

  it.each(['js', 'javascript', 'JS', 'coffee', 'json', 'toString', '__proto__'])(
    'refuses ---%s front matter without evaluating it',
    async (language) => {
      const { dir, cleanup } = await tempDir();
      cleanups.push(cleanup);
      const marker = path.join(dir, 'pwned');
      const body = `{ name: (require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'), globalThis.cadrePwned = true, 'evil'), description: 'd' }`;
      const split = splitFrontmatter(`---${language}\n${body}\n---\nBody`);
      expect(split).toEqual({
        ok: false,
        line: 1,
        message: expect.stringMatching(/is not supported \(YAML only\); this file was not evaluated/),
      });
      expect(existsSync(marker)).toBe(false);
      expect((globalThis as { cadrePwned?: boolean }).cadrePwned).toBeUndefined();
    },
  );

  it('refuses the js fixture and never runs it', async () => {
    const { dir, cleanup } = await tempDir();
    cleanups.push(cleanup);
    const marker = path.join(dir, 'marker');
    process.env.CADRE_PWN_MARKER = marker;
    try {
      const split = splitFrontmatter(await readFile(path.join(FIXTURES, 'bad/js-frontmatter.md'), 'utf8'));
      expect(split.ok).toBe(false);
      expect(existsSync(marker)).toBe(false);
    } finally {
      delete process.env.CADRE_PWN_MARKER;
    }
  });

  it('resolves no custom YAML tags: refused in a tool list, plain text in a description', () => {
    for (const tag of [
      '!!js/function "function(){}"',
      '!!js/regexp /x/',
      '!custom 1',
      '!!binary aGVsbG8=',
      '!!set {x}',
      '!!timestamp 2020-01-01',
      '!!python/object:os.system ls',
    ]) {
      const refused = splitFrontmatter(`---\nname: a\ndescription: d\ntools: ${tag}\n---\n`);
      expect(refused, tag).toMatchObject({
        ok: false,
        line: 4,
        message: expect.stringMatching(/custom YAML tags are not supported/),
      });
      // Claude Code's second reading quotes the value: the tag is never resolved, only kept as text.
      const text = splitFrontmatter(`---\nname: a\ndescription: ${tag}\n---\n`);
      expect(text, tag).toMatchObject({ ok: true, data: { name: 'a', description: tag } });
      expect(text.ok && text.retried?.quoted).toEqual(['description']);
    }
  });

  it('keeps the standard YAML types (no merge keys, no YAML 1.1 booleans)', () => {
    const split = splitFrontmatter(
      '---\na: yes\nb: true\nc: 0o10\nd: ~\nbase: &b { x: 1 }\ne:\n  <<: *b\n---\n',
    );
    expect(split).toMatchObject({
      ok: true,
      data: { a: 'yes', b: true, c: 8, d: null, e: { '<<': { x: 1 } } },
    });
  });

  it('treats a ---- line as no front matter at all', () => {
    expect(splitFrontmatter('----\nname: a\n----\n')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/no front matter/),
    });
  });
});
