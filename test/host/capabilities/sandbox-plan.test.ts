// The pure and near-pure parts of a sandbox: the mount plan's order, the scan's cache (a new secret
// in a directory already scanned is found on the next command), its cap (a tree too big to check
// fails closed), and the trust rules of home entries.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hooksPathFrom, projectHooksPath } from '../../../src/host/capabilities/sandbox/git-hooks.js';
import { collectHidden } from '../../../src/host/capabilities/sandbox/hide.js';
import { homeEntries, isCredential, pathEntriesInHome } from '../../../src/host/capabilities/sandbox/home.js';
import { planSandbox } from '../../../src/host/capabilities/sandbox/plan.js';
import { PLACEHOLDER_LINGER_MS } from '../../../src/host/capabilities/sandbox/placeholders.js';
import { protectProject } from '../../../src/host/capabilities/sandbox/protect.js';
import { buildSystemView } from '../../../src/host/capabilities/sandbox/system-view.js';
import { TreeScanner, type ScanJudge } from '../../../src/host/capabilities/sandbox/tree-scan.js';

let base: string;
let project: string;
let home: string;
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-plan-')));
  project = path.join(base, 'project');
  home = path.join(base, 'home');
  await mkdir(path.join(project, 'src'), { recursive: true });
  await mkdir(home);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const ctx = () => ({ projectDir: project, extraRoots: [], homeDir: home, home, rules: {}, denyRead: [] });

