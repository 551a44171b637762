// Permission rules in Claude Code's syntax (`Tool` or `Tool(specifier)`): parsing, validation with
// messages that name the rule, and which capabilities each tool's rules speak about.
import { CLAUDE_CODE_EQUIVALENTS, CLAUDE_CODE_ONLY_TOOLS } from '../../../shared/claude-code-tools.js';
import { closest } from '../../../shared/closest.js';
import { looksLikeMcp, parseMcpName } from '../../../shared/mcp-names.js';
import { TOOL_NAMES } from '../../../shared/tool-names.js';
import type { ToolName } from '../../../shared/tools.js';
import { expandBraces } from '../../../shared/glob.js';
import { isAgentName } from '../../../shared/agent-name.js';
import type { PolicyDecision, PolicyRules, RuleEntry } from './types.js';

/** The tools a rule may name: cadre's own tools. `Edit` covers Claude Code's other edit tools; `Task` covers `Agent`. */
const RULE_TOOLS = TOOL_NAMES;
/** A tool a rule may name (besides `mcp__...` names). */
export type RuleTool = ToolName;

// A rule naming NotebookEdit speaks about editing files, so it binds Edit (a deny only narrows).
const ALIASES: Record<string, RuleTool> = {
  ...(CLAUDE_CODE_EQUIVALENTS as Record<string, RuleTool>),
  NotebookEdit: 'Edit',
};

/** A parsed rule. `tool` is canonical (`Edit` for `MultiEdit`), or a full `mcp__...` name. */
export interface ParsedRule {
  text: string;
  origin?: string;
  tool: RuleTool | 'mcp';
  /** For mcp rules: the name as written (`mcp__server`, `mcp__server__tool`, `mcp__server__*`). */
  mcpName?: string;
  /** The text inside the parentheses, trimmed; absent for a bare tool name. */
  specifier?: string;
}

/** The rule lists, parsed; malformed rules are left out (see `validateRules`). */
export interface ParsedRules {
  allow: ParsedRule[];
  ask: ParsedRule[];
  deny: ParsedRule[];
}

const RULE_SHAPE = /^([A-Za-z][A-Za-z0-9_-]*)(?:\(([\s\S]*)\))?$/;

/** Parses one rule, or says what is wrong with it. */
function parseRule(entry: RuleEntry): ParsedRule | { error: string } {
  const text = typeof entry === 'string' ? entry : entry?.rule;
  const origin = typeof entry === 'object' && entry !== null ? entry.origin : undefined;
  if (typeof text !== 'string' || text.trim() === '') return { error: 'a rule must be a non-empty string' };
  const trimmed = text.trim();
  const withOrigin = (rule: ParsedRule): ParsedRule =>
    typeof origin === 'string' ? { ...rule, origin } : rule;
  if (looksLikeMcp(trimmed)) {
    if (parseMcpName(trimmed) === undefined)
      return {
        error: `"${trimmed}" is not an MCP rule (use mcp__server, mcp__server__tool or mcp__server__*)`,
      };
    return withOrigin({ text: trimmed, tool: 'mcp', mcpName: trimmed });
  }
  const m = RULE_SHAPE.exec(trimmed);
  if (!m)
    return { error: `"${trimmed}" is not a rule: write Tool or Tool(specifier), e.g. Bash(git status:*)` };
  const name = m[1] ?? '';
  const spec = m[2]?.trim();
  const tool =
    (Object.hasOwn(ALIASES, name) ? ALIASES[name] : undefined) ??
    (RULE_TOOLS as readonly string[]).find((t) => t === name);
  if (tool === undefined && CLAUDE_CODE_ONLY_TOOLS.has(name))
    return { error: `"${trimmed}" names ${name}, a Claude Code tool cadre does not have` };
  if (tool === undefined) {
    const hint = closest(name, [...RULE_TOOLS, ...Object.keys(ALIASES)]);
    return {
      error: `"${trimmed}" names an unknown tool "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}`,
    };
  }
  if (spec === undefined) return withOrigin({ text: trimmed, tool: tool as RuleTool });
  const problem = specifierProblem(tool as RuleTool, spec);
  if (problem) return { error: `"${trimmed}": ${problem}` };
  return withOrigin({ text: trimmed, tool: tool as RuleTool, specifier: spec });
}

