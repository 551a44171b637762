// The quote retry never changes a security-relevant field: thousands of generated front matters
// mix the security fields, written in every YAML form, with lines that break a strict reading
// (and lines crafted to smuggle a field in through the retry). Whenever the retry is accepted,
// each security field must equal what the `yaml` package reads from the security lines alone.
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { splitFrontmatter } from '../../../src/host/registry/frontmatter.js';
import { SECURITY_FIELDS } from '../../../src/host/registry/quote-retry.js';

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Each security field in the forms YAML allows (every entry is one or more whole lines). */
const SECURITY_FORMS: Record<string, string[]> = {
  tools: [
    'tools: Read, Grep',
    'tools: "Read, Bash"',
    "tools: 'Edit'",
    'tools: [Read, Bash]',
    'tools:\n  - Read\n  - Glob',
    'tools:\n- Write\n- Bash',
    'tools: Read # , Bash',
    'tools:',
    '"tools": Grep',
    'tools: [Read,\n  Bash]',
    'tools: Task(explore, plan), Read',
  ],
  disallowedTools: ['disallowedTools: Bash', 'disallowedTools: [Write, Edit]', 'disallowedTools:\n  - Bash'],
  permissionMode: ['permissionMode: plan', 'permissionMode: "default"', 'permissionMode: bypassPermissions'],
  profile: ['profile: read-only', "profile: 'research'"],
  model: ['model: sonnet', 'model: "opus"', 'model: haiku # fast', 'model: claude-sonnet-5-5'],
  isolation: ['isolation: worktree'],
  maxDepth: ['maxDepth: 1', 'maxDepth: "2"', 'maxDepth: 0x3'],
};

/** Lines a strict reading refuses and the retry quotes, and lines crafted against the retry. */
const JUNK = [
  'description: Use when: the user asks',
  'description: Examples: <example>user: "hi" assistant: "I\'ll use it"</example>',
  'color: {red',
  'summary: *nothing',
  'note: &anchor value: x',
  'when: [unclosed',
  'hint: | tools: Bash',
  'extra: > tools: Bash',
  'cmd: !tag value: x',
  'flag: @everyone: hi',
  'pct: %50: off',
  'tick: `code`: x',
  'user: "Quoted start but: not end',
  'description: then tools: Bash and model: opus',
  'tools: Bash',
  'model: opus',
  'description: |',
  '  tools: Bash',
  'maxDepth: 9',
  'profile: full-access',
  'permissionMode: bypassPermissions',
  '# tools: Bash',
  'name: other-name',
];

function generate(rand: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const lines: string[] = ['name: generated'];
  const fields = SECURITY_FIELDS.filter(() => rand() < 0.5);
  const entries: string[] = [...fields.map((f) => pick(SECURITY_FORMS[f] ?? [])), pick(JUNK)];
  for (let i = Math.floor(rand() * 3); i > 0; i--) entries.push(pick(JUNK));
  if (rand() < 0.7) entries.push('description: plain text');
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [entries[i], entries[j]] = [entries[j] as string, entries[i] as string];
  }
  lines.push(...entries);
  return `---\n${lines.join('\n')}\n---\nBody\n`;
}

/** The security lines of `frontMatter` alone, whole entries in order (what a strict reader would see of them). */
function securityOnly(frontMatter: string): string {
  const out: string[] = [];
  let keep = false;
  for (const line of frontMatter.split('\n')) {
    if (/^[^\s#-]/.test(line) || /^-[^\s-]/.test(line)) {
      const key = /^(["']?)([^\s"':#][^"':]*?)\1\s*:/.exec(line)?.[2];
      keep = key !== undefined && SECURITY_FIELDS.includes(key);
    }
    if (keep) out.push(line);
  }
  return out.join('\n');
}

describe('the quote retry never changes a security-relevant field', () => {
  it('holds for 4,000 generated front matters', () => {
    const rand = random(20_260_401);
    let retried = 0;
    let refused = 0;
    for (let i = 0; i < 4000; i++) {
      const file = generate(rand);
      const split = splitFrontmatter(file);
      if (!split.ok) {
        refused++;
        continue;
      }
      if (split.retried === undefined) continue;
      retried++;
      const frontMatter = file.split('\n---\n')[0]?.slice(4) ?? '';
      let strict: Record<string, unknown> | null;
      try {
        strict = YAML.parse(securityOnly(frontMatter), { schema: 'core', uniqueKeys: true }) as Record<
          string,
          unknown
        > | null;
      } catch (error) {
        throw new Error(
          `the retry was accepted, but the security lines alone do not parse:\n${file}\n${String(error)}`,
        );
      }
      for (const field of SECURITY_FIELDS) {
        expect(split.data[field], `${field} in:\n${file}`).toEqual(strict?.[field]);
      }
      expect(split.data.name, file).toBe('generated');
    }
    // Both outcomes must be exercised for the property to mean anything.
    expect(retried).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });

  it('refuses the crafted cases outright', () => {
    const refusedCases = [
      // A second tools line that only a lenient reading would keep.
      'name: a\ndescription: x: y\ntools: Read\ntools: Bash',
      // The tool list itself does not parse: it is never rewritten, so the file is refused.
      'name: a\ndescription: x: y\ntools: [Read, Bash',
      // An alias into a quoted value: the tools line alone does not parse.
      'name: a\ndescription: &t x: y\ntools: *t',
      // The name twice.
      'name: a\ndescription: x: y\nname: b\ntools: Read',
    ];
    for (const fm of refusedCases) expect(splitFrontmatter(`---\n${fm}\n---\n`).ok, fm).toBe(false);
  });
});
