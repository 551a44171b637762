// Ranking on evidence built by hand: what makes one file the answer over another.
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../../../src/worker/models/offline/evidence.js';
import { readQuestion } from '../../../../src/worker/models/offline/question.js';
import { rankFiles } from '../../../../src/worker/models/offline/ranking.js';

/** Evidence in which every file given was read whole. */
function readAll(files: Record<string, string>, over: Partial<Evidence> = {}): Evidence {
  const reads = new Map(
    Object.entries(files).map(([path, text]) => {
      const lines = text.split('\n').map((t, i) => ({ path, line: i + 1, text: t }));
      return [path, { lines, total: lines.length }] as const;
    }),
  );
  return {
    known: new Set(Object.keys(files)),
    lines: new Map(),
    definitionLines: 0,
    mentions: new Map(),
    words: new Map(),
    named: new Set(),
    reads,
    entries: new Set(),
    packageWords: [],
    failures: [],
    cut: [],
    ...over,
  };
}

const rank = (question: string, ev: Evidence) =>
  rankFiles(readQuestion(question), question, ev).map((r) => `${r.file}:${r.line}`);

describe('rankFiles', () => {
  it('puts the definition before the files that call it, however often they do', () => {
    const calls = Array.from({ length: 12 }, () => '  retryWithBackoff(task);').join('\n');
    const ranked = rank(
      'where is retryWithBackoff defined?',
      readAll({
        'src/jobs.js': `function run(task) {\n${calls}\n}`,
        'src/retry.js': '// Retries.\nexport function retryWithBackoff(task) {\n  return task();\n}',
      }),
    );
    expect(ranked[0]).toBe('src/retry.js:2');
  });

  it('puts source before its tests, docs, examples, changelog and bundles', () => {
    const body = 'export function parseQuery(input) {\n  return input;\n}';
    const ranked = rank(
      'where is parseQuery implemented?',
      readAll({
        'test/parse-query.test.js': `${body}\nparseQuery('a');`,
        'docs/api.md': '# parseQuery\nparseQuery(input) parses.',
        'examples/basic/index.js': body,
        'CHANGELOG.md': '- parseQuery accepts arrays',
        'dist/lib.js': body,
        'src/parse-query.js': body,
      }),
    );
    expect(ranked[0]).toBe('src/parse-query.js:1');
  });

  it('puts src/ before its compiled copies and a bundle before nothing', () => {
    const ts = 'export function switchMap<T>(project: (v: T) => T) {\n  return project;\n}';
    const js = 'function switchMap(project) {\n  return project;\n}\nexports.switchMap = switchMap;';
    const ranked = rank(
      'where is the switchMap operator defined?',
      readAll({
        'internal/operators/switchMap.js': js,
        '_esm5/internal/operators/switchMap.js': js,
        'src/internal/operators/switchMap.ts': ts,
        'bundles/rxjs.umd.js': `(function (global, factory) {\n  typeof exports === 'object' && typeof module !== 'undefined';\n${js}`,
      }),
    );
    expect(ranked[0]).toBe('src/internal/operators/switchMap.ts:1');
  });

  it('prefers the method defined on the object the question names', () => {
    const ranked = rank(
      'where is res.redirect implemented?',
      readAll({
        'lib/router.js': 'Router.prototype.redirect = function redirect(to) {\n};',
        'lib/response.js': 'var res = module.exports = {};\nres.redirect = function redirect(url) {\n};',
      }),
    );
    expect(ranked[0]).toBe('lib/response.js:2');
  });

  it('prefers where a flag is declared to where the option it sets is read', () => {
    const ranked = rank(
      'where is the --forbid-only flag defined?',
      readAll({
        'lib/mocha.js':
          'Mocha.prototype.forbidOnly = function (forbidOnly) {\n  this.options.forbidOnly = forbidOnly;\n};',
        'lib/cli/run.js':
          "yargs.options({\n  'forbid-only': {\n    description: 'Fail if exclusive test(s) encountered'\n  }\n});",
      }),
    );
    expect(ranked[0]).toBe('lib/cli/run.js:2');
  });

  it('answers a concept question with the file where its words meet', () => {
    const ranked = rank(
      'where are .env files loaded?',
      readAll({
        'src/server.js': 'const file = read(path);\nconst server = listen(file);',
        'src/env.js':
          "export function loadEnv(mode, envDir) {\n  const envFiles = ['.env', `.env.${mode}`];\n  return envFiles.map(readFile);\n}",
        'src/build.js': 'export function build() {\n  return load(file);\n}',
      }),
    );
    expect(ranked[0]).toBe('src/env.js:1');
  });

  it('counts the project name as no clue to where', () => {
    const files = {
      'lib/express.js': 'function createApplication() {\n  return express;\n}',
      'lib/application.js':
        "app.init = function () {\n  var env = process.env.NODE_ENV || 'development';\n};",
    };
    const own = rank('where does express read NODE_ENV?', readAll(files, { packageWords: ['express'] }));
    expect(own[0]).toBe('lib/application.js:2');
  });

  it('ranks the same evidence the same way every time, ties by path', () => {
    const files = { 'b/x.js': 'export const widget = 1;', 'a/x.js': 'export const widget = 1;' };
    const first = rank('where is widget set?', readAll(files));
    expect(first).toEqual(['a/x.js:1', 'b/x.js:1']);
    expect(rank('where is widget set?', readAll(files))).toEqual(first);
  });
});
