// Reads a batch task file (JSONL, or a YAML list) into tasks. A bad line — invalid JSON, a missing
// or wrong field, an unknown agent or model alias, a duplicate id, a line over the size cap — is
// reported with its line number and skipped; it never stops the batch. YAML anchors and aliases
// (and `<<` merge keys) are resolved, with a cap on aliases so a "billion laughs" file is refused.
import * as z from 'zod';
import { LineCounter, parseDocument, isSeq, isMap, type Document } from 'yaml';
import type { AgentNames } from '../../shared/agent-name.js';
import { formatZodError } from '../../shared/zod-format.js';
import { modelNameProblem } from '../agents/model-resolve.js';
import { RANGES } from '../../shared/ranges.js';

/** The longest line of a JSONL tasks file (a long prompt fits; a runaway line is refused). */
const MAX_TASK_LINE_CHARS = 4 * 1024 * 1024;
/** The largest YAML tasks file: YAML takes many times its size in memory to parse. */
const MAX_YAML_TASKS_CHARS = 32 * 1024 * 1024;
/** Aliases one task may expand; more is an alias bomb. */
const MAX_YAML_ALIASES = 100;

/** One batch task. `timeout` is in seconds. */
export const BatchTask = z.strictObject({
  id: z.union([z.string().min(1).max(200), z.number().int().transform(String)]),
  agent: z.string().min(1),
  prompt: z.string().min(1),
  model: z.string().min(1).optional(),
  timeout: z.number().min(RANGES.timeout.min).max(RANGES.timeout.max).optional(),
  max_turns: z.number().int().min(RANGES.maxTurns.min).max(RANGES.maxTurns.max).optional(),
  cwd: z.string().min(1).optional(),
});
/** One batch task. */
export type BatchTask = z.output<typeof BatchTask>;

/** A skipped entry, with where it was. */
interface TaskFileIssue {
  line: number;
  message: string;
}

/** Tasks in file order, and what was skipped. */
export interface TaskFile {
  tasks: BatchTask[];
  issues: TaskFileIssue[];
}

/**
 * Parses `content` (YAML when the file name ends in .yaml/.yml, else JSONL). A task may name one of
 * `knownAgents` in any case; an unknown one gets a "did you mean".
 */
export function parseTaskFile(file: string, content: string, knownAgents: AgentNames): TaskFile {
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
    const { hint, found } = knownAgents.lookup(task.agent);
    if (found === undefined) {
      issues.push({
        line,
        message: `agent: unknown agent "${task.agent}"${hint ? ` (did you mean "${hint}"?)` : ''}`,
      });
      continue;
    }
    const modelProblem = task.model === undefined ? undefined : modelNameProblem(task.model, ['offline']);
    if (modelProblem !== undefined) {
      issues.push({ line, message: `model: ${modelProblem}` });
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
    if (raw.length > MAX_TASK_LINE_CHARS) {
      issues.push({
        line: i + 1,
        message: `the line is ${raw.length} characters, over the ${MAX_TASK_LINE_CHARS} limit`,
      });
      return;
    }
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
  if (content.length > MAX_YAML_TASKS_CHARS)
    return {
      items: [],
      issues: [
        {
          line: 1,
          message: `the YAML file is ${content.length} characters, over the ${MAX_YAML_TASKS_CHARS} limit; use JSONL for larger batches`,
        },
      ],
    };
  const counter = new LineCounter();
  const doc = parseDocument(content, {
    lineCounter: counter,
    prettyErrors: false,
    customTags: [],
    merge: true,
  });
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
  const items: Entries['items'] = [];
  for (const node of root.items) {
    const offset = (node as { range?: [number, number, number] }).range?.[0] ?? 0;
    const line = counter.linePos(offset).line;
    const value = resolveNode(doc, node);
    if ('error' in value) issues.push({ line, message: value.error });
    else items.push({ line, value: value.value });
  }
  return { items, issues };
}

/** One entry as plain data, its aliases resolved under the alias cap. */
function resolveNode(doc: Document, node: unknown): { value: unknown } | { error: string } {
  try {
    return {
      value: (node as { toJS(doc: Document, options: { maxAliasCount: number }): unknown }).toJS(doc, {
        maxAliasCount: MAX_YAML_ALIASES,
      }),
    };
  } catch (error) {
    const message = (error as Error).message;
    return {
      error: /excessive alias count/i.test(message)
        ? `the entry expands more than ${MAX_YAML_ALIASES} YAML aliases (an alias bomb?); refused`
        : `invalid YAML: ${message}`,
    };
  }
}
