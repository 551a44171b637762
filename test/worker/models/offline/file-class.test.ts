// What a path says about a file: source, or one of the kinds a developer reads last; compiled
// copies of src/; bundles recognised by their text; and stemming of question words.
import { describe, expect, it } from 'vitest';
import {
  fileKind,
  isMirror,
  kindWeight,
  looksBundled,
} from '../../../../src/worker/models/offline/file-class.js';
import { diverse } from '../../../../src/worker/models/offline/planner.js';
import { stem } from '../../../../src/worker/models/offline/vocabulary.js';

describe('fileKind', () => {
  it.each([
    ['lib/response.js', 'source'],
    ['packages/vite/src/node/config.ts', 'source'],
    ['src/internal/testing/TestScheduler.ts', 'source'],
    ['test/res.redirect.js', 'test'],
    ['src/foo.test.ts', 'test'],
    ['packages/vite/src/node/__tests__/config.spec.ts', 'test'],
    ['packages/vite/src/node/__tests_dts__/config.ts', 'test'],
    ['pkg/foo_test.go', 'test'],
    ['docs/guide/env.md', 'docs'],
    ['README.md', 'docs'],
    ['doc/cli/options.txt', 'docs'],
    ['History.md', 'changelog'],
    ['CHANGELOG.md', 'changelog'],
    ['examples/auth/index.js', 'example'],
    ['playground/alias/vite.config.js', 'example'],
    ['packages/create-vite/template-react/src/App.tsx', 'example'],
    ['test/fixtures/a.js', 'test'],
    ['dist/axios.js', 'generated'],
    ['min/locales.js', 'generated'],
    ['_esm5/internal/operators/map.js', 'generated'],
    ['lib/foo.min.js', 'generated'],
    ['vendor/jquery.js', 'vendored'],
    ['index.d.ts', 'typings'],
    ['package.json', 'tooling'],
    ['tsconfig.build.json', 'tooling'],
    ['packages/vite/rolldown.config.ts', 'tooling'],
    ['.github/workflows/ci.yml', 'tooling'],
  ])('%s is %s', (path, kind) => {
    expect(fileKind(path)).toBe(kind);
  });

  it('holds back what the question does not ask for, and only that', () => {
    expect(kindWeight('test', 'where is res.redirect implemented?')).toBeLessThan(0.5);
    expect(kindWeight('test', 'where are the tests for res.redirect?')).toBeGreaterThanOrEqual(0.9);
    expect(kindWeight('docs', 'where is the option documented?')).toBeGreaterThanOrEqual(0.9);
    // "Type" in a header name does not ask for typings.
    expect(kindWeight('typings', 'where is the Content-Type set?')).toBeLessThan(0.5);
    expect(kindWeight('source', 'anything')).toBe(1);
  });
});

describe('isMirror', () => {
  const known = new Set([
    'src/internal/operators/map.ts',
    'internal/operators/map.js',
    '_esm5/internal/operators/map.js',
    'lib/mocha.js',
    'mocha.js',
    'lib/runner.js',
  ]);
  it('spots compiled copies of files in src/ and top-level twins of lib/ files', () => {
    expect(isMirror('internal/operators/map.js', known)).toBe(true);
    expect(isMirror('_esm5/internal/operators/map.js', known)).toBe(true);
    expect(isMirror('mocha.js', known)).toBe(true);
    expect(isMirror('src/internal/operators/map.ts', known)).toBe(false);
    expect(isMirror('lib/runner.js', known)).toBe(false);
  });
});

describe('looksBundled', () => {
  const lines = (texts: string[]) => texts.map((text) => ({ text }));
  it('recognises bundles by their wrapper, their source map comment or their length', () => {
    expect(
      looksBundled(
        lines([
          ';(function (global, factory) {',
          "    typeof exports === 'object' && typeof module !== 'undefined'",
        ]),
        5688,
      ),
    ).toBe(true);
    expect(looksBundled(lines(['const a = 1;', '//# sourceMappingURL=axios.js.map']), 2)).toBe(true);
    expect(looksBundled(lines(['export function a() {}']), 20_000)).toBe(true);
    expect(looksBundled(lines(["'use strict';", 'module.exports = Router;']), 800)).toBe(false);
  });
});

describe('diverse', () => {
  it('reads at most a third from a family of look-alike files, and all from a small directory', () => {
    const family = Array.from({ length: 20 }, (_, i) => `src/locale/l${String(i).padStart(2, '0')}.js`);
    expect(diverse([...family, 'src/lib/calendar.js', 'src/lib/other.js'], 6)).toEqual([
      'src/locale/l00.js',
      'src/locale/l01.js',
      'src/lib/calendar.js',
      'src/lib/other.js',
    ]);
    const small = ['lib/a.js', 'lib/b.js', 'lib/c.js', 'lib/d.js', 'lib/e.js', 'lib/f.js', 'README.md'];
    expect(diverse(small, 6)).toEqual(small.slice(0, 6));
  });
});

describe('stem', () => {
  it.each([
    ['loaded', 'load'],
    ['loading', 'load'],
    ['files', 'file'],
    ['headers', 'header'],
    ['configuration', 'configur'],
    ['durations', 'duration'],
    ['strings', 'string'],
    ['retries', 'retri'],
    ['matches', 'match'],
    ['stopped', 'stop'],
    ['axios', 'axios'],
    ['status', 'status'],
  ])('%s → %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});
