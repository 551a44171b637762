// What a sandboxed command reads and writes in the project and the home directory, under each
// backend: secrets read as empty unless a Read allow rule names them, Read deny rules and
// sandbox.denyRead bind commands, credential stores stay hidden even inside an allowed directory,
// sockets cannot be reached, and the protected paths stay read-only, existing or not.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runIn, sandboxBackends, survivorsAfter, token } from './sandbox-fixture.js';

const { available } = await sandboxBackends();

let base: string;
let project: string;
let home: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-files-')));
  project = path.join(base, 'project');
  home = path.join(base, 'home');
  await mkdir(project);
  await mkdir(home);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Retries `check` for up to 3 s. */
async function eventually(check: () => Promise<void>): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return await check();
    } catch (error) {
      if (i >= 60) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

async function files(root: string, entries: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(entries)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
}

describe.skipIf(available.length === 0).each(available)('$name', (backend) => {
  it('hides the project secrets, unless a Read allow rule names one', async () => {
    const canary = token('secret');
    await files(project, {
      '.env': `A=${canary}`,
      'config/.env.production': `B=${canary}`,
      'keys/server.pem': canary,
      'deploy/id_rsa': canary,
      '.env.example': 'A=placeholder',
      'src/app.ts': 'export const ok = 1;\n',
      'vendor/.ssh/config': canary,
    });
    const read =
      'cat .env config/.env.production keys/server.pem deploy/id_rsa vendor/.ssh/config .env.example src/app.ts 2>&1';
    const r = await runIn(backend, project, read);
    expect(r.stdout).not.toContain(canary);
    expect(r.stdout).toContain('A=placeholder');
    expect(r.stdout).toContain('export const ok = 1;');
    const allowed = await runIn(backend, project, 'cat .env', { rules: { allow: ['Read(.env)'] } });
    expect(allowed.stdout).toBe(`A=${canary}`);
    // A wide rule does not name the secret: still hidden.
    const wide = await runIn(backend, project, 'cat .env', { rules: { allow: ['Read(**)'] } });
    expect(wide.stdout).toBe('');
  });

  it('binds commands to Read deny rules and sandbox.denyRead, through globs and symlinks too', async () => {
    const canary = token('denied');
    await files(project, { 'secrets/a.txt': canary, 'docs/private.md': canary, 'docs/public.md': 'public' });
    await symlink(path.join(project, 'secrets', 'a.txt'), path.join(project, 'link.txt'));
    const r = await runIn(
      backend,
      project,
      'cat secrets/a.txt docs/*.md link.txt < /dev/null 2>&1; ls secrets',
      {
        rules: { deny: ['Read(secrets/**)'] },
        denyRead: [path.join(project, 'docs', 'private.md')],
      },
    );
    expect(r.stdout).not.toContain(canary);
    expect(r.stdout).toContain('public');
  });

  it('shows the home toolchains and config but not credential stores, even under allowRead', async () => {
    const canary = token('cred');
    const diary = token('diary');
    await files(home, {
      '.gitconfig': '[user]\n\tname = Sandbox Tester\n',
      '.cargo/bin/tool': '#!/bin/sh\necho tool\n',
      '.cargo/credentials.toml': canary,
      '.ssh/id_ed25519': canary,
      '.aws/credentials': canary,
      '.config/gh/hosts.yml': canary,
      '.claude/.credentials.json': canary,
      '.codex/auth.json': canary,
      '.cadre/config.json': canary,
      'Documents/diary.txt': diary,
    });
    const cmd =
      'cat ~/.gitconfig; ls ~/.cargo/bin; cd ~ && cat .cargo/credentials.toml .ssh/id_ed25519 .aws/credentials .config/gh/hosts.yml .claude/.credentials.json .codex/auth.json .cadre/config.json Documents/diary.txt 2>&1';
    const r = await runIn(backend, project, cmd, { home });
    expect(r.stdout).toContain('name = Sandbox Tester');
    expect(r.stdout).toContain('tool');
    expect(r.stdout).not.toContain(canary);
    expect(r.stdout).not.toContain(diary);
    // The user allows reading the whole home: the rest of it shows, the credentials still do not.
    const wide = await runIn(backend, project, cmd, { home, allowRead: [home] });
    expect(wide.stdout).not.toContain(canary);
    expect(wide.stdout).toContain(diary);
    // ...and the home stays private and writable, but nothing written there reaches the host.
    const write = await runIn(backend, project, 'echo x > ~/new-file && cat ~/new-file', { home });
    expect(write.stdout).toBe('x\n');
    await expect(stat(path.join(home, 'new-file'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('hides unix sockets in the project', async () => {
    const sock = path.join(project, 'agent.sock');
    const listener = spawn('/usr/bin/python3', [
      '-c',
      `import socket\ns=socket.socket(socket.AF_UNIX)\ns.bind('${sock}')\ns.listen(5)\nprint('ready',flush=True)\nwhile True:\n  c,_=s.accept(); print('conn',flush=True); c.close()`,
    ]);
    let conns = 0;
    await new Promise<void>((resolve) =>
      listener.stdout.on('data', (d: Buffer) => {
        if (d.toString().includes('ready')) resolve();
        conns += (d.toString().match(/conn/g) ?? []).length;
      }),
    );
    try {
      const r = await runIn(
        backend,
        project,
        `/usr/bin/python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect('${sock}'); print('connected')" 2>&1 | tail -1`,
      );
      expect(r.stdout).not.toContain('connected\n');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(conns).toBe(0);
    } finally {
      listener.kill('SIGKILL');
    }
  });

  it('keeps the protected paths read-only, existing or not, and leaves no placeholder behind', async () => {
    const gitConfig = '[core]\n\tbare = false\n\thooksPath = .githooks\n';
    await files(project, {
      '.git/config': gitConfig,
      '.git/hooks/pre-commit.sample': '#!/bin/sh\n',
      'README.md': 'hi\n',
    });
    const attempts = [
      'echo evil > .git/hooks/pre-commit',
      'echo "[core] fsmonitor = evil" >> .git/config',
      'mv .git .git-moved',
      'rm -rf .git/hooks',
      'mkdir -p .vscode && echo {} > .vscode/tasks.json',
      'mkdir -p .husky && echo evil > .husky/pre-commit',
      'echo evil > .envrc',
      'echo {} > .mcp.json',
      'mkdir -p .claude && echo {} > .claude/settings.json',
      'echo {} > .cadre/config.json',
      'rmdir .vscode; mv .vscode x; ln -s /tmp .vscode',
      'mkdir -p .githooks && echo evil > .githooks/pre-commit',
      'mkdir -p .git/modules/sub/hooks && echo evil > .git/modules/sub/hooks/post-checkout',
      'echo "[core] hooksPath = /tmp" > .git/config.worktree',
      'echo ok > normal.txt',
    ];
    const r = await runIn(backend, project, attempts.map((a) => `(${a}) 2>/dev/null`).join('; '), {
      protect: ['deploy.sh'],
    });
    expect(r.exitCode).toBe(0);
    expect(await readFile(path.join(project, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect((await readdir(path.join(project, '.git', 'hooks'))).sort()).toEqual(['pre-commit.sample']);
    await eventually(async () =>
      expect((await readdir(path.join(project, '.git'))).sort()).toEqual(['config', 'hooks']),
    );
    expect(await readFile(path.join(project, 'normal.txt'), 'utf8')).toBe('ok\n');
    // Nothing new among the protected names, and the placeholders are gone again (soon after:
    // their removal does not hold up the result).
    await eventually(async () =>
      expect((await readdir(project)).sort()).toEqual(['.git', 'README.md', 'normal.txt']),
    );
    const created = await runIn(backend, project, 'echo evil > deploy.sh; ls -a', { protect: ['deploy.sh'] });
    expect(created.stdout).toContain('deploy.sh');
    await eventually(() =>
      expect(stat(path.join(project, 'deploy.sh'))).rejects.toMatchObject({ code: 'ENOENT' }),
    );
  });

  it("keeps other tools' code-running configuration read-only: .cursor/mcp.json, .gemini/settings.json, .continue", async () => {
    await files(project, { '.cursor/rules/a.mdc': 'rule\n', '.gemini/GEMINI.md': 'notes\n' });
    const attempts = [
      'echo {} > .cursor/mcp.json',
      'echo {} > .gemini/settings.json',
      'mkdir -p .continue && echo evil > .continue/config.yaml',
      'mv .cursor .cursor-moved',
      'echo ok > .cursor/rules/b.mdc',
      'echo ok > .gemini/GEMINI.md',
    ];
    const r = await runIn(backend, project, attempts.map((a) => `(${a}) 2>/dev/null`).join('; '));
    expect(r.exitCode).toBe(0);
    // The rest of those directories stays writable: only the files that run code are held.
    expect(await readFile(path.join(project, '.cursor', 'rules', 'b.mdc'), 'utf8')).toBe('ok\n');
    expect(await readFile(path.join(project, '.gemini', 'GEMINI.md'), 'utf8')).toBe('ok\n');
    await eventually(async () => {
      expect((await readdir(path.join(project, '.cursor'))).sort()).toEqual(['rules']);
      expect((await readdir(path.join(project, '.gemini'))).sort()).toEqual(['GEMINI.md']);
      expect((await readdir(project)).sort()).toEqual(['.cursor', '.gemini']);
    });
  });

  it("keeps opencode's plugins and config read-only: .opencode, opencode.json, opencode.jsonc", async () => {
    await files(project, { '.opencode/agent/a.md': 'agent\n' });
    const attempts = [
      'mkdir -p .opencode/plugins && echo evil > .opencode/plugins/evil.ts',
      'echo {} > opencode.json',
      'echo {} > opencode.jsonc',
      'mv .opencode .opencode-moved',
    ];
    const r = await runIn(
      backend,
      project,
      `${attempts.map((a) => `(${a}) 2>/dev/null`).join('; ')}; echo tried`,
    );
    expect(r.stdout).toBe('tried\n');
    await eventually(async () => {
      expect((await readdir(path.join(project, '.opencode'))).sort()).toEqual(['agent']);
      expect((await readdir(project)).sort()).toEqual(['.opencode']);
    });
  });

  it("keeps nested repositories' .git read-only and moves aside one a command makes", async () => {
    // A gitlink to either would make the host's `git status` run git, and its config, in it.
    await files(project, {
      'vendor/lib/.git/config': '[core]\n',
      'sub/.git': 'gitdir: ../.git/modules/sub\n',
      'sub/file.txt': 'x\n',
    });
    const attempts = [
      'echo "[core] fsmonitor = x" > vendor/lib/.git/config',
      'rm -rf vendor/lib/.git',
      'mv vendor vendor-moved',
      'rm -f sub/.git',
      'mkdir -p evil/.git && echo "[core] fsmonitor = x" > evil/.git/config',
      'mkdir -p deep/er && echo "gitdir: ../../evil-dir" > deep/er/.git',
    ];
    const r = await runIn(
      backend,
      project,
      `${attempts.map((a) => `(${a}) 2>/dev/null`).join('; ')}; echo tried`,
    );
    expect(r.stdout).toBe('tried\n');
    expect(await readFile(path.join(project, 'vendor', 'lib', '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect(await readFile(path.join(project, 'sub', '.git'), 'utf8')).toBe('gitdir: ../.git/modules/sub\n');
    expect(existsSync(path.join(project, 'evil', '.git'))).toBe(false);
    expect(existsSync(path.join(project, 'deep', 'er', '.git'))).toBe(false);
    expect(r.notices?.join('\n')).toMatch(/deep\/er\/\.git is a git repository a command made/);
    expect(r.notices?.join('\n')).toMatch(/evil\/\.git is a git repository a command made/);
    // Moved, not deleted: the person can look at what the command made.
    const quarantine = path.join(project, '.cadre', 'quarantine');
    const [batch] = await readdir(quarantine);
    expect((await readdir(path.join(quarantine, batch as string))).sort()).toEqual(['deep', 'evil']);
    // Kept under another name, so it is no repository a gitlink could lead the host's git into.
    expect(await readdir(path.join(quarantine, batch as string, 'evil'))).toEqual(['.git-quarantined']);
    expect(await readdir(path.join(quarantine, batch as string, 'deep', 'er'))).toEqual(['.git-quarantined']);
  });

  it('holds a missing protected path against concurrent commands, which share its placeholder', async () => {
    const attempt = (delay: number) =>
      runIn(
        backend,
        project,
        `sleep 0.${delay}; mkdir -p .vscode 2>/dev/null; echo '{}' > .vscode/tasks.json 2>/dev/null; echo tried`,
      );
    const runs = await Promise.all([0, 3, 1, 4, 2, 0, 5].map(attempt));
    expect(runs.map((r) => r.stdout)).toEqual(Array(7).fill('tried\n'));
    // Then one after another, each reusing or remaking the placeholder as the last one is removed.
    for (let i = 0; i < 3; i++) expect((await attempt(0)).stdout).toBe('tried\n');
    expect(existsSync(path.join(project, '.vscode', 'tasks.json'))).toBe(false);
    await eventually(async () => expect(existsSync(path.join(project, '.vscode'))).toBe(false));
  });
});

describe.skipIf(available.length === 0)('placeholders across commands', () => {
  it('a command starting while the last one is still removing a placeholder waits, then makes it again', async () => {
    // Back to back, alternating backends: each command starts as soon as the last returned, when
    // the removal of its placeholders has only just begun.
    for (let i = 0; i < 6; i++) {
      const backend = available[i % available.length] as (typeof available)[number];
      const r = await runIn(
        backend,
        project,
        "echo '{}' > .mcp.json 2>/dev/null; mkdir .vscode 2>/dev/null; echo ran",
      );
      expect(r, backend.name).toMatchObject({ exitCode: 0, stdout: 'ran\n' });
    }
    await eventually(async () => expect((await readdir(project)).sort()).toEqual([]));
  });
});

describe.skipIf(available.length === 0).each(available)('$name: a plan that cannot be made', (backend) => {
  // The launcher starts while the plan is made: one that fails after the start runs nothing.
  it('runs nothing, leaves no process, and says why, though the launcher had started', async () => {
    const marker = token('unplanned');
    const made = path.join(project, 'made');
    await expect(
      runIn(backend, project, `touch ${made}; sleep 30 # ${marker}`, { rules: { deny: ['Read'] } }),
    ).rejects.toMatchObject({
      code: 'sandbox_unavailable',
      message: expect.stringMatching(/denies reading every file/),
    });
    // A protected path that is a link fails the plan the same way, later in it.
    await symlink(base, path.join(project, '.vscode'));
    await expect(runIn(backend, project, `touch ${made}; sleep 30 # ${marker}`)).rejects.toMatchObject({
      code: 'sandbox_unavailable',
      message: expect.stringMatching(/\.vscode is a symbolic link/),
    });
    expect(existsSync(made)).toBe(false);
    expect(await survivorsAfter(marker)).toEqual([]);
  });
});