function specifierProblem(tool: RuleTool, spec: string): string | undefined {
  if (spec === '') return 'the parentheses are empty (write the bare tool name to match every use)';
  switch (tool) {
    case 'Bash':
      if (spec.indexOf(':*') !== -1 && !spec.endsWith(':*')) return '":*" may only end the command prefix';
      if (spec === ':*') return 'the prefix before ":*" is empty';
      return undefined;
    case 'WebFetch':
      if (!/^domain:(\*\.)?[A-Za-z0-9.-]+(:\d+)?$/.test(spec))
        return 'write WebFetch(domain:example.com) or WebFetch(domain:*.example.com)';
      return undefined;
    case 'Task': {
      const bad = spec
        .split(',')
        .map((s) => s.trim())
        .find((s) => s !== '*' && !isAgentName(s));
      return bad === undefined ? undefined : `"${bad}" is not an agent type`;
    }
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'Glob':
    case 'Grep':
    case 'LS':
      if (spec.includes('\0')) return 'a path cannot contain a NUL byte';
      try {
        expandBraces(spec);
      } catch (error) {
        return (error as Error).message;
      }
      return undefined;
    default:
      return `${tool} rules take no specifier`;
  }
}

/** Every problem in a rule set, one message per bad rule, naming its list and origin. */
export function validateRules(rules: PolicyRules): string[] {
  const problems: string[] = [];
  for (const list of ['allow', 'ask', 'deny'] as const) {
    const entries = rules[list];
    if (entries === undefined) continue;
    if (!Array.isArray(entries)) {
      problems.push(`permissions.${list}: must be a list of rules`);
      continue;
    }
    for (const entry of entries as readonly RuleEntry[]) {
      const parsed = parseRule(entry);
      if ('error' in parsed) {
        const origin = typeof entry === 'object' && entry !== null && entry.origin ? `${entry.origin}: ` : '';
        problems.push(`${origin}permissions.${list}: ${parsed.error}`);
      }
    }
  }
  return problems;
}

/**
 * Parsed lists, keyed by the list array; the snapshot catches a list changed in place (a rule
 * pushed, or a `{ rule, origin }` entry rewritten: objects are kept as copies and compared by value).
 */
const cache = new WeakMap<object, { snapshot: unknown[]; parsed: ParsedRule[] }>();

const snapshotOf = (entry: unknown): unknown =>
  typeof entry === 'object' && entry !== null ? { ...entry } : entry;

function sameEntry(kept: unknown, entry: unknown): boolean {
  if (typeof kept !== 'object' || kept === null) return kept === entry;
  if (typeof entry !== 'object' || entry === null) return false;
  const a = kept as Record<string, unknown>;
  const b = entry as Record<string, unknown>;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function parseList(entries: unknown): ParsedRule[] {
  if (!Array.isArray(entries)) return [];
  const hit = cache.get(entries);
  if (hit && hit.snapshot.length === entries.length && hit.snapshot.every((e, i) => sameEntry(e, entries[i])))
    return hit.parsed;
  const parsed = entries.flatMap((e: RuleEntry) => {
    const rule = parseRule(e);
    return 'error' in rule ? [] : [rule];
  });
  cache.set(entries, { snapshot: entries.map(snapshotOf), parsed });
  return parsed;
}

/** Parses a rule set (memoised per list); malformed rules match nothing. */
export function compileRules(rules: PolicyRules | undefined): ParsedRules {
  if (rules === undefined || rules === null || typeof rules !== 'object')
    return { allow: [], ask: [], deny: [] };
  return { allow: parseList(rules.allow), ask: parseList(rules.ask), deny: parseList(rules.deny) };
}

/** `matches rule "X" in file` (or without the file when unknown). */
export function describeRule(list: 'allow' | 'ask' | 'deny', rule: ParsedRule): string {
  return `${list} rule "${rule.text}"${rule.origin ? ` in ${rule.origin}` : ''}`;
}

/** `{ origin }` of a rule, when its file is known. */
export function ruleOrigin(rule: ParsedRule): { origin?: string } {
  return rule.origin === undefined ? {} : { origin: rule.origin };
}

/** The verdict a matched rule gives, with a reason naming the rule and where it came from. */
export function ruleVerdict(list: 'allow' | 'ask' | 'deny', rule: ParsedRule, what: string): PolicyDecision {
  const reason = `${what}: matches ${describeRule(list, rule)}`;
  return list === 'deny'
    ? {
        decision: 'deny',
        code: 'permission_denied',
        reason: `${reason} (deny rules win over every allow rule and mode)`,
        rule: rule.text,
        ...ruleOrigin(rule),
      }
    : { decision: list, reason, rule: rule.text, ...ruleOrigin(rule) };
}

/** Rule tools whose path rules apply to a file capability. */
export function pathToolsFor(capability: string): readonly RuleTool[] {
  switch (capability) {
    case 'fs.read':
    case 'fs.stat':
      return ['Read'];
    case 'fs.readMany':
      return ['Read', 'Grep'];
    case 'fs.glob':
      return ['Read', 'Glob'];
    case 'fs.list':
      return ['Read', 'LS'];
    case 'fs.write':
      return ['Write', 'Edit'];
    default:
      return [];
  }
}
