// How the offline model reads a question: code-like tokens kept whole and searched as written,
// phrasing dropped, plain words stemmed, and each term's pattern matching what it should and not
// what merely contains its letters.
import { describe, expect, it } from 'vitest';
import { readQuestion } from '../../../../src/worker/models/offline/question.js';
import type { Term } from '../../../../src/worker/models/offline/terms.js';

const terms = (q: string) => readQuestion(q).terms;
const find = (q: string, text: string): Term => {
  const t = terms(q).find((x) => x.text === text);
  if (t === undefined)
    throw new Error(
      `no term "${text}" in: ${terms(q)
        .map((x) => x.text)
        .join(', ')}`,
    );
  return t;
};
const matches = (t: Term, line: string) => new RegExp(t.pattern).test(line);

describe('reading a question', () => {
  it('keeps dotted names whole, with the object they belong to', () => {
    expect(find('where is res.redirect implemented?', 'res.redirect')).toMatchObject({
      kind: 'member',
      owner: 'res',
      names: ['redirect'],
    });
    // Two different questions, two different searches.
    expect(find('where is app.use defined?', 'app.use').names).toEqual(['use']);
    expect(find('where is app.listen defined?', 'app.listen').names).toEqual(['listen']);
    expect(find('where is Observable.prototype.pipe?', 'Observable.prototype.pipe')).toMatchObject({
      owner: 'observable',
      names: ['pipe'],
    });
    expect(find('where is moment.fn.startOf?', 'moment.fn.startOf').owner).toBe('moment');
  });

  it('reads MIME types, file names and dotfiles as what they are', () => {
    expect(find('where is application/json handled?', 'application/json').kind).toBe('literal');
    expect(find('where is package.json read?', 'package.json')).toMatchObject({
      kind: 'file',
      glob: '**/package.json',
    });
    // A dotfile keeps its dot, and its stem becomes a word: the code is `loadEnv` in `env.ts`.
    const env = find('where are .env files loaded?', '.env');
    expect(env.kind).toBe('file');
    expect(matches(env, "const envFiles = ['.env', '.env.local']")).toBe(true);
    expect(matches(env, 'process.env.NODE_ENV')).toBe(false);
    expect(find('where are .env files loaded?', 'env').kind).toBe('word');
  });

  it('keeps --flags whole and never matches their name inside other words', () => {
    const port = find('where is the --port flag defined?', '--port');
    expect(port.kind).toBe('flag');
    expect(matches(port, ".option('--port <port>', 'specify port')")).toBe(true);
    expect(matches(port, 'this server supports --portable mode')).toBe(false);
    // The bare word matches where a word starts, not inside "supports".
    const word = find('where is the --port flag defined?', 'port');
    expect(matches(word, 'const port = 80;')).toBe(true);
    expect(matches(word, 'it supports that')).toBe(false);
    // A hyphenated flag also gives the option name the program reads it as.
    expect(find('where is --forbid-only handled?', 'forbidOnly').kind).toBe('identifier');
  });

  it('keeps short words to whole identifier parts: `cli` is not `clickup`', () => {
    const cli = find('where is the cli entry?', 'cli');
    expect(matches(cli, "import { cli } from './cli.js';")).toBe(true);
    expect(matches(cli, 'icons/clickup.svg')).toBe(false);
    expect(matches(cli, 'const parseCliArgs = () => {}')).toBe(true);
  });

  it('reads header names in any case, as written or as code names them', () => {
    const header = find('where is the X-Forwarded-Proto header read?', 'X-Forwarded-Proto');
    expect(header.kind).toBe('header');
    expect(matches(header, "var proto = req.get('x-forwarded-proto')")).toBe(true);
    expect(matches(header, "this.get('X-Forwarded-Protocol')")).toBe(false);
    const contentType = find('where is Content-Type set?', 'Content-Type');
    expect(matches(contentType, "headers.setContentType('application/json')")).toBe(true);
  });

  it('keeps identifiers exact and never stems them; stems plain words only', () => {
    expect(find('where is mergeConfig implemented?', 'mergeConfig')).toMatchObject({ kind: 'identifier' });
    // "axios" is a name, not a plural.
    expect(terms('where does axios read proxy settings?').map((t) => t.text)).toContain('axios');
    expect(terms('where does axios read proxy settings?').map((t) => t.text)).not.toContain('axio');
    expect(find('where are config files loaded?', 'load').names).toContain('load');
    // Environment variables are matched in either case (`http_proxy`).
    expect(matches(find('where is HTTP_PROXY read?', 'HTTP_PROXY'), 'env.http_proxy')).toBe(true);
    // A capitalised word in mid-sentence is taken as a class name too.
    expect(find('where is the Runner class defined?', 'Runner').kind).toBe('identifier');
  });

  it('drops phrasing, stop words and the thoroughness line the CLI appends', () => {
    const q = readQuestion('Where is the code that handles retries?\n\nThoroughness: quick.');
    expect(q.thoroughness).toBe('quick');
    expect(q.terms.filter((t) => t.kind === 'word').map((t) => t.text)).toEqual(['retri']);
    expect(q.terms.map((t) => t.text)).not.toContain('thoroughness');
    expect(readQuestion('where is the parser').thoroughness).toBe('medium');
    expect(readQuestion('very thorough: where is the parser').thoroughness).toBe('very thorough');
  });

  it('keeps quoted strings whole as phrases, single quoted tokens as written', () => {
    const phrase = find(
      "where is the error 'where a stream was expected' thrown?",
      'where a stream was expected',
    );
    expect(phrase.kind).toBe('phrase');
    expect(matches(phrase, 'You provided x where a stream was expected.')).toBe(true);
    expect(find("where is the 'YYYY' token?", 'YYYY')).toMatchObject({ kind: 'literal' });
  });

  it('widens concept words with the names code uses, at a lower weight', () => {
    const q = terms('where is the configuration loaded?');
    const config = q.find((t) => t.text === 'config');
    expect(config).toMatchObject({ kind: 'concept' });
    expect(config?.weight).toBeLessThan(q.find((t) => t.text === 'load')?.weight ?? 0);
  });

  it('does not trip over words that are Object.prototype keys', () => {
    expect(() =>
      readQuestion('where is the Locale constructor defined? toString hasOwnProperty __proto__'),
    ).not.toThrow();
  });

  it('tells a question about uses from one about definitions', () => {
    expect(readQuestion('where is validateStatus used?').usage).toBe(true);
    expect(readQuestion('where is validateStatus defined?').usage).toBe(false);
  });
});
