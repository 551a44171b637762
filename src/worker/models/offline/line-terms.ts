// Which of the question's terms a line of code mentions, with each term's regex compiled once.

import type { Term } from './terms.js';

/** Answers "which terms does this line mention?". */
export interface LineTerms {
  termsIn(text: string): Term[];
  has(text: string, term: Term): boolean;
}

/** A matcher for `terms`; a term whose pattern does not compile is never matched. */
export function lineMatcher(terms: readonly Term[]): LineTerms {
  const compiled = new Map<Term, RegExp | undefined>();
  for (const t of terms) {
    try {
      compiled.set(t, new RegExp(t.pattern));
    } catch {
      compiled.set(t, undefined);
    }
  }
  // Most lines hold none of the terms: a plain `includes` rules them out before any regex runs.
  const test = (text: string, lower: string, t: Term) =>
    (t.needle === undefined || lower.includes(t.needle)) && compiled.get(t)?.test(text) === true;
  return {
    termsIn: (text) => {
      const lower = text.toLowerCase();
      return terms.filter((t) => test(text, lower, t));
    },
    has: (text, term) => test(text, text.toLowerCase(), term),
  };
}
