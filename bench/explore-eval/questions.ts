// The evaluation's questions: each names its corpus, its kind, the files that answer it (checked by
// hand) and a line of text that must be in the first of them, so a changed package is caught
// before it is scored. `rg` is the word a developer would type for the rg baseline.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { EVAL_DIR } from './corpora.js';

/** The kinds of question the evaluation covers. */
export const QuestionKind = z.enum([
  'definition',
  'dotted',
  'flag',
  'header',
  'concept',
  'config-env',
  'quoted',
]);
export type QuestionKind = z.infer<typeof QuestionKind>;

/** One question. */
export const Question = z.object({
  id: z.string().regex(/^[a-z]+-\d{2}$/),
  corpus: z.string(),
  kind: QuestionKind,
  question: z.string().min(5),
  /** Files (relative to the package root) that answer it; the first is the main one. */
  answers: z.array(z.string()).min(1),
  /** Text found in the first answer file, as checked by hand. */
  evidence: z.string().min(3),
  /** The baseline's search word. */
  rg: z.string().min(1),
  /** Kept aside from tuning and reported on its own. */
  heldOut: z.boolean(),
});
export type Question = z.infer<typeof Question>;

/** The questions of `questions.json`, checked for unique ids. */
export async function loadQuestions(file = path.join(EVAL_DIR, 'questions.json')): Promise<Question[]> {
  const parsed = z.array(Question).safeParse(JSON.parse(await readFile(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`);
  }
  const ids = new Set<string>();
  for (const q of parsed.data) {
    if (ids.has(q.id)) throw new Error(`${file}: duplicate id ${q.id}`);
    ids.add(q.id);
  }
  return parsed.data;
}

/** Throws when a question's evidence is missing from its main answer file in `dir`. */
export async function checkEvidence(q: Question, dir: string): Promise<void> {
  const main = q.answers[0] ?? '';
  const text = await readFile(path.join(dir, main), 'utf8').catch(() => undefined);
  if (text === undefined) throw new Error(`${q.id}: answer file ${main} is missing from ${dir}`);
  if (!text.includes(q.evidence)) throw new Error(`${q.id}: ${main} no longer contains "${q.evidence}"`);
}
