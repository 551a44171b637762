import { beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  decideEach,
  type PolicyInput,
  loadShellGrammar,
} from '../../../src/host/capabilities/policy.js';
import { cpuMs } from '../../support/cpu-time.js';

// Commands are read with the bash grammar, loaded once per process.
beforeAll(() => loadShellGrammar());

/** A small seeded PRNG (mulberry32) so a failure can be replayed. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SHELL_BITS = [
  ' ',
  'a',
  'rm',
  'ls',
  '-rf',
  '/',
  '.',
  '..',
  '"',
  "'",
  '`',
  '$',
  '(',
  ')',
  '{',
  '}',
  '$(',
  '&&',
  '||',
  ';',
  '|',
  '&',
  '>',
  '>>',
  '<',
  '<<',
  'EOF',
  '\n',
  '\\',
  '#',
  '*',
  '?',
  '[',
  ']',
  '=',
  'X=1',
  'sudo',
  'env',
  'xargs',
  'bash -c',
  'eval',
  '.env',
  '~',
  '\t',
  '\0',
  'é',
  '😀',
];
const RULE_BITS = [
  'Bash',
  'Read',
  'Write',
  'Edit',
  'WebFetch',
  'Task',
  'mcp__',
  '(',
  ')',
  ':*',
  '*',
  '**',
  '/',
  '//',
  '~/',
  '.env',
  'domain:',
  'x',
  ' ',
  '{a,b}',
  '[',
  '\\',
  ',',
];
const MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'weird', undefined, 3];
const CAPS = [
  'fs.read',
  'fs.readMany',
  'fs.glob',
  'fs.stat',
  'fs.list',
  'fs.write',
  'exec.run',
  'web.fetch',
  'mcp.call',
  'agents.task',
  'todos.write',
  'events.emit',
  'nope',
  '',
  '__proto__',
  'constructor',
];

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)] as T;
}

function junk(r: () => number, bits: readonly string[], max: number): string {
  let s = '';
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += pick(r, bits);
  return s;
}

function junkValue(r: () => number): unknown {
  return pick(r, [null, undefined, 42, '', 'x', [], {}, { requested: 1 }, junk(r, SHELL_BITS, 10), ['a', 1]]);
}

describe('decide never throws', () => {
  it('on hundreds of random commands, paths and rules', () => {
    const r = rng(1234);
    const verdicts = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const path = junk(r, SHELL_BITS, 8);
      const abs = r() < 0.7 ? `/proj/${path}` : path;
      const input = {
        capability: pick(r, CAPS),
        projectDir: r() < 0.95 ? '/proj' : junkValue(r),
        extraRoots: r() < 0.8 ? ['/extra'] : junkValue(r),
        homeDir: r() < 0.8 ? '/home/u' : junkValue(r),
        mode: pick(r, MODES),
        command: r() < 0.9 ? junk(r, SHELL_BITS, 40) : junkValue(r),
        url: r() < 0.5 ? `https://${junk(r, ['a', '.', '-', ':', '/', '@', '%'], 12)}` : junkValue(r),
        tool: r() < 0.5 ? `mcp__${junk(r, ['a', '_', '*'], 8)}` : junkValue(r),
        agentType: junkValue(r),
        pattern: r() < 0.8 ? junk(r, ['*', '**', '/', '..', '{', '}', ',', 'a', '['], 8) : junkValue(r),
        path:
          r() < 0.8
            ? {
                requested: path,
                absolute: abs,
                real: r() < 0.8 ? abs : junk(r, SHELL_BITS, 5),
                exists: r() < 0.5,
              }
            : junkValue(r),
        paths:
          r() < 0.3
            ? [junkValue(r), { requested: 'a', absolute: '/proj/a', real: '/proj/a', exists: true }]
            : undefined,
        rules: {
          allow: Array.from({ length: Math.floor(r() * 4) }, () => junk(r, RULE_BITS, 8)),
          ask: r() < 0.5 ? [junk(r, RULE_BITS, 8)] : junkValue(r),
          deny: Array.from({ length: Math.floor(r() * 3) }, () =>
            r() < 0.8 ? junk(r, RULE_BITS, 8) : junkValue(r),
          ),
        },
      } as unknown as PolicyInput;
      let result: ReturnType<typeof decide> | undefined;
      expect(() => {
        result = decide(input);
      }, JSON.stringify(input)).not.toThrow();
      expect(['allow', 'ask', 'deny']).toContain(result?.decision);
      expect(typeof result?.reason).toBe('string');
      expect(result?.reason.length).toBeGreaterThan(0);
      expect(result?.code).not.toBe('internal');
      verdicts.add(result?.decision ?? '');
    }
    // The generator reaches every verdict, so the loop exercised real decisions, not only rejections.
    expect(verdicts).toEqual(new Set(['allow', 'ask', 'deny']));
  });

  it('decideEach gives each path exactly the verdict decide gives it alone', () => {
    const r = rng(99);
    const names = ['a.ts', '.env', 'id_rsa', 'src', '..', '.git', 'config', 'x.pem', '.cadre', 'sub'];
    for (let i = 0; i < 200; i++) {
      const paths = Array.from({ length: 1 + Math.floor(r() * 6) }, () => {
        if (r() < 0.1) return junkValue(r);
        const rel = Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, names)).join('/');
        const abs = r() < 0.85 ? `/proj/${rel}` : `/elsewhere/${rel}`;
        return { requested: rel, absolute: abs, real: r() < 0.8 ? abs : `/proj/link/${rel}`, exists: true };
      });
      const base = {
        capability: pick(r, ['fs.read', 'fs.write', 'fs.stat', 'fs.glob']),
        projectDir: '/proj',
        extraRoots: r() < 0.5 ? ['/extra'] : [],
        homeDir: '/home/u',
        mode: pick(r, MODES),
        rules: {
          allow: Array.from({ length: Math.floor(r() * 3) }, () => junk(r, RULE_BITS, 6)),
          ask: [],
          deny: Array.from({ length: Math.floor(r() * 2) }, () => junk(r, RULE_BITS, 6)),
        },
      } as unknown as PolicyInput;
      const each = decideEach({ ...base, paths });
      expect(each).toHaveLength(paths.length);
      paths.forEach((path, j) => expect(each[j]).toEqual(decide({ ...base, path } as PolicyInput)));
    }
  });

  it.each([
    null,
    undefined,
    0,
    'fs.read',
    [],
    {},
    { capability: 'exec.run' },
    { capability: 'fs.read', mode: 'default', projectDir: '/p', path: null },
  ])('on the malformed input %j', (input) => {
    const result = decide(input as unknown as PolicyInput);
    expect(result.decision).toBe('deny');
    expect(result.reason.length).toBeGreaterThan(0);
  });

  it('on deeply nested substitutions and a pathological command, quickly', () => {
    const deep = '$('.repeat(200) + 'rm x' + ')'.repeat(200);
    const many = Array.from({ length: 2000 }, (_, i) => `echo ${i}`).join(' && ');
    const quotes = '"'.repeat(10_001);
    const start = cpuMs();
    for (const command of [deep, many, quotes, '`'.repeat(5000), '<<EOF\n'.repeat(3000)]) {
      const result = decide({
        capability: 'exec.run',
        command,
        projectDir: '/p',
        mode: 'default',
        rules: { allow: ['Bash(echo:*)'] },
      });
      expect(result.decision).not.toBe('allow');
    }
    expect(cpuMs() - start).toBeLessThan(2000);
  });

  it('judges a typical call in well under a millisecond', () => {
    const rules = {
      allow: ['Bash(git status:*)', 'Bash(npm run test:*)', 'Write(src/**)', 'Read(**/.env)'],
      deny: ['Bash(rm:*)', 'Read(secrets/**)'],
    };
    const path = { requested: 'src/a/b.ts', absolute: '/p/src/a/b.ts', real: '/p/src/a/b.ts', exists: true };
    const n = 2000;
    const start = cpuMs();
    for (let i = 0; i < n; i++) {
      decide({
        capability: 'exec.run',
        command: 'git status && npm run test -- --watch | grep x',
        projectDir: '/p',
        mode: 'default',
        rules,
      });
      decide({ capability: 'fs.write', path, projectDir: '/p', mode: 'default', rules });
    }
    const perCall = (cpuMs() - start) / (2 * n);
    expect(perCall).toBeLessThan(0.5);
  });
});
