// Reads a batch task file (JSONL, or a YAML list) into tasks. A bad line — invalid JSON, a missing
// or wrong field, an unknown agent, a duplicate id — is reported with its line number and skipped;
// it never stops the batch.
import { agentKey } from '../../shared/agent-name.js';
import * as z from 'zod';
import { LineCounter, parseDocument, isSeq, isMap } from 'yaml';
import { formatZodError } from '../../shared/zod-format.js';

/** One batch task. `timeout` is in seconds. */
export const BatchTask = z.strictObject({
  id: z.union([z.string().min(1).max(200), z.number().int().transform(String)]),
  agent: z.string().min(1),
  prompt: z.string().min(1),
  model: z.string().min(1).optional(),
  timeout: z.number().positive().optional(),
  max_turns: z.number().int().positive().optional(),
  cwd: z.string().min(1).optional(),
});
/** One batch task. */
export type BatchTask = z.output<typeof BatchTask>;

/** A skipped entry, with where it was. */
export interface TaskFileIssue {
  line: number;
  message: string;
}

/** Tasks in file order, and what was skipped. */
export interface TaskFile {
  tasks: BatchTask[];
  issues: TaskFileIssue[];
}

/**
 * Parses `content` (YAML when the file name ends in .yaml/.yml, else JSONL). `knownAgents` holds
 * the agents' lookup keys (agentKey): a task may name an agent in any case.
 */
export function parseTaskFile(file: string, content: string, knownAgents: ReadonlySet<string>): TaskFile {
  const entries = /\.ya?ml$/i.test(file) ? yamlEntries(content) : jsonlEntries(content);
  const tasks: BatchTask[] = [];
  const issues: TaskFileIssue[] = [...entries.issues];
  const seen = new Map<string, number>();
  for (const { line, value } of entries.items) {
    const parsed = BatchTask.safeParse(value);
    if (!parsed.success) {
      issues.push({ line, message: formatZodError(parsed.error).join('; ') });
      continue;
    }
    const task = parsed.data;
    if (!knownAgents.has(agentKey(task.agent))) {
      issues.push({ line, message: `agent: unknown agent "${task.agent}"` });
      continue;
    }
    const first = seen.get(task.id);
    if (first !== undefined) {
      issues.push({ line, message: `id: duplicate id "${task.id}" (first on line ${first})` });
      continue;
    }
    seen.set(task.id, line);
    tasks.push(task);
  }
  issues.sort((a, b) => a.line - b.line);
  return { tasks, issues };
}

interface Entries {
  items: { line: number; value: unknown }[];
  issues: TaskFileIssue[];
}

function jsonlEntries(content: string): Entries {
  const items: Entries['items'] = [];
  const issues: TaskFileIssue[] = [];
  const lines = content.split('\n');
  lines.forEach((raw, i) => {
    const text = raw.trim();
    if (!text || text.startsWith('//') || text.startsWith('#')) return;
    try {
      items.push({ line: i + 1, value: JSON.parse(text) as unknown });
    } catch (error) {
      issues.push({ line: i + 1, message: `invalid JSON: ${(error as Error).message}` });
    }
  });
  return { items, issues };
}

function yamlEntries(content: string): Entries {
  const counter = new LineCounter();
  const doc = parseDocument(content, { lineCounter: counter, prettyErrors: false, customTags: [] });
  const issues: TaskFileIssue[] = doc.errors.map((e) => ({
    line: e.linePos?.[0].line ?? 1,
    message: `invalid YAML: ${e.message.split('\n')[0] ?? e.message}`,
  }));
  if (issues.length > 0) return { items: [], issues };
  const root =
    isMap(doc.contents) && doc.contents.get('tasks') !== undefined
      ? doc.contents.get('tasks', true)
      : doc.contents;
  if (!isSeq(root))
    return {
      items: [],
      issues: [{ line: 1, message: 'expected a YAML list of tasks (or a `tasks:` list)' }],
    };
  const items = root.items.map((node) => {
    const offset = (node as { range?: [number, number, number] }).range?.[0] ?? 0;
    return { line: counter.linePos(offset).line, value: (node as { toJSON(): unknown }).toJSON() };
  });
  return { items, issues: [] };
}
