// The registry cache against real files: used for unchanged files only, ignored when corrupt,
// stale, foreign or writable by others, and never consulted by `validate`.
import { chmod, chown, readdir, readFile, rename, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRegistry } from '../../../src/host/registry/load-registry.js';
import { agentFile, tempDir, writeFiles } from './temp-dirs.js';

let root: string;
let cleanup: () => Promise<void>;
let project: string;
let home: string;
let cacheDir: string;

beforeEach(async () => {
  ({ dir: root, cleanup } = await tempDir());
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  cacheDir = path.join(root, 'cache', 'cadre');
  await writeFiles(project, {
    '.claude/agents/reviewer.md': agentFile('reviewer', 'Reviews code', 'tools: Read, Grep\n'),
    '.claude/agents/team/writer.md': `---\nname: writer\ndescription: Writes docs\ntools: Read, Write\n---\n${'Write well. '.repeat(500)}\n`,
    '.claude/agents/broken.md': '---\nname: broken\ndescription: d\ntools: Grpe\n---\n',
  });
  await writeFiles(home, {});
});
afterEach(async () => {
  await cleanup();
});

const load = (extra: { fresh?: boolean } = {}) =>
  loadRegistry({ cwd: project, home, cacheDir, builtinDir: path.join(root, 'builtin-none'), ...extra });
const names = (r: Awaited<ReturnType<typeof load>>) => r.agents.map((a) => `${a.name}: ${a.description}`);

/** The cache file of the project's .claude/agents folder, as JSON header and prompt blob. */
async function cacheOf(): Promise<{
  file: string;
  header: { entries: Record<string, Record<string, unknown>> };
  blob: Buffer;
}> {
  const files = await readdir(cacheDir);
  const sizes = await Promise.all(
    files.map(async (f) => [f, (await stat(path.join(cacheDir, f))).size] as const),
  );
  const file = path.join(cacheDir, [...sizes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '');
  const bytes = await readFile(file);
  const newline = bytes.indexOf(0x0a);
  return {
    file,
    header: JSON.parse(bytes.toString('utf8', 0, newline)) as {
      entries: Record<string, Record<string, unknown>>;
    },
    blob: bytes.subarray(newline + 1),
  };
}

/** Rewrites the cache with one description changed, keeping every key: proof of whether it is read. */
async function forgeDescription(rel: string, description: string, mode = 0o600): Promise<string> {
  const { file, header, blob } = await cacheOf();
  const entry = header.entries[rel] as { agent: { description: string } };
  entry.agent.description = description;
  await writeFile(file, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), blob]), { mode });
  await chmod(file, mode);
  return file;
}

