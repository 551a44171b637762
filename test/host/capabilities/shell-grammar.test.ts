// The bash grammar is loaded lazily, once per process, and commands ask until it is.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist');

/** Runs an ES module script in a fresh Node process (the compiled library, as users load it). */
function fresh(script: string): Record<string, unknown> {
  const policy = pathToFileURL(path.join(DIST, 'host', 'capabilities', 'policy.js')).href;
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `const policy = await import(${JSON.stringify(policy)});\n${script}`],
    { encoding: 'utf8' },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
}

const LOADED = `const { createRequire } = await import('node:module');
const cache = createRequire(import.meta.url).cache;
const loaded = () => Object.keys(cache).some((k) => k.includes('web-tree-sitter'));`;

describe('the shell grammar', () => {
  it('is not loaded by importing the policy, and commands ask until it is', () => {
    const out = fresh(`${LOADED}
      const imported = loaded();
      const input = { capability: 'exec.run', command: 'ls', projectDir: '/p', mode: 'bypassPermissions', rules: {} };
      const before = policy.decide(input);
      console.log(JSON.stringify({ loaded: imported, decision: before.decision, reason: before.reason }));`);
    expect(out.loaded).toBe(false);
    expect(out.decision).toBe('ask');
    expect(out.reason).toContain('the bash grammar (tree-sitter-bash) is not loaded yet');
  });

  it('starts loading when a command is judged before it is loaded', () => {
    const out = fresh(`
      const input = { capability: 'exec.run', command: 'ls', projectDir: '/p', mode: 'bypassPermissions', rules: {} };
      const first = policy.decide(input).decision;
      await new Promise((resolve) => setTimeout(resolve, 50));
      await policy.loadShellGrammar();
      console.log(JSON.stringify({ first, later: policy.decide(input).decision }));`);
    expect(out).toEqual({ first: 'ask', later: 'allow' });
  });

  it('loads once, whoever asks first, and then judges commands', () => {
    const out = fresh(`${LOADED}
      const a = policy.loadShellGrammar();
      const b = policy.loadShellGrammar();
      await Promise.all([a, b]);
      const input = { capability: 'exec.run', command: 'ls', projectDir: '/p', mode: 'bypassPermissions', rules: {} };
      console.log(JSON.stringify({ same: a === b, loaded: loaded(), decision: policy.decide(input).decision }));`);
    expect(out).toEqual({ same: true, loaded: true, decision: 'allow' });
  });
});
