import { describe, expect, it } from 'vitest';
import {
  createIgnoreMatcher,
  isIgnored,
  parseGitignore,
  parseIgnoreLine,
  testIgnore,
} from '../../../src/host/capabilities/gitignore.js';

const ignored = (content: string, p: string, isDir = false, base = '') =>
  isIgnored([createIgnoreMatcher(content, base)], p, isDir);

describe('parseGitignore', () => {
  it('skips blanks and comments, keeps escaped # and !', () => {
    const rules = parseGitignore('# comment\n\n*.log\n\\#hash\n\\!bang\n  \n');
    expect(rules.map((r) => r.source)).toEqual(['*.log', '\\#hash', '\\!bang']);
    expect(rules[1]?.regex.test('#hash')).toBe(true);
    expect(rules[2]?.negate).toBe(false);
    expect(rules[2]?.regex.test('!bang')).toBe(true);
  });

  it('trims unescaped trailing spaces and CRLF', () => {
    expect(parseIgnoreLine('a.txt   \r')?.regex.test('a.txt')).toBe(true);
    expect(parseIgnoreLine('a\\ ')?.regex.test('a ')).toBe(true);
  });

  it('flags negation and directory-only lines', () => {
    const rule = parseIgnoreLine('!build/');
    expect(rule?.negate).toBe(true);
    expect(rule?.dirOnly).toBe(true);
  });
});

describe('isIgnored', () => {
  it('matches a slash-less pattern at any depth, including dotfiles', () => {
    expect(ignored('*.log', 'a.log')).toBe(true);
    expect(ignored('*.log', 'deep/er/a.log')).toBe(true);
    expect(ignored('*.log', 'a.txt')).toBe(false);
    expect(ignored('.env*', 'config/.env.local')).toBe(true);
  });

  it('anchors a pattern with a leading or middle slash to the file directory', () => {
    expect(ignored('/out', 'out', true)).toBe(true);
    expect(ignored('/out', 'sub/out', true)).toBe(false);
    expect(ignored('doc/*.txt', 'doc/a.txt')).toBe(true);
    expect(ignored('doc/*.txt', 'x/doc/a.txt')).toBe(false);
  });

  it('applies a trailing slash to directories only', () => {
    expect(ignored('build/', 'build', true)).toBe(true);
    expect(ignored('build/', 'build', false)).toBe(false);
    expect(ignored('build/', 'pkg/build', true)).toBe(true);
  });

  it('understands ** forms', () => {
    expect(ignored('**/logs', 'a/b/logs', true)).toBe(true);
    expect(ignored('logs/**', 'logs/x/y.txt')).toBe(true);
    expect(ignored('a/**/b', 'a/b')).toBe(true);
    expect(ignored('a/**/b', 'a/x/y/b')).toBe(true);
  });

  it('lets the last matching line win, so ! re-includes', () => {
    const content = '*.log\n!keep.log\n';
    expect(ignored(content, 'x.log')).toBe(true);
    expect(ignored(content, 'keep.log')).toBe(false);
    expect(ignored('!keep.log\n*.log\n', 'keep.log')).toBe(true);
  });

  it('scopes a nested .gitignore to its directory, and lets the deeper file win', () => {
    const root = createIgnoreMatcher('*.tmp\n', '');
    const sub = createIgnoreMatcher('!special.tmp\n/local\n', 'pkg');
    expect(testIgnore(sub, 'other/local', true)).toBeUndefined();
    expect(isIgnored([root, sub], 'pkg/local', true)).toBe(true);
    expect(isIgnored([root, sub], 'local', true)).toBe(false);
    expect(isIgnored([root, sub], 'pkg/special.tmp', false)).toBe(false);
    expect(isIgnored([root, sub], 'special.tmp', false)).toBe(true);
    expect(isIgnored([root, sub], 'pkg/x.tmp', false)).toBe(true);
  });
});
