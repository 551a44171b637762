// Shipped code has no test hooks: nothing in src/ (and so nothing in dist/) lets a user's build, an
// option or an environment variable turn on a fault. Faults live in test/support/faults, built into
// dist-test/, which the package does not ship; a shipped runtime treats a `fault:` prompt as text.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRuntime } from '../src/host/runtime.js';
import { tempProject } from './support/project.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Every file under `dir` (relative to ROOT). */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

/** Names of test hooks that once lived in shipped code, and the code of the faults themselves. */
const HOOKS = [
  'ForTesting',
  'CADRE_FAULT_INJECTION',
  'allowFaultInjection',
  'CADRE_REPORT_RESOURCES',
  'injectFault',
  'injected fault',
];

describe('shipped code has no test hooks', () => {
  it('no source under src/ names one', async () => {
    const found: string[] = [];
    for (const file of await filesUnder('src')) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      for (const hook of HOOKS) if (text.includes(hook)) found.push(`${file}: ${hook}`);
    }
    expect(found).toEqual([]);
  });

  it('no bundle under dist/ holds the fault code, and the package ships dist/ only', async () => {
    const found: string[] = [];
    for (const file of await filesUnder('dist')) {
      if (!/\.(c|m)?js$/.test(file)) continue;
      const text = await readFile(path.join(ROOT, file), 'utf8');
      for (const hook of HOOKS) if (text.includes(hook)) found.push(`${file}: ${hook}`);
    }
    expect(found).toEqual([]);
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files.some((f) => f.includes('test'))).toBe(false);
  });

  it('a shipped runtime runs a `fault:` prompt as an ordinary task', async () => {
    const project = await tempProject({ 'src/a.ts': 'export const a = 1;\n' });
    const runtime = await createRuntime({ cwd: project.dir, home: project.home, env: {} });
    try {
      const out = await runtime.run({ subagent_type: 'general-purpose', prompt: 'fault:exit', timeout: 20 });
      expect(out.status).toBe('completed');
      expect(out.error).toBeUndefined();
    } finally {
      await runtime.close();
      await project.cleanup();
    }
  });
});
