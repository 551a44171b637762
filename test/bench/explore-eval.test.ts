// The fast part of bench/explore-eval, so that a regression of the offline explorer fails CI: six
// of the evaluation's questions about express (fetched from the npm registry at its pinned version
// and integrity) asked through the compiled CLI, each with the file it must answer first. And the
// evaluation's scoring, on reports written by hand.
import { beforeAll, describe, expect, it } from 'vitest';
import { exploreAll } from '../../bench/explore-eval/cadre.js';
import { CorpusUnavailable, ensureCorpus, loadCorpora } from '../../bench/explore-eval/corpora.js';
import { checkEvidence, loadQuestions, type Question } from '../../bench/explore-eval/questions.js';
import { citedFiles, rates, scoreRanking } from '../../bench/explore-eval/score.js';

/** Questions of the tuning set with the file each must put first. */
const EXPECTED: [id: string, first: string][] = [
  ['express-01', 'lib/response.js'], // res.redirect
  ['express-03', 'lib/application.js'], // app.listen
  ['express-05', 'lib/application.js'], // the X-Powered-By header
  ['express-06', 'lib/application.js'], // NODE_ENV
  ['express-10', 'lib/application.js'], // the default settings
  ['express-11', 'lib/utils.js'], // trust proxy compiled to a function
];

let dir: string | undefined;
let unavailable = '';
let questions: Question[] = [];

beforeAll(async () => {
  const corpora = await loadCorpora();
  const express = corpora['express'];
  if (express === undefined) throw new Error('corpora.json has no express');
  questions = (await loadQuestions()).filter((q) => EXPECTED.some(([id]) => id === q.id));
  try {
    dir = await ensureCorpus(express);
  } catch (error) {
    // Only an unreachable registry skips; a tarball that differs from the pin fails.
    if (!(error instanceof CorpusUnavailable)) throw error;
    unavailable = error.message;
  }
}, 120_000);

describe('explore-eval on express (the compiled CLI, the offline model)', () => {
  it('answers each question with the expected file first, in a report that says it is offline', async (ctx) => {
    if (dir === undefined) return ctx.skip(`the npm registry could not be reached: ${unavailable}`);
    expect(questions.map((q) => q.id).sort()).toEqual(EXPECTED.map(([id]) => id).sort());
    for (const q of questions) await checkEvidence(q, dir);
    const runs = await exploreAll(
      dir,
      questions.map((q) => q.question),
    );
    const firsts = runs.map((run, i) => {
      expect(run.status).toBe('completed');
      expect(run.report.startsWith('**Offline model**')).toBe(true);
      expect(run.report).toMatch(/^Most likely: `[^`]+:\d+` — /m);
      return [questions[i]?.id, citedFiles(run.report, dir)[0]];
    });
    expect(Object.fromEntries(firsts)).toEqual(Object.fromEntries(EXPECTED));
  }, 120_000);
});

describe('explore-eval scoring', () => {
  it('reads the files a report cites, in order, once each', () => {
    const report = [
      'Most likely: `lib/response.js:817` — defines `res.redirect`',
      '2. `/abs/pkg/lib/application.js:12` — mentions it',
      '- `lib/response.js:900`: `again`',
      'see `History.md:5-7` and http://example.com:80 and version 1.2',
    ].join('\n');
    expect(citedFiles(report, '/abs/pkg')).toEqual(['lib/response.js', 'lib/application.js', 'History.md']);
  });

  it('scores hit@1, hit@3 and cited against the accepted answers', () => {
    expect(scoreRanking(['a.js', 'b.js'], ['a.js'])).toEqual({ hit1: true, hit3: true, cited: true });
    expect(scoreRanking(['x.js', 'y.js', 'a.js'], ['a.js', 'z.js'])).toEqual({
      hit1: false,
      hit3: true,
      cited: true,
    });
    expect(scoreRanking(['x', 'y', 'z', 'a.js'], ['a.js'])).toEqual({
      hit1: false,
      hit3: false,
      cited: true,
    });
    expect(scoreRanking([], ['a.js'])).toEqual({ hit1: false, hit3: false, cited: false });
    expect(
      rates([
        { hit1: true, hit3: true, cited: true },
        { hit1: false, hit3: true, cited: true },
      ]),
    ).toEqual({
      n: 2,
      hit1: 0.5,
      hit3: 1,
      cited: 1,
    });
  });
});
