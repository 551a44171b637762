// What a command must not see inside the directories it can see: the project's secrets (the file
// tools' sensitive list, unless a Read allow rule names the file), every path a Read deny rule or
// `sandbox.denyRead` names, home credential stores, and sockets. Paths are hidden by mounting an
// empty file or directory over them, so every hidden path is resolved to where it really is.
import { lstatSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { CadreError } from '../../../shared/errors.js';
import { isUnder, matchPathSpec, type PathContext } from '../policy/path-match.js';
import { compileRules, type ParsedRule } from '../policy/rules.js';
import { findSensitive, specNames } from '../policy/sensitive.js';
import type { PolicyRules } from '../policy/types.js';
import { credentialsUnder, isCredential } from './home.js';
import type { HiddenEntry, ScanJudge, ScanResult, ScanSpec, TreeScanner } from './tree-scan.js';

/** The rules and places that decide what is hidden. */
export interface HideContext extends PathContext {
  rules: PolicyRules;
  /** Absolute paths from `sandbox.denyRead`. */
  denyRead: readonly string[];
  /** The host home directory, for credential stores. */
  home: string | undefined;
}

/** Most paths one sandbox hides; past it the command is refused rather than half hidden. */
const HIDDEN_CAP = 4096;

const GLOB = /[*?[\]{}]/;

/** Read rules with a path, from one list. */
function readSpecs(rules: readonly ParsedRule[]): string[] {
  return rules
    .filter((r) => r.tool === 'Read' && r.specifier !== undefined)
    .map((r) => r.specifier as string);
}

/** The deny and allow Read specifiers; a bare `Read` deny leaves commands nothing to read. */
function readRules(rules: PolicyRules): { deny: string[]; allow: string[] } {
  const parsed = compileRules(rules);
  const bare = parsed.deny.find((r) => r.tool === 'Read' && r.specifier === undefined);
  if (bare !== undefined)
    throw new CadreError(
      'sandbox_unavailable',
      `the deny rule "${bare.text}"${bare.origin ? ` in ${bare.origin}` : ''} denies reading every file, so no command can run; give it a path`,
    );
  return { deny: readSpecs(parsed.deny), allow: readSpecs(parsed.allow) };
}

/** The judge of a scan rooted at `root`: sockets, deny-rule matches, secrets below the root. */
function secretJudge(root: string, ctx: HideContext, specs: { deny: string[]; allow: string[] }): ScanJudge {
  const rootSegs = root === '/' ? 1 : root.split('/').length;
  return (abs, type) => {
    if (type === 'socket') return 'hide';
    if (specs.deny.some((s) => matchPathSpec(s, abs, ctx))) return 'hide';
    // Only the part below the root counts: a project kept under ~/.aws is not all secret.
    const hit = findSensitive(abs);
    if (
      hit !== undefined &&
      hit.keys.some((k) => k >= rootSegs) &&
      !specs.allow.some((s) => specNames(s, abs, hit, ctx))
    )
      return 'hide';
    if (ctx.home !== undefined && isCredential(abs, ctx.home)) return 'hide';
    return type === 'dir' ? 'descend' : 'keep';
  };
}

/** The literal directory a path pattern starts from (its part before the first glob character). */
function literalPrefix(pattern: string): string {
  const segs = pattern.split('/');
  const i = segs.findIndex((s) => GLOB.test(s));
  return i === -1 ? pattern : segs.slice(0, i).join('/') || '/';
}

/** Absolute patterns of a Read deny specifier (`//abs`, `~/x`, `/abs`), as path-match reads them. */
function absolutePatterns(spec: string, home: string | undefined): string[] {
  const s = spec.replace(/\/+$/, '');
  if (s.startsWith('//')) return [s.slice(1)];
  if (s === '~' || s.startsWith('~/')) return home === undefined ? [] : [path.posix.join(home, s.slice(1))];
  if (s.startsWith('/')) return [s];
  return [];
}

/** Whether a path lies in one of the visible roots. */
function visibleIn(p: string, roots: readonly string[]): boolean {
  return roots.some((r) => isUnder(p, r));
}

/**
 * Everything to hide, given the visible roots (`scanRoots` are walked; the others, system and home
 * toolchains, only get the credential and deny-rule checks). Entries are real paths inside a
 * visible root, deduplicated, without ones inside a hidden directory.
 */
export async function collectHidden(
  ctx: HideContext,
  scanner: TreeScanner,
  scanRoots: readonly string[],
  otherRoots: readonly string[],
): Promise<HiddenEntry[]> {
  return (await collectHiddenWith(ctx, scanner, scanRoots, otherRoots, [])).hidden;
}

/**
 * `collectHidden`, with other scans of the first scan root (`alongside`) made in the same pass:
 * each directory of the tree is then checked once, not once per scan. Their results follow, in order.
 */
export async function collectHiddenWith(
  ctx: HideContext,
  scanner: TreeScanner,
  scanRoots: readonly string[],
  otherRoots: readonly string[],
  alongside: readonly ScanSpec[],
): Promise<{ hidden: HiddenEntry[]; alongside: ScanResult[] }> {
  const specs = readRules(ctx.rules);
  const visible = [...scanRoots, ...otherRoots];
  const found: HiddenEntry[] = [];
  let others: ScanResult[] = [];
  // The judge depends only on these: the same key, the same verdicts.
  const key = JSON.stringify([specs, ctx.projectDir, ctx.extraRoots, ctx.homeDir ?? '', ctx.home ?? '']);
  for (const [i, root] of scanRoots.entries()) {
    const secrets: ScanSpec = { judge: secretJudge(root, ctx, specs), key: `${key}\0${root}` };
    const [result, ...rest] = await scanner.scanAll(root, [secrets, ...(i === 0 ? alongside : [])]);
    if (i === 0) others = rest;
    if (result === undefined || !result.complete)
      throw new CadreError(
        'sandbox_unavailable',
        `${root} has more than ${(result?.entries ?? 0) - 1} entries; the sandbox cannot check them all for secrets and sockets, so no command runs (narrow permissions.additionalDirectories or sandbox.allowRead, or use a smaller project directory)`,
      );
    found.push(...result.hidden);
  }
  if (ctx.home !== undefined) for (const root of visible) found.push(...credentialsUnder(root, ctx.home));
  for (const pattern of [...specs.deny.flatMap((s) => absolutePatterns(s, ctx.home)), ...ctx.denyRead]) {
    const prefix = literalPrefix(pattern);
    if (prefix === pattern) {
      found.push({ path: pattern, dir: false });
      continue;
    }
    // Walk only what is visible: the prefix itself, or the visible roots below it.
    const spec = `/${pattern}`;
    const targets = visibleIn(prefix, visible) ? [prefix] : visible.filter((r) => isUnder(r, prefix));
    for (const target of targets) {
      const result = await scanner.scan(
        target,
        (abs, type) => (matchPathSpec(spec, abs, ctx) ? 'hide' : type === 'dir' ? 'descend' : 'keep'),
        undefined,
        `${key}\0${spec}`,
      );
      found.push(...(result.complete ? result.hidden : [{ path: target, dir: true }]));
    }
  }
  return { hidden: settle(found, visible), alongside: others };
}

/** The real path of `p`, or undefined when it cannot be resolved. */
function realOrUndefined(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/**
 * Resolves hidden entries to real, existing, visible paths; drops duplicates and nested ones.
 * Synchronous: a few entries per command, where each promise costs a trip through the thread pool.
 */
function settle(found: readonly HiddenEntry[], visible: readonly string[]): HiddenEntry[] {
  const real = found.map((entry) => {
    const st = lstatSync(entry.path, { throwIfNoEntry: false });
    if (st === undefined) return undefined;
    const target = st.isSymbolicLink() ? realOrUndefined(entry.path) : entry.path;
    const tst = target === undefined ? undefined : statSync(target, { throwIfNoEntry: false });
    if (target === undefined || tst === undefined || !visibleIn(target, visible)) return undefined;
    return { path: target, dir: tst.isDirectory() };
  });
  const byPath = new Map<string, HiddenEntry>();
  for (const e of real) if (e !== undefined) byPath.set(e.path, e);
  const dirs = [...byPath.values()].filter((e) => e.dir).map((e) => e.path);
  const out = [...byPath.values()].filter((e) => !dirs.some((d) => d !== e.path && isUnder(e.path, d)));
  if (out.length > HIDDEN_CAP)
    throw new CadreError(
      'sandbox_unavailable',
      `the sandbox would have to hide ${out.length} paths (secrets, sockets, denied paths; at most ${HIDDEN_CAP}); no command runs`,
    );
  return out.sort((a, b) => a.path.localeCompare(b.path));
}
