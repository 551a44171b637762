// Rewrites zod issues as short sentences a person editing a file can act on:
// "must be a number (got text "fast")" instead of "Invalid input: expected number, received string".
import type * as z from 'zod';
import { closest } from '../../shared/closest.js';

const TYPE_WORDS: Record<string, string> = {
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a mapping of fields',
  record: 'a mapping of fields',
  array: 'a list',
};

/** The message for one issue; `root` is the object that was parsed (to quote the offending value). */
export function issueMessage(issue: z.core.$ZodIssue, root: unknown): string {
  const value = valueAt(root, issue.path);
  if (issue.code === 'invalid_type') {
    if (value === undefined) return 'is required';
    return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected} (got ${describeValue(value)})`;
  }
  if ((issue.code === 'too_small' || issue.code === 'too_big') && typeof value === 'number') {
    const small = issue.code === 'too_small';
    const bound = small ? issue.minimum : issue.maximum;
    const relation = small
      ? issue.inclusive
        ? 'at least'
        : 'greater than'
      : issue.inclusive
        ? 'at most'
        : 'less than';
    return `must be ${relation} ${String(bound)} (got ${value})`;
  }
  if (issue.code === 'invalid_key') {
    // A map key its schema refuses (a server name with a dot): say what a key must look like.
    const key = String(issue.path.at(-1) ?? '');
    return `"${key}" is not a valid name: ${issue.issues[0]?.message ?? 'refused'}`;
  }
  if (issue.code === 'invalid_value') {
    const options = issue.values.map(String);
    const hint = typeof value === 'string' ? closest(value, options) : undefined;
    return `must be one of ${options.map((o) => `"${o}"`).join(', ')} (got ${describeValue(value)})${hint ? ` (did you mean "${hint}"?)` : ''}`;
  }
  return issue.message;
}

/** A short description of a value for messages: `text "fast"`, `number 2.5`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  const text = JSON.stringify(value);
  return `${typeof value === 'string' ? 'text' : typeof value} ${text.length > 40 ? `${text.slice(0, 37)}...` : text}`;
}

/** The value at a zod issue path. */
export function valueAt(root: unknown, at: readonly PropertyKey[]): unknown {
  return at.reduce<unknown>(
    (node, key) =>
      typeof node === 'object' && node !== null ? (node as Record<PropertyKey, unknown>)[key] : undefined,
    root,
  );
}
