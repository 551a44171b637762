// Everything the tool results in the conversation say, gathered per file: which files exist, the
// definition-shaped lines Grep found, how many lines of each file mention the question's terms,
// the files whose names match, the files read whole, and the package's name and entry points.
import type { ToolRecord } from './conversation.js';
import { MANIFEST_READ, type PlannedCall } from './search-plan.js';
import {
  parseCounts,
  parseFileList,
  parseGrepContent,
  parseReadContent,
  isCut,
  type LineRef,
} from './tool-output.js';

/** One file read whole (or up to the read's limit). */
export interface ReadFile {
  lines: LineRef[];
  /** The file's length in lines, as the Read tool reported it. */
  total: number;
}

/** What the searches found. */
export interface Evidence {
  /** Every path any result named. */
  known: Set<string>;
  /** Definition-shaped lines the search returned, by file. */
  lines: Map<string, LineRef[]>;
  /** How many lines that is. */
  definitionLines: number;
  /** Files → lines mentioning any specific term. */
  mentions: Map<string, number>;
  /** Files → lines holding any plain word (matched loosely, as plain text). */
  words: Map<string, number>;
  /** Files whose names match a term. */
  named: Set<string>;
  reads: Map<string, ReadFile>;
  /** Files package.json names as entry points (main, module, bin, exports). */
  entries: Set<string>;
  /** The words of the package's name (`@vitejs/vite-monorepo` → vitejs, vite): they say nothing of where. */
  packageWords: string[];
  /** Tool calls that failed, for the report (expected misses such as no package.json are left out). */
  failures: string[];
  /** Searches whose output was cut, so their counts are lower bounds. */
  cut: string[];
}

/** Words of package names that are not the project's own name. */
const GENERIC = new Set(['monorepo', 'root', 'workspace', 'workspaces', 'packages', 'project', 'core']);

const key = (name: string, input: Record<string, unknown>) => `${name} ${JSON.stringify(input)}`;

/** Gathers the evidence of `records`, knowing the discovery calls that were planned. */
export function gatherEvidence(records: readonly ToolRecord[], planned: readonly PlannedCall[]): Evidence {
  const ev: Evidence = {
    known: new Set(),
    lines: new Map(),
    definitionLines: 0,
    mentions: new Map(),
    words: new Map(),
    named: new Set(),
    reads: new Map(),
    entries: new Set(),
    packageWords: [],
    failures: [],
    cut: [],
  };
  const purposes = new Map([...planned, MANIFEST_READ].map((p) => [key(p.name, p.input), p]));
  for (const r of records) {
    const plan = purposes.get(key(r.name, r.input));
    if (r.isError) {
      if (plan?.purpose !== 'package')
        ev.failures.push(`${r.name} ${describe(r)} failed: ${firstLine(r.content)}`);
      continue;
    }
    if (isCut(r.content)) ev.cut.push(`${r.name} ${describe(r)}`);
    if (r.name === 'Read') {
      const path = String(r.input['file_path']);
      if (plan?.purpose === 'package') {
        const pkg = readPackage(r.content);
        for (const f of pkg.entries) ev.entries.add(f);
        if (pkg.name !== undefined)
          ev.packageWords = pkg.name.split(/[^a-z0-9]+/).filter((w) => w.length >= 3 && !GENERIC.has(w));
        continue;
      }
      const lines = parseReadContent(r.content, path, Number(r.input['offset'] ?? 1));
      const total = /\[Showing lines \d+-\d+ of (\d+)/.exec(r.content)?.[1];
      ev.reads.set(path, { lines, total: total === undefined ? lines.length : Number(total) });
      ev.known.add(path);
    } else if (r.name === 'Glob') {
      if (plan?.purpose === 'manifest') continue;
      for (const f of parseFileList(r.content)) {
        ev.known.add(f);
        if (plan?.purpose === 'names' || plan?.purpose === 'file') ev.named.add(f);
      }
    } else if (r.name === 'Grep' && plan?.purpose === 'definitions') {
      const refs = parseGrepContent(r.content);
      ev.definitionLines += refs.length;
      for (const ref of refs) addLine(ev, ref);
    } else if (r.name === 'Grep' && (plan?.purpose === 'mentions' || plan?.purpose === 'words')) {
      const counts = parseCounts(r.content);
      if (plan.purpose === 'mentions') ev.mentions = counts;
      else ev.words = counts;
      for (const f of counts.keys()) ev.known.add(f);
    } else if (r.name === 'Grep') {
      for (const f of parseFileList(r.content)) ev.known.add(f);
    }
  }
  return ev;
}

/** Adds a line to its file's list. */
function addLine(ev: Evidence, ref: LineRef): void {
  ev.known.add(ref.path);
  const list = ev.lines.get(ref.path);
  if (list === undefined) ev.lines.set(ref.path, [ref]);
  else if (!list.some((l) => l.line === ref.line)) list.push(ref);
}

/** The name and the entry files package.json gives (main, module, bin, exports; not typings). */
function readPackage(content: string): { name?: string; entries: string[] } {
  const text = parseReadContent(content, 'package.json')
    .map((l) => l.text)
    .join('\n');
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch {
    return { entries: [] };
  }
  if (typeof pkg !== 'object' || pkg === null) return { entries: [] };
  const out: string[] = [];
  const visit = (v: unknown) => {
    if (typeof v === 'string') out.push(v.replace(/^\.\//, ''));
    else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) visit(x);
  };
  const record = pkg as Record<string, unknown>;
  for (const field of ['main', 'module', 'bin', 'exports']) visit(record[field]);
  const entries = out.filter((f) => /\.[cm]?[jt]sx?$/.test(f) && !/\.d\.[cm]?ts$/.test(f));
  const name =
    typeof record['name'] === 'string' ? record['name'].split('/').pop()?.toLowerCase() : undefined;
  return name === undefined ? { entries } : { name, entries };
}

function describe(r: ToolRecord): string {
  const arg = r.input['pattern'] ?? r.input['file_path'];
  return typeof arg === 'string' ? `\`${arg.length > 60 ? `${arg.slice(0, 60)}…` : arg}\`` : '';
}

function firstLine(s: string): string {
  return (s.split('\n').find((l) => l.trim() !== '') ?? '').trim();
}