describe('the secret scan', () => {
  it('finds a secret that appears in a directory it has already listed', async () => {
    const scanner = new TreeScanner();
    expect(await collectHidden(ctx(), scanner, [project], [])).toEqual([]);
    await writeFile(path.join(project, 'src', '.env.local'), 'x');
    expect(await collectHidden(ctx(), scanner, [project], [])).toEqual([
      { path: path.join(project, 'src', '.env.local'), dir: false },
    ]);
  });

  it('finds a secret written right after a listing, in the same tick of the change-time clock', async () => {
    // Where change times advance only every few milliseconds, a directory listed just after one
    // change and changed again at once keeps its change time: such a listing must not be reused.
    // (Kernels with fine-grained timestamps, 6.13 on, give the second change a new time anyway.)
    const scanner = new TreeScanner();
    for (let i = 0; i < 30; i++) {
      await writeFile(path.join(project, 'src', `f${i}.ts`), '');
      await collectHidden(ctx(), scanner, [project], []);
      await writeFile(path.join(project, 'src', `.env.${i}`), 'x');
      const hidden = await collectHidden(ctx(), scanner, [project], []);
      expect(hidden.map((h) => path.basename(h.path))).toContain(`.env.${i}`);
    }
  });

  it('fails closed past its entry cap, and counts a symlinked secret by where it leads', async () => {
    const scanner = new TreeScanner();
    for (let i = 0; i < 20; i++) await writeFile(path.join(project, `f${i}`), '');
    expect(await scanner.scan(project, () => 'keep', 10)).toMatchObject({ complete: false });
    expect(await scanner.scan(project, () => 'keep', 100)).toMatchObject({ complete: true, entries: 21 });
    await writeFile(path.join(project, 'src', 'real.txt'), 'secret');
    await symlink(path.join(project, 'src', 'real.txt'), path.join(project, '.env'));
    const hidden = await collectHidden(ctx(), scanner, [project], []);
    expect(hidden).toEqual([{ path: path.join(project, 'src', 'real.txt'), dir: false }]);
  });

  it('makes several scans in one pass, each seeing what it would alone, each with its own cap', async () => {
    await mkdir(path.join(project, 'secret', 'inner', '.git'), { recursive: true });
    await mkdir(path.join(project, 'src', 'lib', '.git'), { recursive: true });
    await writeFile(path.join(project, 'src', 'a.ts'), '');
    const hideSecret: ScanJudge = (abs, type) =>
      path.basename(abs) === 'secret' ? 'hide' : type === 'dir' ? 'descend' : 'keep';
    const findGit: ScanJudge = (abs, type) =>
      path.basename(abs) === '.git' ? 'hide' : type === 'dir' ? 'descend' : 'keep';
    const alone = [
      await new TreeScanner().scan(project, hideSecret),
      await new TreeScanner().scan(project, findGit),
    ];
    const scanner = new TreeScanner();
    for (let round = 0; round < 2; round++) {
      // The second round reuses cached listings and verdicts: the same answers.
      const both = await scanner.scanAll(project, [
        { judge: hideSecret, key: 'secret' },
        { judge: findGit, key: 'git' },
      ]);
      const sorted = (r: (typeof both)[number] | undefined) => ({
        ...r,
        hidden: [...(r?.hidden ?? [])].sort((a, b) => a.path.localeCompare(b.path)),
      });
      expect(both.map(sorted)).toEqual(alone.map(sorted));
    }
    // The git scan went on into the directory the other scan hid, and found the .git below it.
    expect(alone[1]?.hidden.map((h) => path.relative(project, h.path)).sort()).toEqual([
      'secret/inner/.git',
      'src/lib/.git',
    ]);
    const capped = await new TreeScanner().scanAll(project, [{ judge: findGit, cap: 2 }, { judge: findGit }]);
    expect(capped.map((r) => r.complete)).toEqual([false, true]);
    expect(capped[1]?.hidden).toHaveLength(2);
  });

  it('reuses where an unchanged directory leads, yet finds a secret and a .git made deep below it', async () => {
    // Listings older than the change-time window are cached with where each set of scans goes
    // next; a file made in a/b/c changes c's change time only, never a's or b's.
    const deep = path.join(project, 'a', 'b', 'c');
    await mkdir(path.join(deep, 'd'), { recursive: true });
    await mkdir(path.join(project, 'secret', 'inner'), { recursive: true });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const hideSecret: ScanJudge = (abs, type) =>
      path.basename(abs) === 'secret' || path.basename(abs) === '.env'
        ? 'hide'
        : type === 'dir'
          ? 'descend'
          : 'keep';
    const findGit: ScanJudge = (abs, type) =>
      path.basename(abs) === '.git' ? 'hide' : type === 'dir' ? 'descend' : 'keep';
    const specs = [
      { judge: hideSecret, key: 'secret' },
      { judge: findGit, key: 'git' },
    ];
    const scanner = new TreeScanner();
    const rel = (r: { hidden: { path: string }[] } | undefined) =>
      (r?.hidden ?? []).map((h) => path.relative(project, h.path)).sort();
    for (let round = 0; round < 2; round++) {
      const [secrets, gits] = await scanner.scanAll(project, specs);
      expect(rel(secrets)).toEqual(['secret']);
      expect(rel(gits)).toEqual([]);
    }
    await writeFile(path.join(deep, '.env'), 'x');
    await mkdir(path.join(deep, 'd', '.git'));
    await mkdir(path.join(project, 'secret', 'inner', '.git'));
    const [secrets, gits] = await scanner.scanAll(project, specs);
    expect(rel(secrets)).toEqual(['a/b/c/.env', 'secret']);
    expect(rel(gits)).toEqual(['a/b/c/d/.git', 'secret/inner/.git']);
    // The git scan alone, after both went together: it still goes into what the other scan hid.
    const [alone] = await scanner.scanAll(project, [specs[1] as (typeof specs)[number]]);
    expect(rel(alone)).toEqual(['a/b/c/d/.git', 'secret/inner/.git']);
    // A scan that stops at its cap leaves the other's walk whole.
    const capped = await scanner.scanAll(project, [
      { ...specs[0], cap: 3 } as (typeof specs)[number],
      specs[1] as (typeof specs)[number],
    ]);
    expect(capped[0]?.complete).toBe(false);
    expect(rel(capped[1])).toEqual(['a/b/c/d/.git', 'secret/inner/.git']);
    // Where the capped pass went with the git scan alone is no answer for both: even with an empty
    // key, the next whole pass finds the secret again.
    const empty = [{ ...specs[0], key: '' } as (typeof specs)[number], specs[1] as (typeof specs)[number]];
    await scanner.scanAll(project, [
      { ...(empty[0] as (typeof specs)[number]), cap: 3 },
      empty[1] as (typeof specs)[number],
    ]);
    expect(rel((await scanner.scanAll(project, empty))[0])).toEqual(['a/b/c/.env', 'secret']);
  });

  it('hides a home credential store inside any visible root, by its real path', async () => {
    await mkdir(path.join(home, '.cargo'), { recursive: true });
    await writeFile(path.join(home, '.cargo', 'credentials.toml'), 'token');
    await writeFile(path.join(home, '.gitconfig'), '[user]\n');
    const hidden = await collectHidden(ctx(), new TreeScanner(), [project], [path.join(home, '.cargo')]);
    expect(hidden).toEqual([{ path: path.join(home, '.cargo', 'credentials.toml'), dir: false }]);
    expect(isCredential(path.join(home, '.ssh', 'id_rsa'), home)).toBe(true);
    expect(isCredential(path.join(home, '.gitconfig'), home)).toBe(false);
  });
});

