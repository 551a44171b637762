// Where the files a shell word names may be: each pattern a word may expand to, resolved from each
// directory the command may be in, and a glob turned into the concrete paths worth checking (the
// guarded names it could match). Also the protected entry a path falls in, from the one protected
// list (protected-paths.ts) with the config's additions.
import path from 'node:path';
import {
  acceptedChar,
  globCandidates,
  globTokens,
  globWitness,
  hasGlob,
  literalPositions,
  unescapeGlob,
} from './glob-overlap.js';
import type { PathDecideContext } from './path-decide.js';
import { relativeToRoot } from './path-match.js';
import { PROTECTED_PATHS, protectedEntry } from './protected-paths.js';
import { SENSITIVE_PATTERNS } from './sensitive.js';
import { escapeGlob } from './shell-quote.js';
import type { PolicyDecision } from './types.js';

/** What a command decision needs (`protect` is the whole protected list, `records` cadre's records). */
export type ExecContext = PathDecideContext & { homeDir?: string };

/** Where the guards resolve relative paths, and how globs may match. */
export interface GuardScope {
  /** Directories the command may be in when a part runs (absolute). */
  cwds: readonly string[];
  /** Globs may match names that start with a dot (`shopt -s dotglob` may be in force). */
  dotglob: boolean;
  /** Verdicts already reached in this decision, by directories (the same array while no `cd` changes them) and word. */
  memo?: Map<readonly string[], Map<string, PolicyDecision | null>>;
}

/** Names the glob check tries: sensitive names, protected paths, cadre's records and what deny rules name. */
function vocabulary(ctx: ExecContext): string[] {
  const words = new Set<string>();
  const add = (text: string) => {
    for (const seg of text.split('/')) if (seg !== '' && seg !== '**' && seg !== '.') words.add(seg);
  };
  for (const line of SENSITIVE_PATTERNS)
    for (const token of line.split(/[\s,()]+/)) add(token.replace(/[:;]+$/, ''));
  for (const p of ctx.protect ?? PROTECTED_PATHS) add(p);
  for (const r of ctx.records ?? []) add(r);
  for (const r of [...ctx.rules.deny, ...ctx.rules.ask])
    if (r.specifier !== undefined && r.tool !== 'Bash') add(r.specifier);
  return [...words];
}

// Kept per rules, protected list and records: the policy passes the same arrays for the same text.
const vocabularies = new WeakMap<object, Map<string, string[]>>();
function vocabularyOf(ctx: ExecContext): string[] {
  let byLists = vocabularies.get(ctx.rules);
  if (!byLists) {
    byLists = new Map();
    vocabularies.set(ctx.rules, byLists);
  }
  const key = `${(ctx.protect ?? PROTECTED_PATHS).join('\0')}\u0001${(ctx.records ?? []).join('\0')}`;
  let v = byLists.get(key);
  if (!v) {
    v = vocabulary(ctx);
    if (byLists.size >= 16) byLists.clear();
    byLists.set(key, v);
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
 * glob also matches (`cadreprobe`, or `cadreprobe` with the same extension); a segment no such name
 * fits is kept as it is.
 */
function neutral(c: Candidate, dotglob: boolean): string {
  return mapGlobSegments(c, (seg, tokens) => {
    const dot = seg.lastIndexOf('.');
    const probes = [PROBE, ...(dot > 0 ? [PROBE + seg.slice(dot)] : [])];
    return (
      probes.find(
        (p) => globWitness(tokens, globTokens(escapeGlob(p)), { shellDot: !dotglob }) !== undefined,
      ) ?? seg
    );
  });
}

/** The candidate with what each glob segment's wildcards match made neutral, its literal text kept: `a*` → `acadreprobe`. */
function wildcardsNeutral(c: Candidate, dotglob: boolean): string {
  return mapGlobSegments(c, (seg, tokens) => {
    let out = '';
    for (const t of tokens) {
      const ch = t.kind === 'star' ? PROBE : acceptedChar(t, !dotglob && out === '');
      // A set nothing neutral fits: the segment stays as the candidate has it.
      if (ch === undefined) return seg;
      out += ch;
    }
    return out;
  });
}

/** A character no rule, list or name uses, standing for a literal character of a glob. */
const BLANK = '\u0001';

/**
 * The candidate with the characters each glob segment's literal text matched made blank, what its
 * wildcards matched kept: `a*` matching `a.env` → `\x01.env`. One variant for each way the glob
 * matches; undefined when there are too many ways to check.
 */
function literalsNeutral(c: Candidate): string[] | undefined {
  const globSegs = (c.glob ?? '').split('/');
  let variants: string[][] = [[]];
  for (const [k, seg] of c.path.split('/').entries()) {
    const g = globSegs[k] ?? '';
    let forms = [seg];
    if (hasGlob(g)) {
      const ways = literalPositions(globTokens(g), seg);
      if (ways === undefined || ways.length === 0) return undefined;
      forms = ways.map((taken) => [...seg].map((ch, i) => (taken.includes(i) ? BLANK : ch)).join(''));
    }
    variants = variants.flatMap((v) => forms.map((f) => [...v, f]));
    if (variants.length > 16) return undefined;
  }
  return variants.map((v) => v.join('/'));
}

function mapGlobSegments(
  c: Candidate,
  map: (seg: string, tokens: ReturnType<typeof globTokens>) => string,
): string {
  if (c.glob === undefined) return c.path;
  const globSegs = c.glob.split('/');
  return c.path
    .split('/')
    .map((seg, k) => {
      const g = globSegs[k] ?? '';
      return hasGlob(g) ? map(seg, globTokens(g)) : seg;
    })
    .join('/');
}

/**
 * Whether a glob names the guarded path it may match, so that naming the glob asks: `*.pem`,
 * `.e?v`, `id_*`, `~/.ss?/id_rs?`, `~/.ssh/*`, `.e*`. A glob that only matches the path as it
 * matches anything does not (`src/*`, `*.json`, `a*` matching `a.env`, `*rc` matching `id_rc`):
 * the sandbox is what guards those. Named means: still guarded with a neutral name where no
 * neutral name can stand in for a wildcard (as `*.pem` stays `cadreprobe.pem`), and either still
 * guarded with the wildcards' part made neutral (the glob's own text names it) or no longer guarded,
 * for some way the glob matches, with the glob's literal characters blanked (they are part of
 * what makes it guarded).
 */
export function namesGuarded(c: Candidate, dotglob: boolean, guarded: (p: string) => boolean): boolean {
  if (c.glob === undefined) return true;
  if (!guarded(neutral(c, dotglob))) return false;
  if (guarded(wildcardsNeutral(c, dotglob))) return true;
  const blanked = literalsNeutral(c);
  return blanked === undefined || blanked.some((p) => !guarded(p));
}

/** The protected entry (one list, protected-paths.ts) a path is in or under, at any depth of a root. */
export function commandProtected(p: string, ctx: ExecContext): string | undefined {
  const rel = relativeToRoot(p, ctx);
  return rel === undefined ? undefined : protectedEntry(rel, ctx.protect ?? PROTECTED_PATHS)?.entry;
}
