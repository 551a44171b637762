// The guards a file path passes besides rules and modes: a read of a secret (by name, or a private
// key by what the file begins with) is denied, and a write to a protected path or to what npm runs
// in a package.json asks, in every mode, unless an allow rule names the path.
import type { PathDecideContext, PathFacts } from './path-decide.js';
import { ruleSpecFor } from './path-match.js';
import { findProtected, findSensitive, type SensitiveHit } from './sensitive.js';
import type { PolicyDecision, ResolvedPath } from './types.js';

/** Sensitivity hits of each form, if any. */
function hitsOf(
  forms: readonly string[],
  find: (p: string) => SensitiveHit | undefined,
): [string, SensitiveHit][] {
  const hits: [string, SensitiveHit][] = [];
  for (const p of forms) {
    const hit = find(p);
    if (hit) hits.push([p, hit]);
  }
  return hits;
}

/** Whether allow rules name every sensitive hit (a wide wildcard does not count). */
export type NamedCheck = (hits: [string, SensitiveHit][]) => boolean;

/** A read of a secret (by name, or a private key by content) that no allow rule names: denied. */
export function secretRead(
  rp: ResolvedPath,
  forms: readonly string[],
  ctx: PathDecideContext,
  facts: PathFacts,
  named: NamedCheck,
): PolicyDecision | undefined {
  const hits = hitsOf(forms, findSensitive);
  if (facts.content === 'private-key') {
    // The file's name is what a rule must name: `Read(certs/server.txt)`, not `Read(**)`.
    for (const p of forms)
      hits.push([p, { label: 'a private key (it begins with one)', keys: [lastIndex(p)] }]);
  }
  const first = hits[0];
  if (!first || named(hits)) return undefined;
  const real = forms[forms.length - 1];
  const via = first[0] === real && forms.length > 1 ? ` (it leads to ${real})` : '';
  const rule = `Read(${ruleSpecFor(first[0], ctx)})`;
  return {
    decision: 'deny',
    code: 'sensitive_path',
    reason: `"${rp.requested}"${via} is a sensitive file (${first[1].label}) and is not read by default; allow it with an allow rule that names it, such as "${rule}"`,
    suggestions: [rule],
  };
}

/** A write to a protected path, or a package.json change to code npm runs, with no allow rule naming it: asks. */
export function guardedWrite(
  forms: readonly string[],
  ctx: PathDecideContext,
  facts: PathFacts,
  named: NamedCheck,
  what: () => string,
): PolicyDecision | undefined {
  const hits = hitsOf(forms, (p) => findProtected(p, ctx));
  for (const p of forms) {
    const manifest = manifestHit(p, facts);
    if (manifest) hits.push([p, manifest]);
  }
  const first = hits[0];
  if (!first || named(hits)) return undefined;
  const suggestion = `Edit(${ruleSpecFor(first[0], ctx)})`;
  return {
    decision: 'ask',
    reason: `${what()} touches ${first[1].label}, which always needs approval; allow it with an allow rule that names it, such as "${suggestion}"`,
    suggestions: [suggestion],
  };
}

/** A write to a `package.json` that changes what npm runs (or whose change could not be read). */
function manifestHit(p: string, facts: PathFacts): SensitiveHit | undefined {
  const last = lastIndex(p);
  if (p.slice(p.lastIndexOf('/') + 1).toLowerCase() !== 'package.json') return undefined;
  const keys = facts.codeKeysChanged;
  if (keys === undefined)
    return { label: 'package.json (the change to its scripts could not be checked)', keys: [last] };
  if (keys.length === 0) return undefined;
  return {
    label: `package.json's ${keys.map((k) => `"${k}"`).join(', ')} (npm and git hooks run what it holds)`,
    keys: [last],
  };
}

function lastIndex(p: string): number {
  return p.split('/').length - 1;
}
