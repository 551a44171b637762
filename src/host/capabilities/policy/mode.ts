// What each permission mode decides when no rule does, with reasons that name the way out.
import type { PermissionMode } from '../../../shared/task.js';
import type { PolicyDecision } from './types.js';

/** The kinds of effect a capability has. */
export type EffectKind = 'read' | 'write' | 'exec' | 'web' | 'mcp' | 'agent' | 'internal';

const PLAN_DENIAL = 'denied in plan mode (read-only)';

/** The denial plan mode gives to anything that changes the world. */
export function planDenial(kind: EffectKind, what: string): PolicyDecision {
  const way =
    kind === 'write'
      ? 'use --permission-mode default or acceptEdits'
      : kind === 'exec'
        ? 'use --permission-mode default (commands ask) or bypassPermissions'
        : 'use --permission-mode default, or name it in an allow rule';
  return { decision: 'deny', code: 'permission_denied', reason: `${what}: ${PLAN_DENIAL}; ${way}` };
}

/** True when plan mode forbids this kind of effect outright (allow rules do not reopen it). */
export function planForbids(mode: PermissionMode, kind: EffectKind): boolean {
  return mode === 'plan' && (kind === 'write' || kind === 'exec');
}

/**
 * The mode's verdict when no rule matched. `what` describes the call ("writing src/a.ts"),
 * `suggestions` are allow rules that would let it through.
 */
export function modeDefault(
  mode: PermissionMode,
  kind: EffectKind,
  what: string,
  suggestions: string[],
): PolicyDecision {
  const rules =
    suggestions.length > 0
      ? `an allow rule such as ${suggestions.map((s) => `"${s}"`).join(', ')}`
      : 'an allow rule';
  if (kind === 'read' || kind === 'agent' || kind === 'internal') {
    return { decision: 'allow', reason: `${what}: allowed in ${mode} mode` };
  }
  if (mode === 'bypassPermissions')
    return { decision: 'allow', reason: `${what}: allowed in bypassPermissions mode` };
  const ask = (reason: string): PolicyDecision =>
    suggestions.length > 0 ? { decision: 'ask', reason, suggestions } : { decision: 'ask', reason };
  switch (kind) {
    case 'write':
      if (mode === 'acceptEdits')
        return { decision: 'allow', reason: `${what}: allowed in acceptEdits mode` };
      if (mode === 'plan') return planDenial(kind, what);
      return ask(
        `${what} needs approval in ${mode} mode; allow it with --permission-mode acceptEdits or ${rules}`,
      );
    case 'exec':
      if (mode === 'plan') return planDenial(kind, what);
      return ask(
        `${what} needs approval in ${mode} mode; allow it with ${rules} or --permission-mode bypassPermissions`,
      );
    case 'mcp':
      if (mode === 'plan') return planDenial(kind, what);
      return ask(
        `${what} needs approval in ${mode} mode; allow it with ${rules} or --permission-mode bypassPermissions`,
      );
    case 'web':
      return ask(
        `${what} needs approval in ${mode} mode; allow it with ${rules} or --permission-mode bypassPermissions`,
      );
  }
}