describe('the registry cache', () => {
  it('gives what a fresh parse gives, prompts included, from a private file', async () => {
    const fresh = await load();
    const warm = await load();
    expect(warm.errors).toEqual(fresh.errors);
    expect(warm.warnings).toEqual(fresh.warnings);
    expect(JSON.parse(JSON.stringify(warm.agents))).toEqual(JSON.parse(JSON.stringify(fresh.agents)));
    expect(warm.agents.find((a) => a.name === 'writer')?.prompt).toBe('Write well. '.repeat(500).trim());
    expect(fresh.errors.filter((e) => e.path.endsWith('broken.md')).map((e) => e.message)).toEqual([
      'unknown tool "Grpe" (did you mean "Grep"?)',
    ]);
    const { file } = await cacheOf();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(cacheDir)).mode & 0o777).toBe(0o700);
  });

  it('is read for unchanged files, and a changed file is parsed again', async () => {
    await load();
    await forgeDescription('reviewer.md', 'FROM THE CACHE');
    expect(names(await load())).toContain('reviewer: FROM THE CACHE');
    // Same size, same modification time: the change time and inode still tell.
    const file = path.join(project, '.claude/agents/reviewer.md');
    const before = await stat(file);
    await writeFile(file, agentFile('reviewer', 'Reviews CODE', 'tools: Read, Grep\n'));
    await utimes(file, before.atime, before.mtime);
    expect(names(await load())).toContain('reviewer: Reviews CODE');
  });

  it('a definition with every field set is read back from the cache (the check accepts what a parse gives)', async () => {
    await writeFiles(project, {
      '.claude/agents/full.md': [
        '---',
        'name: Full.Agent_1',
        'description: Every field',
        'tools: Read, Task(reviewer), mcp__github, WebSearch',
        'disallowedTools: Agent(writer), mcp__github__delete',
        'profile: read-only',
        'model: opus',
        'timeout: 60',
        'idleTimeout: 30',
        'maxTurns: 5',
        'permissionMode: plan',
        'tokenBudget: 1000',
        'output: handoff',
        'input: { type: object }',
        'exposeAsTool: true',
        'maxDepth: 2',
        'isolation: worktree',
        'color: teal',
        '---',
        'Body {{task}}',
      ].join('\n'),
    });
    const fresh = await load();
    expect(fresh.agents.find((a) => a.name === 'Full.Agent_1')).toBeDefined();
    await forgeDescription('full.md', 'FROM THE CACHE');
    const warm = await load();
    const full = warm.agents.find((a) => a.name === 'Full.Agent_1');
    expect(full?.description).toBe('FROM THE CACHE');
    expect({ ...full, description: 'Every field' }).toEqual({
      ...fresh.agents.find((a) => a.name === 'Full.Agent_1'),
    });
  });

  it('a cached tool list a parse could not produce is refused', async () => {
    await load();
    const { file, header, blob } = await cacheOf();
    const entry = header.entries['reviewer.md'] as { agent: { tools: string[] } };
    entry.agent.tools = ['Read', 'Bash; rm -rf /'];
    await writeFile(file, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), blob]), { mode: 0o600 });
    expect((await load()).agents.find((a) => a.name === 'reviewer')?.tools).toEqual(['Read', 'Grep']);
  });

  it('validate (fresh) never reads it', async () => {
    await load();
    await forgeDescription('reviewer.md', 'FROM THE CACHE');
    expect(names(await load({ fresh: true }))).toContain('reviewer: Reviews code');
  });

  it('a corrupt, truncated or schema-breaking cache is ignored and rewritten', async () => {
    await load();
    const { file, header, blob } = await cacheOf();
    for (const broken of [
      Buffer.from('not json at all'),
      Buffer.from(JSON.stringify(header).slice(0, 100)),
      Buffer.concat([
        Buffer.from(
          `${JSON.stringify({ ...header, entries: { ...header.entries, 'reviewer.md': { ...header.entries['reviewer.md'], agent: { tools: '*' } } } })}\n`,
        ),
        blob,
      ]),
      Buffer.concat([
        Buffer.from(
          `${JSON.stringify({ ...header, entries: { ...header.entries, 'team/writer.md': { ...header.entries['team/writer.md'], prompt: [0, blob.length + 10] } } })}\n`,
        ),
        blob,
      ]),
    ]) {
      await writeFile(file, broken, { mode: 0o600 });
      const result = await load();
      expect(names(result).sort()).toEqual(['reviewer: Reviews code', 'writer: Writes docs']);
      expect(result.agents.find((a) => a.name === 'writer')?.prompt).toBe('Write well. '.repeat(500).trim());
      expect((await readFile(file)).equals(broken)).toBe(false);
    }
  });

  it('a cache others can write, or another user owns, is not trusted', async () => {
    await load();
    await forgeDescription('reviewer.md', 'FROM THE CACHE', 0o666);
    expect(names(await load())).toContain('reviewer: Reviews code');
    if (process.getuid?.() === 0) {
      await load();
      const file = await forgeDescription('reviewer.md', 'FROM THE CACHE');
      await chown(file, 12345, 12345);
      expect(names(await load())).toContain('reviewer: Reviews code');
    }
  });

  it('a cache made for another folder or copied beside other files never matches', async () => {
    await load();
    await forgeDescription('reviewer.md', 'FROM THE CACHE');
    // The same relative paths in a fresh copy: other inodes and times, so nothing matches.
    const moved = path.join(root, 'moved');
    await rename(project, moved);
    await writeFiles(project, {
      '.claude/agents/reviewer.md': agentFile('reviewer', 'Reviews code', 'tools: Read, Grep\n'),
    });
    expect(names(await load())).toEqual(['reviewer: Reviews code']);
  });
});