describe('home entries', () => {
  it('binds toolchains from PATH by their root, never the whole home or ~/.local', () => {
    const pathVar = [
      `${home}/.nvm/versions/node/v20/bin`,
      `${home}/bin`,
      `${home}/.local/bin`,
      '/usr/bin',
      'relative/bin',
      home,
    ].join(':');
    expect(pathEntriesInHome(pathVar, home)).toEqual([
      `${home}/.nvm/versions/node/v20`,
      `${home}/bin`,
      `${home}/.local/bin`,
    ]);
  });

  it('binds what exists, minus credential stores and nested duplicates', async () => {
    for (const dir of ['.cargo/bin', '.rustup', '.ssh', 'go/bin'])
      await mkdir(path.join(home, dir), { recursive: true });
    await writeFile(path.join(home, '.gitconfig'), '');
    expect(await homeEntries(home, `${home}/.cargo/bin:${home}/.ssh:${home}/go/bin`)).toEqual([
      `${home}/.cargo`,
      `${home}/.gitconfig`,
      `${home}/.rustup`,
      `${home}/go`,
    ]);
  });
});

describe('the mount plan', () => {
  it('mounts the system, then private tmpfs, views by depth, the project, protection, and hides last', async () => {
    await mkdir(path.join(home, '.cargo'), { recursive: true });
    await writeFile(path.join(project, '.env'), 'x');
    await mkdir(path.join(project, '.git', 'hooks'), { recursive: true });
    const system = await buildSystemView();
    const planned = await planSandbox(
      {
        projectDir: project,
        cwd: path.join(project, 'src'),
        home,
        pathVar: '',
        extraRoots: [],
        allowRead: [],
        denyRead: [],
        protect: ['deploy'],
        rules: {},
      },
      system,
      new TreeScanner(),
    );
    try {
      const kinds = planned.plan.mounts.map((m) => ('target' in m ? `${m.kind} ${m.target}` : m.kind));
      const at = (entry: string) => kinds.indexOf(entry);
      expect(at('dev')).toBeGreaterThan(at('ro-bind /usr'));
      expect(at(`tmpfs ${home}`)).toBeGreaterThan(at('tmpfs /tmp'));
      expect(at(`ro-bind ${home}/.cargo`)).toBeGreaterThan(at(`tmpfs ${home}`));
      expect(at(`bind ${project}`)).toBeGreaterThan(at(`ro-bind ${home}/.cargo`));
      // .git is pinned (rw onto itself) before its hooks are made read-only.
      expect(at(`bind ${project}/.git`)).toBeGreaterThan(at(`bind ${project}`));
      expect(at(`ro-bind ${project}/.git/hooks`)).toBeGreaterThan(at(`bind ${project}/.git`));
      expect(at(`ro-bind ${project}/deploy`)).toBeGreaterThan(at(`bind ${project}`));
      const lastMount = kinds.findLastIndex((k) => !k.startsWith('hide-'));
      expect(at(`hide-file ${project}/.env`)).toBeGreaterThan(lastMount);
      expect(planned.plan).toMatchObject({ cwd: path.join(project, 'src'), home });
    } finally {
      await planned.protection.release();
    }
  });
});

