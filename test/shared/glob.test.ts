import { describe, expect, it } from 'vitest';
import { expandBraces, globToRegExp, hasGlobSyntax, matchGlob } from '../../src/shared/glob.js';
import { cpuMs } from '../support/cpu-time.js';

const yes = (pattern: string, paths: string[], dot = false) => {
  for (const p of paths) expect(matchGlob(p, pattern, { dot }), `${pattern} should match ${p}`).toBe(true);
};
const no = (pattern: string, paths: string[], dot = false) => {
  for (const p of paths)
    expect(matchGlob(p, pattern, { dot }), `${pattern} should not match ${p}`).toBe(false);
};

describe('globToRegExp', () => {
  it('keeps * and ? within one segment', () => {
    yes('*.ts', ['a.ts', '.ts.ts'.slice(1)]);
    no('*.ts', ['src/a.ts', 'a.tsx', 'a.ts/b']);
    yes('src/?.js', ['src/a.js']);
    no('src/?.js', ['src/ab.js', 'src//.js']);
  });

  it('lets ** span zero or more directories, only as a whole segment', () => {
    yes('**/*.ts', ['a.ts', 'src/a.ts', 'src/deep/er/a.ts']);
    yes('src/**/*.ts', ['src/a.ts', 'src/x/y/a.ts']);
    no('src/**/*.ts', ['lib/a.ts', 'srcx/a.ts']);
    yes('src/**', ['src', 'src/a', 'src/a/b/c']);
    no('src/**', ['srcx', 'lib/src/a']);
    yes('**', ['a', 'a/b/c']);
    yes('a/**/**/b', ['a/b', 'a/x/b']);
    // Inside a segment, ** is just *.
    yes('a**b', ['ab', 'axxb']);
    no('a**b', ['a/b']);
  });

  it('supports character classes, negated with ! or ^', () => {
    yes('file[0-9].txt', ['file1.txt']);
    no('file[0-9].txt', ['filex.txt', 'file10.txt']);
    yes('[!a]*', ['b', 'bcd']);
    no('[!a]*', ['abc']);
    yes('[^a]', ['z']);
    no('x[!a]y', ['x/y']);
    // An unclosed bracket is literal.
    yes('a[b', ['a[b']);
  });

  it('expands braces, nested, and treats a comma-less brace as literal', () => {
    yes('*.{ts,tsx}', ['a.ts', 'b.tsx']);
    no('*.{ts,tsx}', ['a.js']);
    yes('{src,test}/**/*.ts', ['src/a.ts', 'test/x/b.ts']);
    yes('a{b,c{d,e}}f', ['abf', 'acdf', 'acef']);
    yes('{x}', ['{x}']);
    expect(expandBraces('a{b,c{d,e}}f')).toEqual(['abf', 'acdf', 'acef']);
    expect(() => expandBraces('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}')).toThrow(
      /more than/,
    );
  });

  it('escapes glob and regex characters', () => {
    yes('\\*.md', ['*.md']);
    no('\\*.md', ['a.md']);
    yes('a.b+(c)$', ['a.b+(c)$']);
    no('a.b', ['axb']);
    yes('\\{a,b\\}', ['{a,b}']);
  });

  it('hides dotfiles from wildcards unless dot is set, but matches them when named', () => {
    no('*', ['.env']);
    no('**/*.js', ['.hidden/a.js', 'src/.a.js']);
    yes('**/.env', ['.env', 'config/.env']);
    yes('*', ['.env'], true);
    yes('**/*.js', ['.hidden/a.js'], true);
    yes('src/**', ['src/.git/x'], true);
    no('src/**', ['src/.git/x']);
  });

  it('anchors at both ends and supports nocase', () => {
    no('a.ts', ['xa.ts', 'a.tsx']);
    expect(globToRegExp('*.TS', { nocase: true }).test('a.ts')).toBe(true);
    expect(globToRegExp('*.TS').test('a.ts')).toBe(false);
  });

  it('does not backtrack catastrophically on long paths', () => {
    const long = `${'a/'.repeat(200)}b`;
    const started = cpuMs();
    expect(matchGlob(long, '**/**/**/**/c')).toBe(false);
    expect(matchGlob('a'.repeat(200), '*a*a*a*a*b')).toBe(false);
    expect(cpuMs() - started).toBeLessThan(200);
  });
});

/** A naive backtracking matcher (dot: true) to cross-check the compiled regexes. */
function reference(pattern: string, path: string): boolean {
  const segs = pattern.split('/').filter((seg, i, all) => !(seg === '**' && all[i - 1] === '**'));
  const matchSeg = (p: string, s: string): boolean => {
    if (p === '') return s === '';
    if (p[0] === '*') return [...Array(s.length + 1).keys()].some((k) => matchSeg(p.slice(1), s.slice(k)));
    if (s === '') return false;
    if (p.startsWith('[!a]')) return s[0] !== 'a' && matchSeg(p.slice(4), s.slice(1));
    if (p.startsWith('[ab]')) return (s[0] === 'a' || s[0] === 'b') && matchSeg(p.slice(4), s.slice(1));
    if (p[0] === '?' || p[0] === s[0]) return matchSeg(p.slice(1), s.slice(1));
    return false;
  };
  const matchPath = (i: number, parts: string[]): boolean => {
    if (i === segs.length) return parts.length === 0;
    if (segs[i] === '**') {
      if (i === segs.length - 1) return i === 0 ? parts.length > 0 : true;
      return [...Array(parts.length + 1).keys()].some((k) => matchPath(i + 1, parts.slice(k)));
    }
    return parts.length > 0 && matchSeg(segs[i] ?? '', parts[0] ?? '') && matchPath(i + 1, parts.slice(1));
  };
  return matchPath(0, path.split('/'));
}

describe('globToRegExp against a naive matcher', () => {
  it('agrees on thousands of random patterns and paths', () => {
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const tokens = ['a', 'b', '*', '?', '[ab]', '[!a]'];
    const pick = <T>(xs: T[]): T => xs[rand(xs.length)] as T;
    let disagreements = 0;
    let matched = 0;
    for (let n = 0; n < 4000; n++) {
      const pattern = Array.from({ length: 1 + rand(4) }, () =>
        rand(4) === 0 ? '**' : Array.from({ length: 1 + rand(4) }, () => pick(tokens)).join(''),
      ).join('/');
      const path = Array.from({ length: 1 + rand(4) }, () =>
        Array.from({ length: 1 + rand(4) }, () => pick(['a', 'b'])).join(''),
      ).join('/');
      const expected = reference(pattern, path);
      if (expected) matched++;
      if (matchGlob(path, pattern, { dot: true }) !== expected) disagreements++;
    }
    expect(disagreements).toBe(0);
    expect(matched).toBeGreaterThan(200); // the sample exercises matches, not only misses
  });
});

describe('hasGlobSyntax', () => {
  it('tells literal paths from patterns', () => {
    expect(hasGlobSyntax('src/index.ts')).toBe(false);
    expect(hasGlobSyntax('src/*.ts')).toBe(true);
    expect(hasGlobSyntax('a{b,c}')).toBe(true);
  });
});
