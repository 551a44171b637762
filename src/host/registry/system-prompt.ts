// An agent's system prompt: the Markdown body of its file, or the `prompt` field of a JSON entry,
// never both; an empty or very large prompt is loaded with a warning.
import type { DefinitionIssues } from './definition-issues.js';

/** Prompts past this many characters get a warning that they may not fit the model's context. */
const LARGE_PROMPT = 200_000;

/**
 * The prompt from `body` (undefined for JSON entries) or the `prompt` field, trimmed; its
 * problems go to `issues`.
 */
export function systemPrompt(
  body: string | undefined,
  field: string | undefined,
  issues: DefinitionIssues,
): string {
  const bodyText = body?.trim() ?? '';
  if (body !== undefined && bodyText !== '' && field !== undefined) {
    issues.error(
      'prompt',
      'is set twice: the Markdown body is the system prompt; remove the prompt field or the body',
    );
  }
  const prompt = bodyText !== '' ? bodyText : (field?.trim() ?? '');
  // In a file the body has no field name; in a JSON entry the prompt is a field.
  const where = body === undefined ? 'prompt' : undefined;
  if (prompt === '') issues.warn(where, 'has no system prompt: the agent gets only the task');
  if (prompt.length > LARGE_PROMPT) {
    const tokens = Math.round(prompt.length / 4 / 1000);
    issues.warn(
      where,
      `system prompt is ${Math.round(prompt.length / 1024)} KiB (about ${tokens}k tokens); it may not fit the model's context`,
    );
  }
  return prompt;
}
