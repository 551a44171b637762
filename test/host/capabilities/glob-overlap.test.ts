// Witnesses of two globs overlapping, and the concrete paths a shell glob is checked as.
import { describe, expect, it } from 'vitest';
import {
  globCandidates,
  globTokens,
  globWitness,
  literalPositions,
} from '../../../src/host/capabilities/policy/glob-overlap.js';
import { matchGlob } from '../../../src/shared/glob.js';

function witness(a: string, b: string, shellDot = true): string | undefined {
  return globWitness(globTokens(a), globTokens(b), { shellDot });
}

describe('globWitness', () => {
  it.each([
    ['.ss?', '.ssh'],
    ['id_rs?', 'id_*'],
    ['*s.json', 'credentials*'],
    ['.e[mn]v', '.env'],
    ['[!x]d_rsa', 'id_rsa'],
    ['*.pem', '*.pem'],
    ['a*b*c', '*b*'],
    ['\\*x', '?x'],
  ])('%j and %j overlap', (a, b) => {
    const w = witness(a, b);
    expect(w).toBeDefined();
    // The witness is a name both patterns match.
    expect(matchGlob(w as string, a, { dot: a.startsWith('.') })).toBe(true);
    expect(matchGlob(w as string, b, { dot: true })).toBe(true);
  });

  it.each([
    ['*.ts', '.env'],
    ['*', '.ssh'],
    ['?ssh', '.ssh'],
    ['[!.]env', '.env'],
    ['a?', 'abc'],
    ['*.ts', '*.pem'],
    ['\\*', 'x'],
  ])('%j and %j do not overlap (a leading dot needs a literal dot)', (a, b) => {
    expect(witness(a, b)).toBeUndefined();
  });

  it('lets a wildcard match a leading dot when dotglob may be on', () => {
    expect(witness('*', '.ssh', false)).toBe('.ssh');
  });
});

describe('globCandidates', () => {
  it('checks each wildcard segment as the guarded names it may match, and one plain name', () => {
    const found = globCandidates('/h/.ss?/id_rs?', ['.ssh', 'id_*', 'config'], false);
    expect(found).toContain('/h/.ssh/id_rsx');
  });

  it('keeps literal segments as they are', () => {
    expect(globCandidates('/p/src/*.ts', ['.env'], false)).toEqual(['/p/src/x.ts']);
  });

  it('gives up (undefined) when a glob could match too many guarded names to check', () => {
    const vocabulary = Array.from({ length: 200 }, (_, i) => `.name${i}`);
    expect(globCandidates('/p/.*', vocabulary, false)).toBeUndefined();
  });
});

describe('literalPositions', () => {
  const ways = (glob: string, text: string) => literalPositions(globTokens(glob), text);

  it('gives the characters the literal text takes, one list per way the glob matches', () => {
    expect(ways('a*', 'a.env')).toEqual([[0]]);
    expect(ways('*.pem', 'x.pem')).toEqual([[1, 2, 3, 4]]);
    expect(ways('.e?v', '.env')).toEqual([[0, 1, 3]]);
    expect(ways('*', '.env')).toEqual([[]]);
    expect(ways('*s*', 'sass')?.sort()).toEqual([[0], [2], [3]]);
  });

  it('is empty when the glob does not match, and undefined past the limit', () => {
    expect(ways('b*', 'a.env')).toEqual([]);
    expect(literalPositions(globTokens('*a*'), 'a'.repeat(40), 8)).toBeUndefined();
  });
});
