// cadre's own records through the real CLI, the real SDK and the fake Messages API: a later run
// cannot read, grep, glob or list an earlier run's transcripts, the audit log or a cassette; a
// subagent cannot resume a run of another tree, a person can (of the same agent type); and a
// command that edits the audit log makes `cadre audit verify` fail at the line it touched.
import { copyFile, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textReply, toolUseReply } from '../../support/fake-anthropic.js';
import { runCli } from '../../support/cli.js';
import { tempProject } from '../../support/project.js';
import { resultText, startScripted, type ScriptedServer } from './scripted-server.js';

const CANARY = 'CANARY-7f3a9c-env-secret';
let s: ScriptedServer;
let project: Awaited<ReturnType<typeof tempProject>>;
let first: { agentId: string; transcriptPath: string };

const config = (permissions: Record<string, unknown>) =>
  writeFile(path.join(project.dir, '.cadre', 'config.json'), JSON.stringify({ permissions }));
const cadre = (...args: string[]) => runCli([...args, '--cwd', project.dir], s.env, project.dir);

beforeAll(async () => {
  project = await tempProject({ '.env': `TOKEN=${CANARY}\n`, 'src/a.ts': 'export const a = 1;\n' });
  await mkdir(path.join(project.dir, '.cadre'), { recursive: true });
  s = await startScripted();
  // The first run may read .env (the person allowed it) and records a cassette in the project.
  await config({ allow: ['Read(.env)'] });
  s.scripts.set('first', [() => toolUseReply([{ name: 'Read', input: { file_path: '.env' } }])]);
  const r = await cadre(
    'run',
    'explore',
    '[[first]] read the env',
    '--json',
    '--record',
    'run.cassette.jsonl',
  );
  expect(r.code).toBe(0);
  first = JSON.parse(r.stdout) as typeof first;
});
afterAll(async () => {
  await s.server.close();
  await project.cleanup();
});

