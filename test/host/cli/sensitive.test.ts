// Secrets by name and by content, through the real CLI, the real SDK and the fake Messages API:
// every sensitive name the issue lists, and a private key under an innocent name, is refused to
// Read and left out by Grep, and the refusal names the rule that would allow it, to the model (its
// tool result) and to the person (a progress line). A rule that names the file lets it through.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { resultText, startScripted, type ScriptedServer } from './scripted-server.js';

const NAMES = [
  '.env~',
  '.env-production',
  'prod.env',
  '.envrc',
  'deploy_key',
  'id_work',
  'credentials.yml',
  '.npmrc',
  '.pypirc',
  '.netrc',
  'tls/server.key',
  'server.pem',
];
const KEY_FILE = 'notes/backup.txt';
const canary = (i: number) => `SECRET-${String(i).padStart(3, '0')}-canary`;

let s: ScriptedServer;
let project: Awaited<ReturnType<typeof tempProject>>;

beforeAll(async () => {
  const files: Record<string, string> = {};
  NAMES.forEach((name, i) => (files[name] = `value=${canary(i)}\n`));
  files[KEY_FILE] = `-----BEGIN OPENSSH PRIVATE KEY-----\n${canary(99)}\n-----END OPENSSH PRIVATE KEY-----\n`;
  files['src/app.ts'] = 'export const app = "SECRET-none";\n';
  project = await tempProject(files);
  s = await startScripted();
});
afterAll(async () => {
  await s.server.close();
  await project.cleanup();
});

describe('sensitive files', () => {
  it('each sensitive name, and a key file under an innocent name, is refused with the rule that would allow it', async () => {
    s.scripts.set('secrets', [
      () =>
        toolUseReply([
          ...[...NAMES, KEY_FILE].map((file_path) => ({ name: 'Read', input: { file_path } })),
          { name: 'Grep', input: { pattern: 'SECRET-', output_mode: 'content' } },
        ]),
      () => textReply('found nothing'),
    ]);
    const r = await runCli(
      ['run', 'explore', '[[secrets]] find secrets', '--cwd', project.dir],
      s.env,
      project.dir,
    );
    expect(r.code).toBe(0);
    for (const body of s.bodies('secrets')) {
      NAMES.forEach((_, i) => expect(body).not.toContain(canary(i)));
      expect(body).not.toContain(canary(99));
    }
    const body = JSON.parse(s.bodies('secrets').at(-1) ?? '{}') as { messages: { content: unknown }[] };
    const results = (body.messages.at(-1)?.content as never[]).map((b) => resultText(b));
    [...NAMES, KEY_FILE].forEach((name, i) => {
      expect(results[i], name).toMatch(/^sensitive_path: .* is a sensitive file/);
      expect(results[i], name).toContain(`Read(${name})`);
    });
    expect(results[NAMES.length]).toMatch(/private key \(it begins with one\)/);
    // Grep searched the rest and found the innocent file.
    expect(results.at(-1)).toContain('src/app.ts');
    // The person is told too, with the same way in: one line per refused read, counted at the end.
    expect(r.stderr).toMatch(
      /✗ refused: notes\/backup\.txt — "notes\/backup\.txt" is a sensitive file .*Read\(notes\/backup\.txt\)/,
    );
    const refusals = r.stderr.split('\n').filter((line) => line.includes('✗ refused:'));
    expect(refusals).toHaveLength(NAMES.length + 1);
    [...NAMES, KEY_FILE].forEach((name) =>
      expect(
        refusals.filter((line) => line.includes(`"Read(${name})"`)),
        name,
      ).toHaveLength(1),
    );
    expect(r.stderr).toMatch(new RegExp(`tool calls \\(${NAMES.length + 1} refused\\)`));
    // What the search left out is not a refused call: a notice, with the way in for the first one.
    expect(r.stderr).toMatch(/! a search left out a sensitive file.*Read\(/);
  });

  it('an allow rule that names the key file lets it through', async () => {
    await mkdir(path.join(project.dir, '.cadre'), { recursive: true });
    await writeFile(
      path.join(project.dir, '.cadre', 'config.json'),
      JSON.stringify({ permissions: { allow: [`Read(${KEY_FILE})`] } }),
    );
    s.scripts.set('allowed', [() => toolUseReply([{ name: 'Read', input: { file_path: KEY_FILE } }])]);
    const r = await runCli(
      ['run', 'explore', '[[allowed]] read the key', '--cwd', project.dir],
      s.env,
      project.dir,
    );
    expect(r.code).toBe(0);
    expect(s.bodies('allowed').at(-1)).toContain(canary(99));
  });
});