describe('mounts over protected secrets', () => {
  const plan = () =>
    planSandbox(
      {
        projectDir: project,
        cwd: project,
        home,
        pathVar: '',
        extraRoots: [],
        allowRead: [],
        denyRead: [],
        protect: [],
        rules: {},
      },
      { roots: [], hidden: [], withheld: [] },
      new TreeScanner(),
    );
  const at = (mounts: { kind: string }[], target: string) =>
    mounts.filter((m) => 'target' in m && m.target === target).map((m) => m.kind);

  it('mount a missing one once (its empty read-only placeholder), and hide an existing one over its read-only bind', async () => {
    // .envrc and .npmrc are both protected and sensitive.
    await writeFile(path.join(project, '.npmrc'), '//registry/:_authToken=secret\n');
    const planned = await plan();
    try {
      expect(at(planned.plan.mounts, path.join(project, '.envrc'))).toEqual(['ro-bind']);
      expect(planned.protection.placeholders.has(path.join(project, '.envrc'))).toBe(true);
      expect(at(planned.plan.mounts, path.join(project, '.npmrc'))).toEqual(['ro-bind', 'hide-file']);
      expect(planned.protection.placeholders.has(path.join(project, '.npmrc'))).toBe(false);
    } finally {
      await planned.protection.release();
    }
  });
});

describe('core.hooksPath', () => {
  it('is read from git config, the last value winning, and protected when it is in the project', async () => {
    expect(hooksPathFrom('[core]\n\thooksPath = .githooks\n[user]\n\thooksPath = nope\n')).toBe('.githooks');
    expect(hooksPathFrom('[Core]\nHooksPath = "a b"\n[core]\n  hookspath=.husky/_\n')).toBe('.husky/_');
    expect(hooksPathFrom('[remote "core"]\n\thooksPath = x\n')).toBeUndefined();
    await mkdir(path.join(project, '.git'), { recursive: true });
    await writeFile(path.join(project, '.git', 'config'), '[core]\n\thooksPath = .husky/_\n');
    expect(projectHooksPath(project, home)).toEqual(['.husky/_']);
    await writeFile(path.join(project, '.git', 'config'), '[core]\n\thooksPath = ../elsewhere\n');
    expect(projectHooksPath(project, home)).toEqual([]);
    await writeFile(path.join(project, '.git', 'config'), '[core]\n');
    await writeFile(path.join(home, '.gitconfig'), `[core]\n\thooksPath = ${project}/hooks\n`);
    expect(projectHooksPath(project, home)).toEqual(['hooks']);
  });
});

describe('placeholders', () => {
  it('are never taken for existing paths while their removal is under way', async () => {
    const first = await protectProject(project, ['.vscode']);
    expect(existsSync(path.join(project, '.vscode'))).toBe(true);
    await first.release();
    // Past the linger, the removal begins in the background.
    await new Promise((resolve) => setTimeout(resolve, PLACEHOLDER_LINGER_MS + 5));
    // The removal has begun, in the background; a command starting now must wait for it and make
    // the placeholder again, not mount the one about to go.
    const second = await protectProject(project, ['.vscode']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(path.join(project, '.vscode'))).toBe(true);
    await second.release();
    // Unused, it stays a moment (a command right after reuses it), then goes.
    expect(existsSync(path.join(project, '.vscode'))).toBe(true);
    // A second past the release when quiet; up to 10 s on a loaded machine.
    for (let i = 0; i < 400 && existsSync(path.join(project, '.vscode')); i++)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(existsSync(path.join(project, '.vscode'))).toBe(false);
  });

  it('count as missing when a command follows: a lingering placeholder .git is no repository to open', async () => {
    const rels = ['.git/hooks', '.git/config'];
    const targets = async () => {
      const p = await protectProject(project, rels);
      await p.release();
      return p.mounts.map((m) => ('target' in m ? `${m.kind} ${path.relative(project, m.target)}` : m.kind));
    };
    expect(await targets()).toEqual(['ro-bind .git']);
    // Right after: the placeholder lingers, and is still the one thing protected (not pinned and
    // looked into, which would let a command fill it with a repository of its own).
    expect(await targets()).toEqual(['ro-bind .git']);
  });
});
