// Presents registry and config issues: one line each (`path:line: field: message`), in file order.
import type { RegistryIssue } from '../../shared/agent-definition.js';

/** `path:line: field: message`, leaving out what the issue does not know. */
export function formatIssue(issue: RegistryIssue): string {
  const where = issue.line === undefined ? issue.path : `${issue.path}:${issue.line}`;
  return issue.field === undefined
    ? `${where}: ${issue.message}`
    : `${where}: ${issue.field}: ${issue.message}`;
}

/** Issues in the order a person reads the file: by line, keeping the original order otherwise. */
export function sortByLine<T extends RegistryIssue>(issues: readonly T[]): T[] {
  return issues
    .map((issue, index) => ({ issue, index }))
    .sort((a, b) => (a.issue.line ?? Infinity) - (b.issue.line ?? Infinity) || a.index - b.index)
    .map((x) => x.issue);
}
