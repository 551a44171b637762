// Telling a definition from a mention, one line at a time, and the Grep pattern that finds the
// lines worth reading: checked against lines from real code bases (express, axios, mocha, rxjs,
// moment, vite).
import { describe, expect, it } from 'vitest';
import { definitionPattern, parseDefinitions } from '../../../../src/worker/models/offline/definitions.js';

const defs = (line: string) =>
  parseDefinitions(line).map((d) => [d.owner ? `${d.owner}.${d.name}` : d.name, d.shape]);

describe('parseDefinitions', () => {
  it('reads the definition shapes of JavaScript and TypeScript', () => {
    expect(defs('res.redirect = function redirect(url) {')).toContainEqual(['res.redirect', 'function']);
    expect(defs('Runner.prototype.checkGlobals = function (test) {')).toEqual([
      ['Runner.checkGlobals', 'function'],
    ]);
    expect(defs('export function switchMap<T, R>(')).toEqual([['switchMap', 'function']]);
    expect(defs('class Runner extends EventEmitter {')).toEqual([['Runner', 'class']]);
    expect(defs('  pipe(...operations: OperatorFunction<any, any>[]): Observable<any> {')).toEqual([
      ['pipe', 'method'],
    ]);
    expect(defs('  run<T>(callback: (helpers: RunHelpers) => T): T {')).toEqual([['run', 'method']]);
    expect(defs('const loadPkgRc = (args = {}) => {')).toEqual([['loadPkgRc', 'function']]);
    expect(defs('exports.findConfig = (cwd = utils.cwd()) => {')).toEqual([
      ['exports.findConfig', 'function'],
    ]);
    expect(defs("defineGetter(req, 'ip', function ip(){")).toContainEqual(['req.ip', 'function']);
    expect(
      defs('export declare function map<T, R>(project: (value: T) => R): OperatorFunction<T, R>;'),
    ).toEqual([['map', 'declaration']]);
  });

  it('reads Python, Go and Rust definitions', () => {
    expect(defs('def load_config(path):')).toEqual([['load_config', 'function']]);
    expect(defs('func (s *Server) ListenAndServe() error {')).toContainEqual(['ListenAndServe', 'function']);
    expect(defs('func ParseFlags(args []string) {')).toContainEqual(['ParseFlags', 'function']);
    expect(defs('pub fn parse_args() -> Args {')).toContainEqual(['parse_args', 'function']);
    expect(defs('class Config:')).toEqual([['Config', 'class']]);
  });

  it('reads option tables and command-line flags', () => {
    expect(defs("      'forbid-only': {")).toEqual([['forbid-only', 'key']]);
    expect(defs('      timeout: {')).toEqual([['timeout', 'key']]);
    expect(defs("  .option('-p, --port <port>', 'specify port')")).toContainEqual(['port', 'key']);
    expect(defs("  xsrfCookieName: 'XSRF-TOKEN',")).toEqual([['xsrfCookieName', 'value']]);
  });

  it('marks what hands a name on (aliases) and what only lives in a function body (locals)', () => {
    expect(parseDefinitions('moment.duration = createDuration;')).toEqual([
      { name: 'duration', owner: 'moment', shape: 'alias', target: 'createDuration' },
    ]);
    expect(defs('    validateStatus: mergeDirectKeys,')).toEqual([['validateStatus', 'alias']]);
    expect(defs('    const observable = new Observable<R>();')).toEqual([['observable', 'local']]);
    expect(defs('export const observable = (() => Symbol.observable || "@@observable")();')).toEqual([
      ['observable', 'function'],
    ]);
  });

  it('finds nothing in calls, control flow and comments', () => {
    expect(defs("  if (arg === '--delay' || arg === '-d') {")).toEqual([]);
    expect(defs('  } else if (x) {')).toEqual([]);
    expect(defs("  it('redirects', () => {")).toEqual([]);
    expect(defs('// function notReally() {')).toEqual([]);
    expect(defs(' * @param {Object} options')).toEqual([]);
  });
});

describe('definitionPattern', () => {
  const re = (names: Parameters<typeof definitionPattern>[0]) =>
    new RegExp(definitionPattern(names) ?? '^$', 'i');

  it('matches definition-shaped lines of the names asked for, and not their mentions', () => {
    const exact = re({ exact: ['redirect', 'forbid-only'], stems: [] });
    expect(exact.test('res.redirect = function redirect(url) {')).toBe(true);
    expect(exact.test("      'forbid-only': {")).toBe(true);
    expect(exact.test("    res.redirect('/login');")).toBe(false);
    expect(exact.test('  redirected = true')).toBe(false);
  });

  it('finds names built on a word, wherever the word starts a part', () => {
    const words = re({ exact: [], stems: ['load', 'config'] });
    expect(words.test('export async function loadConfigFromFile(')).toBe(true);
    expect(words.test('Runner.prototype._uncaught = function (err) {')).toBe(false);
    expect(re({ exact: [], stems: ['uncaught'] }).test('Runner.prototype._uncaught = function (err) {')).toBe(
      true,
    );
    expect(words.test("console.log('loading the config');")).toBe(false);
  });

  it('finds Go methods by their name after the receiver', () => {
    expect(
      re({ exact: ['listenandserve'], stems: [] }).test('func (s *Server) ListenAndServe() error {'),
    ).toBe(true);
  });

  it('has nothing to look for without names', () => {
    expect(definitionPattern({ exact: [], stems: [] })).toBeUndefined();
  });
});
