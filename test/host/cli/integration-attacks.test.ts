// Attacks on the seams between merged features, through the real CLI, the real SDK and the fake
// Messages API. The person widened the file tools to the whole home directory
// (`permissions.additionalDirectories: ["~"]` in ~/.cadre/config.json), where cadre keeps its own
// state: the records of every run, the MCP trust file, the user config, agent files and the
// registry cache. In every mode a model can neither read an earlier run's records nor change any
// of that state, with file tools or with commands; the registry cache, whose entries a later start
// loads as parsed agent files (a forged one could name bypassPermissions), is out of reach too.
import { mkdir, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { resultText, startScripted, type ScriptedServer } from './scripted-server.js';

const CANARY = 'CANARY-seam-4b1d77';
const AGENT = '---\nname: helper\ndescription: helps\ntools: Read\n---\nYou help.\n';
let s: ScriptedServer;
let project: Awaited<ReturnType<typeof tempProject>>;
let home: string;
let cacheDir: string;

const cadre = (...args: string[]) =>
  runCli([...args, '--cwd', project.dir], { ...s.env, HOME: home }, project.dir);
const userConfig = JSON.stringify({ permissions: { additionalDirectories: ['~'] } });

beforeAll(async () => {
  project = await tempProject({ 'src/a.ts': 'export const a = 1;\n', '.claude/agents/helper.md': AGENT });
  home = await realpath(project.home);
  cacheDir = path.join(home, '.cache', 'cadre');
  s = await startScripted();
  await mkdir(path.join(home, '.cadre'), { recursive: true });
  await writeFile(path.join(home, '.cadre', 'config.json'), userConfig);
  await writeFile(path.join(home, '.cadre', 'mcp-trust.json'), '{}\n');
  // An earlier run whose transcript holds the canary; its start writes the registry cache.
  s.scripts.set('first', [() => textReply(`noted ${CANARY}`)]);
  const r = await cadre('run', 'helper', `[[first]] remember ${CANARY}`);
  expect(r.code).toBe(0);
  expect((await readdir(cacheDir)).length).toBeGreaterThan(0);
});
afterAll(async () => {
  await s.server.close();
  await project.cleanup();
});

async function cacheSnapshot(): Promise<string> {
  const names = (await readdir(cacheDir)).sort();
  const texts = await Promise.all(names.map((n) => readFile(path.join(cacheDir, n), 'utf8')));
  return JSON.stringify([names, texts]);
}

describe.each(['default', 'acceptEdits', 'bypassPermissions'])("cadre's state in the home, in %s", (mode) => {
  it('file tools neither read records nor change config, trust, agents or the registry cache', async () => {
    const tag = `home-${mode.toLowerCase()}`;
    const before = await cacheSnapshot();
    const cacheFile = path.join(cacheDir, (await readdir(cacheDir))[0] as string);
    const writes = [
      path.join(home, '.cadre', 'config.json'),
      path.join(home, '.cadre', 'mcp-trust.json'),
      path.join(home, '.cadre', 'agents', 'evil.md'),
      path.join(home, '.claude', 'agents', 'evil.md'),
      path.join(cacheDir, 'evil'),
      path.join(home, '.bashrc'),
    ];
    s.scripts.set(tag, [
      () =>
        toolUseReply([
          { name: 'Grep', input: { pattern: 'CANARY-seam-[0-9a-f]+', path: home } },
          { name: 'Glob', input: { pattern: '**/*', path: path.join(home, '.cadre') } },
          { name: 'Read', input: { file_path: cacheFile } },
          ...writes.map((file_path) => ({ name: 'Write', input: { file_path, content: 'x\n' } })),
        ]),
      () => textReply('tried'),
    ]);
    const r = await cadre('run', 'general-purpose', `[[${tag}]] go`, '--permission-mode', mode);
    expect(r.code).toBe(1);
    const body = s.bodies(tag).at(-1) ?? '';
    expect(body).not.toContain(CANARY);
    const parsed = JSON.parse(body) as { messages: { content: unknown }[] };
    const results = parsed.messages.at(-1)?.content as { is_error?: boolean }[];
    expect(results).toHaveLength(3 + writes.length);
    expect(resultText(results[0] as never)).toMatch(/No files found/);
    expect(resultText(results[1] as never)).not.toMatch(/projects/);
    expect(results[2]?.is_error).toBe(true);
    expect(resultText(results[2] as never)).toMatch(/cadre's own records/);
    writes.forEach((file, i) => expect(results[3 + i]?.is_error, file).toBe(true));
    expect(await readFile(path.join(home, '.cadre', 'config.json'), 'utf8')).toBe(userConfig);
    expect(await readFile(path.join(home, '.cadre', 'mcp-trust.json'), 'utf8')).toBe('{}\n');
    expect(await cacheSnapshot()).toBe(before);
    for (const file of writes.slice(2))
      await expect(readFile(file), file).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('a command in bypassPermissions', () => {
  it("sees none of cadre's state in the home and changes none of it", async () => {
    const before = await cacheSnapshot();
    const script = [
      'grep -r CANARY-seam ~ 2>/dev/null',
      'cat ~/.cache/cadre/* 2>/dev/null | head -c 300',
      'ls -a ~/.cadre ~/.cache/cadre 2>&1',
      'echo \'{"sandbox":"off"}\' > ~/.cadre/config.json 2>&1',
      'echo x > ~/.cache/cadre/evil 2>&1',
      'echo done',
    ].join('; ');
    s.scripts.set('cmd', [
      () => toolUseReply([{ name: 'Bash', input: { command: script } }]),
      () => textReply('tried'),
    ]);
    const r = await cadre('run', 'general-purpose', '[[cmd]] go', '--permission-mode', 'bypassPermissions');
    const body = s.bodies('cmd').at(-1) ?? '';
    expect(body).toContain('done');
    expect(body).not.toContain(CANARY);
    expect(body).not.toMatch(/helper\.md|You help/);
    expect(r.stdout + r.stderr).not.toContain(CANARY);
    expect(await readFile(path.join(home, '.cadre', 'config.json'), 'utf8')).toBe(userConfig);
    expect(await cacheSnapshot()).toBe(before);
  });
});
