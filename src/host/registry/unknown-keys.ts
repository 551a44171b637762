// What an unknown front matter key means: harmless metadata (`author`, `tags`, `category`), ignored
// with a warning as Claude Code ignores it, or a key that could be meant to restrict the agent (a
// typo of a known key, a permission under another name), which stops the agent from loading: a
// misspelt `tools` would otherwise leave the agent with every tool.
import { AgentFrontmatter, IGNORED_FIELDS } from '../../shared/agent-definition.js';
import { closest } from '../../shared/closest.js';

const KNOWN_FIELDS: readonly string[] = Object.keys(AgentFrontmatter.shape);

// Spellings from other tools that edit distance alone would map to the wrong field. A Map, so a
// key such as `constructor` finds nothing instead of Object.prototype's members.
const PROMPT_HINT = 'prompt (or the Markdown body)';
const KEY_HINTS = new Map<string, string>([
  ['allowed-tools', 'tools'],
  ['allowedtools', 'tools'],
  ['allowed_tools', 'tools'],
  ['allowed', 'tools'],
  ['allow', 'tools'],
  ['tool', 'tools'],
  ['denied-tools', 'disallowedTools'],
  ['deniedtools', 'disallowedTools'],
  ['denied_tools', 'disallowedTools'],
  ['deny', 'disallowedTools'],
  ['denied', 'disallowedTools'],
  ['disallowed', 'disallowedTools'],
  ['permissions', 'permissionMode'],
  ['permission', 'permissionMode'],
  ['mode', 'permissionMode'],
  ['system-prompt', PROMPT_HINT],
  ['systemprompt', PROMPT_HINT],
  ['system_prompt', PROMPT_HINT],
  ['instructions', PROMPT_HINT],
]);

// A key that names a permission, however spelt (`tools_allowed`, `sandbox_mode`), could be meant to
// restrict the agent: ignoring it could leave the agent with every tool, so it is an error.
const PERMISSION_WORDS: ReadonlySet<string> = new Set([
  'tool',
  'tools',
  'permission',
  'permissions',
  'allow',
  'allowed',
  'allowlist',
  'deny',
  'denied',
  'disallow',
  'disallowed',
  'block',
  'blocked',
  'blocklist',
  'mode',
  'profile',
  'isolation',
  'depth',
  'sandbox',
  'access',
  'grant',
  'granted',
  'capability',
  'capabilities',
  'bypass',
]);

/** The words of a key: `allowedTools`, `allowed-tools` and `allowed_tools` are `allowed` and `tools`. */
function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== '');
}
const RESERVED_KEYS: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Why an unknown key stops the agent from loading, or undefined for harmless metadata: a key near
 * a known key (a typo), a key that reads like a permission, or a name JavaScript reserves.
 */
export function unknownKeyProblem(key: string): string | undefined {
  const hint = KEY_HINTS.get(key.toLowerCase()) ?? closest(key, [...KNOWN_FIELDS, ...IGNORED_FIELDS]);
  if (hint !== undefined) return `unknown field (did you mean "${hint}"?)`;
  if (keyWords(key).some((w) => PERMISSION_WORDS.has(w)))
    return "unknown field that reads like a permission setting; the agent is not loaded so it cannot get more than meant (cadre's are tools, disallowedTools, profile and permissionMode)";
  if (RESERVED_KEYS.has(key) || key.startsWith('__')) return 'unknown field';
  return undefined;
}
