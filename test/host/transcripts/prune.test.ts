import { mkdir, mkdtemp, readdir, realpath, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registerTranscripts } from '../../../src/host/cli/commands/transcripts.js';
import { type CliContext, UsageError } from '../../../src/host/cli/context.js';
import { parseDuration } from '../../../src/host/transcripts/duration.js';
import { pruneTranscripts } from '../../../src/host/transcripts/prune.js';
import { recordsLocation } from '../../../src/host/records/location.js';

const DAY = 86_400_000;
let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-prune-')));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes files with modification times `ageDays` ago. */
async function files(dir: string, entries: Record<string, number>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, ageDays] of Object.entries(entries)) {
    const file = path.join(dir, name);
    await writeFile(file, '{}\n');
    const when = new Date(Date.now() - ageDays * DAY);
    await utimes(file, when, when);
  }
}

describe('parseDuration', () => {
  it.each([
    ['30d', 30 * DAY],
    ['12h', 12 * 3_600_000],
    ['90m', 90 * 60_000],
    ['45s', 45_000],
    ['1w', 7 * DAY],
    ['1d12h', 1.5 * DAY],
    ['1.5h', 5_400_000],
    [' 2D ', 2 * DAY],
  ])('%s', (text, ms) => {
    expect(parseDuration(text)).toEqual({ ms });
  });
  it.each(['', '30', 'd', '30x', '30 d', '-1d', '1d5', 'abc'])('rejects %j', (text) => {
    expect(parseDuration(text)).toMatchObject({ error: expect.stringContaining('30d') });
  });
});

describe('pruneTranscripts', () => {
  it('removes old transcripts only', async () => {
    const dir = path.join(root, 't');
    await files(dir, { 'old.jsonl': 40, 'older.jsonl': 400, 'new.jsonl': 1, 'notes.txt': 400 });
    const result = await pruneTranscripts(dir, 30 * DAY);
    expect(result.removed.map((f) => path.basename(f))).toEqual(['old.jsonl', 'older.jsonl']);
    expect(result.kept).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(['new.jsonl', 'notes.txt']);
  });

  it('only reports in a dry run', async () => {
    const dir = path.join(root, 't');
    await files(dir, { 'old.jsonl': 40 });
    expect((await pruneTranscripts(dir, DAY, { dryRun: true })).removed).toHaveLength(1);
    expect(await readdir(dir)).toEqual(['old.jsonl']);
  });

  it('has nothing to do without a directory', async () => {
    expect(await pruneTranscripts(path.join(root, 'missing'), DAY)).toEqual({ removed: [], kept: 0 });
  });

  it('refuses a negative age', async () => {
    await expect(pruneTranscripts(root, -1)).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('cadre transcripts prune', () => {
  /** Runs the command the way `runCli` does: usage errors exit 2, printed without a stack. */
  async function cadre(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const ctx: CliContext = {
      io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
      env: { HOME: path.join(root, 'home') },
      processCwd: root,
      exitCode: 0,
    };
    const program = new Command('cadre')
      .option('--cwd <dir>')
      .exitOverride()
      .configureOutput({ writeOut: ctx.io.stdout, writeErr: ctx.io.stderr });
    registerTranscripts(program, ctx);
    try {
      await program.parseAsync(args, { from: 'user' });
      return { code: ctx.exitCode, stdout, stderr };
    } catch (error) {
      if (error instanceof CommanderError) return { code: 2, stdout, stderr };
      if (error instanceof UsageError)
        return { code: 2, stdout, stderr: `${stderr}cadre: ${error.message}\n` };
      throw error;
    }
  }

  it("moves <project>/.cadre/transcripts to the project's records directory, then prunes there", async () => {
    const project = path.join(root, 'project');
    await files(path.join(project, '.cadre', 'transcripts'), { 'a.jsonl': 31, 'b.jsonl': 2 });
    const records = recordsLocation({
      cwd: await realpath(project),
      home: path.join(root, 'home'),
      config: {},
    });
    const run = await cadre(['--cwd', project, 'transcripts', 'prune', '--older-than', '30d']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`moved 2 transcripts from ${path.join(project, '.cadre', 'transcripts')}`);
    expect(run.stdout).toContain(`removed ${path.join(records.transcriptsDir, 'a.jsonl')}`);
    expect(run.stdout).toContain('removed 1 transcript older than 30d');
    expect(run.stdout).toContain('kept 1');
    // Moving kept each file's age: the recent one stays, the old one went.
    expect(await readdir(records.transcriptsDir)).toEqual(['b.jsonl']);
    await expect(readdir(path.join(project, '.cadre', 'transcripts'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  it('honours transcriptsDir from the project config', async () => {
    const project = path.join(root, 'project');
    await mkdir(path.join(project, '.cadre'), { recursive: true });
    await writeFile(
      path.join(project, '.cadre', 'config.json'),
      JSON.stringify({ transcriptsDir: 'logs/runs' }),
    );
    await files(path.join(project, 'logs', 'runs'), { 'a.jsonl': 10 });
    const run = await cadre(['--cwd', project, 'transcripts', 'prune', '--older-than', '1w', '--dry-run']);
    expect(run.stdout).toContain('would remove 1 transcript');
    expect(run.stdout).toContain(path.join(project, 'logs', 'runs'));
  });

  it.each([['3 days'], ['30'], ['tomorrow']])(
    'exits 2 with a clear message for --older-than %j',
    async (value) => {
      const run = await cadre(['transcripts', 'prune', '--older-than', value]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--older-than:');
      expect(run.stderr).toContain('30d, 12h, 90m');
    },
  );

  it('a --dir that does not exist (or is a file) is an error, not a success', async () => {
    const missing = await cadre([
      'transcripts',
      'prune',
      '--older-than',
      '30d',
      '--dir',
      '/nonexistent/runs',
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--dir: /nonexistent/runs does not exist');
    expect(missing.stdout).not.toMatch(/removed/);
    const file = path.join(root, 'a-file');
    await writeFile(file, 'x');
    const notDir = await cadre(['transcripts', 'prune', '--older-than', '30d', '--dir', file]);
    expect(notDir.code).toBe(2);
    expect(notDir.stderr).toContain(`--dir: ${file} is not a directory`);
  });

  it('says there is nothing to prune when no run has written a transcripts directory yet', async () => {
    const project = path.join(root, 'fresh');
    await mkdir(project, { recursive: true });
    const records = recordsLocation({
      cwd: await realpath(project),
      home: path.join(root, 'home'),
      config: {},
    });
    const run = await cadre(['--cwd', project, 'transcripts', 'prune', '--older-than', '30d']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      `nothing to prune: there is no transcripts directory at ${records.transcriptsDir}`,
    );
  });

  it('exits 2 without --older-than', async () => {
    const run = await cadre(['transcripts', 'prune']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--older-than');
  });
});
