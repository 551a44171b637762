// The import boundaries of DESIGN.md, checked over the source tree: the worker reaches the world
// only through capabilities, the host never imports the worker, and shared contracts stay pure.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', 'src');

async function sources(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sources(full)));
    else if (/\.(ts|tsx)$/.test(entry.name)) out.push(full);
  }
  return out;
}

/** Every module specifier a file imports (static, dynamic, re-export, require). */
async function importsOf(file: string): Promise<string[]> {
  const text = await readFile(file, 'utf8');
  const specs: string[] = [];
  const patterns = [
    /\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) if (m[1]) specs.push(m[1]);
  return specs;
}

const rel = (file: string) => path.relative(root, file);
const bare = (spec: string) => spec.replace(/^node:/, '').split('/')[0] ?? spec;

describe('import boundaries', () => {
  it('src/worker never imports fs, child_process, net, http(s), dgram or src/host', async () => {
    const bad: string[] = [];
    for (const file of await sources(path.join(root, 'worker'))) {
      for (const spec of await importsOf(file)) {
        if (
          [
            'fs',
            'child_process',
            'net',
            'http',
            'https',
            'http2',
            'dgram',
            'tls',
            'cluster',
            'inspector',
          ].includes(bare(spec)) &&
          !spec.startsWith('.')
        )
          bad.push(`${rel(file)} imports ${spec}`);
        if (
          spec.startsWith('.') &&
          path.resolve(path.dirname(file), spec).startsWith(path.join(root, 'host'))
        )
          bad.push(`${rel(file)} imports ${spec}`);
        if (bare(spec) === 'worker_threads' && !spec.startsWith('.') && path.basename(file) !== 'entry.ts')
          bad.push(`${rel(file)} imports ${spec} (only the entry may)`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('src/host never imports src/worker', async () => {
    const bad: string[] = [];
    for (const file of await sources(path.join(root, 'host'))) {
      for (const spec of await importsOf(file)) {
        if (
          spec.startsWith('.') &&
          path.resolve(path.dirname(file), spec).startsWith(path.join(root, 'worker'))
        )
          bad.push(`${rel(file)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('src/shared imports neither side nor any node: module', async () => {
    const bad: string[] = [];
    for (const file of await sources(path.join(root, 'shared'))) {
      for (const spec of await importsOf(file)) {
        if (spec.startsWith('node:')) bad.push(`${rel(file)} imports ${spec}`);
        if (
          spec.startsWith('.') &&
          !path.resolve(path.dirname(file), spec).startsWith(path.join(root, 'shared'))
        )
          bad.push(`${rel(file)} imports ${spec}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('only the MCP adapter imports @modelcontextprotocol/sdk, and only its client side', async () => {
    const adapter = path.join(root, 'host', 'capabilities', 'mcp', 'sdk-adapter.ts');
    const bad: string[] = [];
    const used: string[] = [];
    for (const file of await sources(root)) {
      for (const spec of await importsOf(file)) {
        if (!spec.startsWith('@modelcontextprotocol/')) continue;
        if (file !== adapter) bad.push(`${rel(file)} imports ${spec}`);
        else if (
          !/^@modelcontextprotocol\/sdk\/((client|shared)\/|types\.js$|validation\/types\.js$)/.test(spec)
        )
          bad.push(`${rel(file)} imports ${spec} (client, shared and types only)`);
        else used.push(spec);
      }
    }
    expect(bad).toEqual([]);
    expect(used.length).toBeGreaterThan(0);
  });

  it('the checker itself sees every import form', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cadre-inv-'));
    const file = path.join(dir, 'probe.ts');
    await writeFile(
      file,
      "import { a } from 'node:fs/promises';\nexport * from '../host/x.js';\nconst c = await import('child_process');\nimport 'net';\n",
    );
    const specs = await importsOf(file);
    await rm(dir, { recursive: true, force: true });
    expect(specs.map(bare).sort()).toEqual(['..', 'child_process', 'fs', 'net']);
  });
});

describe('one path per concept', () => {
  it('audit lines are written only by auditCall (effect-context.ts), so they all read the same', async () => {
    const writer = path.join(root, 'host', 'capabilities', 'effect-context.ts');
    const bad: string[] = [];
    for (const file of await sources(root)) {
      const text = await readFile(file, 'utf8');
      if (file !== writer && /\baudit\??\.record\(/.test(text)) bad.push(rel(file));
    }
    expect(bad).toEqual([]);
    expect(/\baudit\??\.record\(/.test(await readFile(writer, 'utf8'))).toBe(true);
  });
});
