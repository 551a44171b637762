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
      compiled.set(t, new RegExp(t.pattern, t.ignoreCase ? 'i' : ''));
    } catch {
      compiled.set(t, undefined);
    }
  }
  return {
    termsIn: (text) => terms.filter((t) => compiled.get(t)?.test(text) === true),
    has: (text, term) => compiled.get(term)?.test(text) === true,
  };
}