describe('records out of reach', () => {
  it("keeps transcripts and the audit log in the user's data directory, not in .cadre/", async () => {
    expect(first.transcriptPath.startsWith(path.join(project.dir, '.cadre', 'projects'))).toBe(true);
    expect(await readFile(first.transcriptPath, 'utf8')).toContain(CANARY);
    const verify = await cadre('audit', 'verify');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/audit log intact: \d+ lines/);
  });

  it("a later run cannot read, grep, glob or list an earlier run's records", async () => {
    await config({ deny: ['Read(**/.env)'] });
    const copy = path.join(project.dir, 'notes', 'copy.jsonl');
    await mkdir(path.dirname(copy), { recursive: true });
    await copyFile(first.transcriptPath, copy); // a person copied a transcript into the project
    const records = path.dirname(path.dirname(first.transcriptPath));
    const relTranscript = path.relative(project.dir, first.transcriptPath);
    s.scripts.set('later', [
      () =>
        toolUseReply([
          { name: 'Grep', input: { pattern: 'CANARY', path: '.', output_mode: 'content' } },
          { name: 'Grep', input: { pattern: 'CANARY', path: '.cadre', output_mode: 'content' } },
          { name: 'Grep', input: { pattern: 'CANARY', glob: '**/*.jsonl', output_mode: 'content' } },
          { name: 'Read', input: { file_path: first.transcriptPath } },
          { name: 'Read', input: { file_path: relTranscript } },
          { name: 'Read', input: { file_path: path.join(records, 'audit.jsonl') } },
          { name: 'Read', input: { file_path: 'notes/copy.jsonl' } },
          { name: 'Read', input: { file_path: 'run.cassette.jsonl' } },
          { name: 'Glob', input: { pattern: '**/*.jsonl' } },
          { name: 'Glob', input: { pattern: '.cadre/**' } },
          { name: 'LS', input: { path: '.cadre' } },
          { name: 'LS', input: { path: records } },
        ]),
    ]);
    const r = await cadre('run', 'explore', '[[later]] find the token', '--json');
    expect(r.code).toBe(0);
    // Nothing of the earlier run's secret reached the model, by any tool.
    for (const body of s.bodies('later')) expect(body).not.toContain(CANARY);
    const results = JSON.parse(s.bodies('later').at(-1) ?? '{}') as { messages: { content: unknown }[] };
    const blocks = results.messages.at(-1)?.content as { content: string; is_error?: boolean }[];
    const text = blocks.map((b) => resultText(b as never));
    expect(text.slice(3, 6).every((t) => /cadre's own records/.test(t))).toBe(true);
    expect(text[6]).toMatch(/cadre's own records .*content shows it is one/);
    expect(text[7]).toMatch(/cadre's own records/);
    expect(text[8]).not.toMatch(/projects|transcripts|audit/);
    expect(text[9]).not.toMatch(/projects\//);
    expect(text[10]).not.toMatch(/projects/);
    expect(text[11]).toMatch(/cadre's own records/);
  });

  it('a subagent cannot resume a run of another tree; a person can, of the same type only', async () => {
    s.scripts.set('lead', [
      () =>
        toolUseReply([
          {
            name: 'Task',
            input: {
              description: 'resume',
              prompt: '[[stolen]] go on',
              subagent_type: 'explore',
              resume: first.agentId,
            },
          },
        ]),
    ]);
    const lead = await cadre('run', 'general-purpose', '[[lead]] resume that run', '--json');
    expect(lead.code).toBe(0);
    const refused = JSON.parse(s.bodies('lead').at(-1) ?? '{}') as { messages: { content: unknown }[] };
    const result = (refused.messages.at(-1)?.content as { content: string; is_error: boolean }[])[0];
    expect(result?.is_error).toBe(true);
    expect(resultText(result as never)).toMatch(/not_found: no finished run ".*" in this agent tree/);
    expect(s.bodies('stolen')).toEqual([]);

    const wrongType = await cadre('run', 'plan', '[[again]] go on', '--resume', first.agentId);
    expect(wrongType.code).toBe(1);
    expect(wrongType.stderr).toMatch(/can be resumed only as "explore", not "plan"/);

    s.scripts.set('again', [() => textReply('resumed')]);
    const person = await cadre('run', 'explore', '[[again]] go on', '--resume', first.agentId, '--json');
    expect(person.code).toBe(0);
    expect((JSON.parse(person.stdout) as { agentId: string }).agentId).toBe(first.agentId);
    // The resumed conversation holds the first run's turns.
    expect(s.bodies('again')[0]).toContain('read the env');
  });

  it('a subagent may resume a run of its own tree, of the same type', async () => {
    let childId = '';
    s.scripts.set('own', [
      () =>
        toolUseReply([
          { name: 'Task', input: { description: 'a', prompt: '[[child]] look', subagent_type: 'explore' } },
        ]),
      (_req, results) => {
        childId = /agentId[":\s]+([a-z-]+-[0-9a-f]{8})/.exec(resultText(results[0]))?.[1] ?? '';
        return toolUseReply([
          {
            name: 'Task',
            input: { description: 'b', prompt: '[[child2]] more', subagent_type: 'explore', resume: childId },
          },
        ]);
      },
      () =>
        toolUseReply([
          {
            name: 'Task',
            input: { description: 'c', prompt: '[[child3]] more', subagent_type: 'plan', resume: childId },
          },
        ]),
    ]);
    s.scripts.set('child2', [() => textReply('continued')]);
    const r = await cadre('run', 'general-purpose', '[[own]] delegate', '--json');
    expect(r.code).toBe(0);
    expect(childId).not.toBe('');
    expect(s.bodies('child2')[0]).toContain('[[child]] look');
    const bodies = s.bodies('own').map((b) => JSON.parse(b) as { messages: { content: unknown }[] });
    const ok = (bodies[2]?.messages.at(-1)?.content as { is_error?: boolean }[])[0];
    expect(ok?.is_error).toBeUndefined();
    expect(resultText(ok as never)).toContain('continued');
    const wrong = (bodies[3]?.messages.at(-1)?.content as never[])[0];
    expect(resultText(wrong)).toMatch(/can be resumed only as "explore", not "plan"/);
    expect(s.bodies('child3')).toEqual([]);
  });
});

describe('the audit log is tamper-evident', () => {
  it('reports a log cut short, and one that is missing', async () => {
    const log = path.join(project.dir, 'cut.jsonl');
    const records = path.dirname(path.dirname(first.transcriptPath));
    const text = await readFile(path.join(records, 'audit.jsonl'), 'utf8');
    await writeFile(log, text.split('\n').slice(0, 3).join('\n') + '\n');
    await copyFile(path.join(records, 'audit.jsonl.head'), `${log}.head`);
    const cut = await cadre('audit', 'verify', '--file', log, '--json');
    expect(cut.code).toBe(1);
    expect(JSON.parse(cut.stdout)).toMatchObject({
      ok: false,
      line: 4,
      reason: expect.stringMatching(/removed from its end/),
    });
    const missing = await cadre('audit', 'verify', '--file', path.join(project.dir, 'nope.jsonl'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no audit log at/);
  });
  it('a command that edits the audit log makes cadre audit verify fail at that line', async () => {
    const records = path.dirname(path.dirname(first.transcriptPath));
    const audit = path.join(records, 'audit.jsonl');
    // The first names the log (the shell policy asks, and this run cannot answer); the second finds
    // it only when it runs. `$((6*7))-done` prints 42-done only if the command really ran.
    s.scripts.set('cover', [
      () => toolUseReply([{ name: 'Bash', input: { command: `sed -i '2d' '${audit}'` } }]),
      () =>
        toolUseReply([
          {
            name: 'Bash',
            input: {
              command: 'cd "$PWD"/.cadre/projects/*/ && sed -i 2d audit.jsonl && echo $((6*7))-done',
            },
          },
        ]),
    ]);
    const r = await cadre(
      'run',
      'general-purpose',
      '[[cover]] hide your tracks',
      '--permission-mode',
      'bypassPermissions',
      '--json',
    );
    // The first command was refused, so not every effect the run tried happened: exit 1, counted.
    expect(r.code).toBe(1);
    expect((JSON.parse(r.stdout) as { refused: number }).refused).toBe(1);
    expect(r.stderr).toMatch(/✗ refused: sed -i '2d' .*audit\.jsonl' — exec\.run was not run/);
    const bodies = s.bodies('cover').map((b) => JSON.parse(b) as { messages: { content: unknown }[] });
    const named = (bodies[1]?.messages.at(-1)?.content as { is_error?: boolean }[])[0];
    expect(named?.is_error).toBe(true);
    expect(resultText(named as never)).toMatch(/one of cadre's own records/);
    const hidden = (bodies[2]?.messages.at(-1)?.content as never[])[0];
    const ran = resultText(hidden).includes('42-done');
    const verify = await cadre('audit', 'verify');
    if (ran) {
      // The command could write the log (no sandbox hides it from commands here): the edit shows.
      expect(verify.code).toBe(1);
      expect(verify.stdout).toMatch(/audit log broken at line 2: line 2 does not carry the hash of line 1/);
    } else {
      // The sandbox kept the command away from the log: it is intact.
      expect(verify.code).toBe(0);
    }
  });
});

describe('records kept inside the project by an earlier cadre', () => {
  it('are moved out on first use, and a moved run still resumes', async () => {
    const old = await tempProject({ 'src/a.ts': 'export const a = 1;\n' });
    try {
      const legacy = path.join(old.dir, '.cadre', 'transcripts');
      await mkdir(legacy, { recursive: true });
      const id = 'explore-0badc0de';
      const lines = [
        { type: 'header', version: 1, agentId: id, at: 1, resumed: false },
        {
          type: 'message-append',
          agentId: id,
          depth: 0,
          at: 2,
          message: { role: 'user', content: 'the old question' },
        },
        {
          type: 'message-append',
          agentId: id,
          depth: 0,
          at: 3,
          message: { role: 'assistant', content: [{ type: 'text', text: 'the old answer' }] },
        },
        { type: 'status', at: 4, status: 'completed', output: null },
      ];
      await writeFile(
        path.join(legacy, `${id}.jsonl`),
        lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
      );
      await writeFile(path.join(old.dir, '.cadre', 'audit.jsonl'), '{"at":1,"capability":"fs.read"}\n');
      s.scripts.set('legacy', [() => textReply('carried on')]);
      const r = await runCli(
        ['run', 'explore', '[[legacy]] go on', '--resume', id, '--cwd', old.dir],
        s.env,
        old.dir,
      );
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        /cadre: moved 1 transcript from .*\.cadre\/transcripts to .*\.cadre\/projects\//,
      );
      expect(r.stderr).toMatch(/moved the audit log .*audit\.jsonl \(written before it was hash-chained\)/);
      expect(r.stdout.trim()).toBe('carried on');
      expect(s.bodies('legacy')[0]).toContain('the old answer');
      await expect(stat(legacy)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(stat(path.join(old.dir, '.cadre', 'audit.jsonl'))).rejects.toMatchObject({
        code: 'ENOENT',
      });
      const verify = await runCli(['audit', 'verify', '--cwd', old.dir], s.env, old.dir);
      expect(verify.code).toBe(0);
    } finally {
      await old.cleanup();
    }
  });
});
