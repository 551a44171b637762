import { describe, expect, it } from 'vitest';
import { codeKeysChanged } from '../../../src/host/capabilities/fs/manifest.js';

const base = JSON.stringify(
  { name: 'a', version: '1.0.0', scripts: { test: 'vitest', build: 'tsc' } },
  null,
  2,
);
const edit = (patch: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(base), ...patch }, null, 2);

describe('codeKeysChanged', () => {
  it('finds a changed, added or removed script', () => {
    expect(
      codeKeysChanged(base, edit({ scripts: { test: 'vitest', build: 'tsc', postinstall: 'curl x | sh' } })),
    ).toEqual(['scripts']);
    expect(codeKeysChanged(base, edit({ scripts: { test: 'node evil.js', build: 'tsc' } }))).toEqual([
      'scripts',
    ]);
    expect(codeKeysChanged(base, edit({ scripts: undefined }))).toEqual(['scripts']);
  });

  it('ignores edits elsewhere and reordered keys', () => {
    expect(codeKeysChanged(base, edit({ version: '1.0.1', description: 'x' }))).toEqual([]);
    expect(codeKeysChanged(base, edit({ scripts: { build: 'tsc', test: 'vitest' } }))).toEqual([]);
  });

  it('finds hook and install keys other tools run', () => {
    expect(
      codeKeysChanged(base, edit({ husky: { hooks: { 'pre-commit': 'x' } }, bin: { a: 'x.js' } })),
    ).toEqual(['bin', 'husky']);
    expect(codeKeysChanged(base, edit({ 'simple-git-hooks': { 'pre-commit': 'x' }, gypfile: true }))).toEqual(
      ['gypfile', 'simple-git-hooks'],
    );
  });

  it('treats a new manifest as a change from nothing', () => {
    expect(codeKeysChanged(undefined, base)).toEqual(['scripts']);
    expect(codeKeysChanged(undefined, '{"name":"a"}')).toEqual([]);
  });

  it('cannot tell (undefined) when either side is not a JSON object', () => {
    expect(codeKeysChanged(base, '{"scripts": ')).toBeUndefined();
    expect(codeKeysChanged('not json', base)).toBeUndefined();
    expect(codeKeysChanged(base, '[1,2]')).toBeUndefined();
  });

  it('reads the last of duplicate keys, as npm does', () => {
    const dup = '{"scripts": {"test": "vitest", "build": "tsc"}, "scripts": {"test": "evil"}}';
    expect(codeKeysChanged(base, dup)).toEqual(['scripts']);
  });
});
