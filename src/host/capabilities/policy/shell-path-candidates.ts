// Where the files a shell word names may be: each pattern a word may expand to, resolved from each
// directory the command may be in, and a glob turned into the concrete paths worth checking (the
// guarded names it could match). Also the protected entry a path falls in, from the one protected
// list (protected-paths.ts).
import path from 'node:path';
import { globCandidates, globTokens, globWitness, hasGlob, unescapeGlob } from './glob-overlap.js';
import type { PathDecideContext } from './path-decide.js';
import { relativeToRoot } from './path-match.js';
import { PROTECTED_PATHS, protectedPaths } from './protected-paths.js';
import { SENSITIVE_PATTERNS } from './sensitive.js';
import { escapeGlob } from './shell-quote.js';
import type { PolicyDecision } from './types.js';

/** What a command decision needs. */
export type ExecContext = PathDecideContext & { homeDir?: string; protect?: readonly string[] };

/** Where the guards resolve relative paths, and how globs may match. */
export interface GuardScope {
  /** Directories the command may be in when a part runs (absolute). */
  cwds: readonly string[];
  /** Globs may match names that start with a dot (`shopt -s dotglob` may be in force). */
  dotglob: boolean;
  /** Verdicts already reached in this decision, by directories (the same array while no `cd` changes them) and word. */
  memo?: Map<readonly string[], Map<string, PolicyDecision | null>>;
}

/** Names the glob check tries: sensitive names, protected paths and what deny rules name. */
function vocabulary(ctx: ExecContext): string[] {
  const words = new Set<string>();
  const add = (text: string) => {
    for (const seg of text.split('/')) if (seg !== '' && seg !== '**' && seg !== '.') words.add(seg);
  };
  for (const line of SENSITIVE_PATTERNS)
    for (const token of line.split(/[\s,()]+/)) add(token.replace(/[:;]+$/, ''));
  for (const p of protectedPaths(ctx.protect ?? [])) add(p);
  for (const r of [...ctx.rules.deny, ...ctx.rules.ask])
    if (r.specifier !== undefined && r.tool !== 'Bash') add(r.specifier);
  return [...words];
}

const vocabularies = new WeakMap<object, string[]>();
function vocabularyOf(ctx: ExecContext): string[] {
  let v = vocabularies.get(ctx.rules);
  if (!v) {
    v = vocabulary(ctx);
    vocabularies.set(ctx.rules, v);
  }
  return v;
}

/** Absolute patterns a word's pattern stands for, from each possible working directory. */
function resolvePattern(pattern: string, ctx: ExecContext, scope: GuardScope): string[] {
  if (pattern === '~' || pattern.startsWith('~/')) {
    return ctx.homeDir === undefined
      ? []
      : [path.posix.normalize(escapeGlob(ctx.homeDir) + pattern.slice(1))];
  }
  if (pattern.startsWith('/')) return [path.posix.normalize(pattern)];
  if (pattern.startsWith('~')) return [];
  // Most words are plain relative names: joining needs no normalising.
  const plain =
    !(pattern.includes('.') || pattern.includes('/')) || !/(^|\/)\.\.?(\/|$)|\/\/|\/$/.test(pattern);
  return scope.cwds.map((cwd) =>
    plain ? `${escapeGlob(cwd)}/${pattern}` : path.posix.normalize(`${escapeGlob(cwd)}/${pattern}`),
  );
}

/** A concrete path to check, and the absolute glob it came from (when it has glob characters). */
export interface Candidate {
  path: string;
  glob?: string;
}

/** Concrete paths to check for one pattern; undefined when a glob could match too much to check. */
export function candidates(pattern: string, ctx: ExecContext, scope: GuardScope): Candidate[] | undefined {
  const out: Candidate[] = [];
  for (const abs of resolvePattern(pattern, ctx, scope)) {
    if (!hasGlob(abs)) {
      out.push({ path: unescapeGlob(abs) });
      continue;
    }
    const found = globCandidates(abs, vocabularyOf(ctx), scope.dotglob);
    if (found === undefined) return undefined;
    out.push(...found.map((path) => ({ path, glob: abs })));
  }
  return out;
}

const PROBE = 'cadreprobe';

/**
 * The candidate with every segment its glob fills by a wildcard replaced by a neutral name the
 * glob also matches (`cadreprobe`, or `cadreprobe` with the same extension). If that path is still
 * guarded, the glob names the guarded path (`*.pem`, `.e?v`, `~/.ss?/id_rs?`); if not, the glob
 * only matches it as it matches anything (`src/*`, `*.json`), and the sandbox is what guards it.
 */
export function neutral(c: Candidate, dotglob: boolean): string {
  if (c.glob === undefined) return c.path;
  const globSegs = c.glob.split('/');
  const segs = c.path.split('/');
  return segs
    .map((seg, k) => {
      const g = globSegs[k] ?? '';
      if (!hasGlob(g)) return seg;
      const dot = seg.lastIndexOf('.');
      const probes = [PROBE, ...(dot > 0 ? [PROBE + seg.slice(dot)] : [])];
      const tokens = globTokens(g);
      return (
        probes.find(
          (p) => globWitness(tokens, globTokens(escapeGlob(p)), { shellDot: !dotglob }) !== undefined,
        ) ?? seg
      );
    })
    .join('/');
}

interface ProtectedIndex {
  /** Entries by their first segment (lowercased). */
  byFirst: Map<string, { entry: string; segs: string[] }[]>;
  /** Matches a path holding any first segment: most paths fail it and are cleared at once. */
  maybe: RegExp;
}

/** The protected list indexed, kept per list. */
const protectedIndex = new Map<readonly string[], ProtectedIndex>();
function indexOf(list: readonly string[]): ProtectedIndex {
  let index = protectedIndex.get(list);
  if (!index) {
    const byFirst = new Map<string, { entry: string; segs: string[] }[]>();
    for (const entry of list) {
      const segs = entry.toLowerCase().split('/');
      const first = segs[0] ?? '';
      byFirst.set(first, [...(byFirst.get(first) ?? []), { entry, segs }]);
    }
    const firsts = [...byFirst.keys()].map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    index = { byFirst, maybe: new RegExp(`(^|/)(${firsts.join('|')})(/|$)`) };
    if (protectedIndex.size > 64) protectedIndex.clear();
    protectedIndex.set(list, index);
  }
  return index;
}

/** The protected entry (one list, protected-paths.ts) a path is in or under, at any depth of a root. */
export function commandProtected(p: string, ctx: ExecContext): string | undefined {
  const rel = relativeToRoot(p, ctx);
  if (rel === undefined || rel === '') return undefined;
  const index = indexOf(ctx.protect ?? PROTECTED_PATHS);
  const lower = rel.toLowerCase();
  if (!index.maybe.test(lower)) return undefined;
  const segs = lower.split('/');
  for (let i = 0; i < segs.length; i++) {
    for (const { entry, segs: parts } of index.byFirst.get(segs[i] as string) ?? []) {
      if (i + parts.length <= segs.length && parts.every((seg, k) => segs[i + k] === seg)) return entry;
    }
  }
  return undefined;
}
