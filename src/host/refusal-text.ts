// The words for a refused capability call (an `effect-refused` event), the same in every front end:
// the CLI's progress lines, the chat's scrollback. Pure, and light enough for the chat's UI bundle.

/**
 * The first sentence of a refusal's reason, short enough for a progress line. The policy writes a
 * reason as "what; the way in" in one sentence, so the way in stays when it has one.
 */
function firstSentence(reason: string): string {
  const sentence = /^.*?\.(?=\s|$)/.exec(reason)?.[0] ?? reason;
  return sentence.length > 300 ? `${sentence.slice(0, 297)}...` : sentence;
}

/** Why a call was refused, and the allow rules that would let it through when the reason's first sentence does not name them. */
export function refusalText(event: { reason: string; allow?: string[] | undefined }): string {
  const why = firstSentence(event.reason);
  const missing = (event.allow ?? []).filter((rule) => !why.includes(`"${rule}"`));
  if (missing.length === 0) return why;
  const rules = missing.map((rule) => `"${rule}"`).join(' or ');
  return why.endsWith('.') ? `${why} Allow it with ${rules}.` : `${why}; allow it with ${rules}`;
}
