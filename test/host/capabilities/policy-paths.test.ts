import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, type PolicyInput, type ResolvedPath } from '../../../src/host/capabilities/policy.js';
import { findSensitive, scanSensitive } from '../../../src/host/capabilities/policy/sensitive.js';
import { resolvePath } from '../../../src/host/capabilities/paths.js';
import type { PermissionMode } from '../../../src/shared/task.js';

const P = '/work/proj';
const MODES: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];
const FILE_CAPS = ['fs.read', 'fs.readMany', 'fs.glob', 'fs.stat', 'fs.list', 'fs.write'];

function rp(requested: string, absolute: string, real = absolute, exists = true): ResolvedPath {
  return { requested, absolute, real, exists };
}

function ask(cap: string, p: ResolvedPath, extra: Partial<PolicyInput> = {}): PolicyInput {
  const input: PolicyInput = { capability: cap, projectDir: P, mode: 'default', ...extra };
  return cap === 'fs.readMany' ? { ...input, paths: [p] } : { ...input, path: p };
}

describe('path jail (ResolvedPath inputs)', () => {
  const outside: [string, ResolvedPath][] = [
    ['relative ..', rp('../other/x', '/work/other/x')],
    ['.. in the middle', rp('src/../../etc/passwd', '/work/etc/passwd')],
    ['absolute outside', rp('/etc/passwd', '/etc/passwd')],
    ['a sibling with the project as prefix', rp('/work/proj2/a', '/work/proj2/a')],
    ['symlinked file out', rp('link.txt', `${P}/link.txt`, '/etc/passwd')],
    [
      'symlinked directory out (new file)',
      rp('out/new.txt', `${P}/out/new.txt`, '/tmp/elsewhere/new.txt', false),
    ],
    ['lexically out, symlink back in', rp('../proj-link/a', '/work/proj-link/a', `${P}/a`)],
  ];
  const rows = outside.flatMap(([name, p]) =>
    FILE_CAPS.flatMap((cap) => MODES.map((mode) => [name, cap, mode, p] as const)),
  );
  it.each(rows)('%s: %s in %s mode is denied', (_name, cap, mode, p) => {
    const result = decide({ ...ask(cap, p), mode, rules: { allow: ['Read', 'Write', 'Edit(//**)'] } });
    expect(result.decision).toBe('deny');
    expect(result.code).toBe('path_outside_project');
    expect(result.reason).toContain(`"${p.requested}"`);
    expect(result.reason).toContain('permissions.additionalDirectories');
  });

  it('says when a symbolic link leads out', () => {
    const result = decide(ask('fs.read', rp('link.txt', `${P}/link.txt`, '/etc/passwd')));
    expect(result.reason).toContain('/etc/passwd through a symbolic link');
  });

  const insideRows: [string, ResolvedPath][] = [
    ['relative', rp('src/a.ts', `${P}/src/a.ts`)],
    ['absolute', rp(`${P}/src/a.ts`, `${P}/src/a.ts`)],
    ['the project itself', rp('.', P)],
    ['.. that stays inside', rp('src/../lib/a.ts', `${P}/lib/a.ts`)],
    ['symlink inside to inside', rp('alias.ts', `${P}/alias.ts`, `${P}/src/a.ts`)],
    ['an extra root', rp('/opt/shared/lib.ts', '/opt/shared/lib.ts')],
    ['a trailing slash on the root', rp('x', `${P}/x`)],
  ];
  it.each(insideRows)('%s is inside', (_name, p) => {
    const result = decide({ ...ask('fs.read', p), projectDir: `${P}/`, extraRoots: ['/opt/shared'] });
    expect(result.decision).toBe('allow');
  });

  it('needs an allow rule to match both the written and the real path', () => {
    const viaLink = rp('src/gen/a.ts', `${P}/src/gen/a.ts`, `${P}/build/a.ts`);
    const result = decide({ ...ask('fs.write', viaLink), rules: { allow: ['Write(src/**)'] } });
    expect(result.decision).toBe('ask');
    const both = decide({
      ...ask('fs.write', viaLink),
      rules: { allow: ['Write(src/**)', 'Write(build/**)'] },
    });
    expect(both.decision).toBe('allow');
  });

  it('applies a deny rule that matches only where a symlink really leads', () => {
    const viaLink = rp('docs/link', `${P}/docs/link`, `${P}/secrets/key.txt`);
    const result = decide({ ...ask('fs.read', viaLink), rules: { deny: ['Read(secrets/**)'] } });
    expect(result).toMatchObject({ decision: 'deny', rule: 'Read(secrets/**)' });
  });

  it('denies the extra-root lookalike', () => {
    const result = decide({
      ...ask('fs.read', rp('/opt/shared2/x', '/opt/shared2/x')),
      extraRoots: ['/opt/shared'],
    });
    expect(result.code).toBe('path_outside_project');
  });

  it('denies one bad path among many in readMany', () => {
    const result = decide({
      capability: 'fs.readMany',
      projectDir: P,
      mode: 'default',
      paths: [rp('a', `${P}/a`), rp('../b', '/work/b'), rp('c', `${P}/c`)],
    });
    expect(result.code).toBe('path_outside_project');
  });

  it.each(['../**', '../../etc/*', 'src/{..,x}/*', '/etc/*', '~/x', 'a/../../b'])(
    'denies the escaping glob pattern %s',
    (pattern) => {
      const result = decide({ ...ask('fs.glob', rp('.', P)), pattern });
      expect(result.decision).toBe('deny');
      expect(result.code).toBe('path_outside_project');
    },
  );

  it.each(['**/*.ts', 'src/*.{ts,tsx}', '..foo/*', 'a..b'])('allows the glob pattern %s', (pattern) => {
    expect(decide({ ...ask('fs.glob', rp('.', P)), pattern }).decision).toBe('allow');
  });

  it.each([
    ['no path', { capability: 'fs.read', projectDir: P, mode: 'default' }],
    [
      'relative absolute field',
      {
        capability: 'fs.read',
        projectDir: P,
        mode: 'default',
        path: { requested: 'a', absolute: 'a', real: 'a', exists: true },
      },
    ],
    [
      'relative project dir',
      { capability: 'fs.read', projectDir: 'proj', mode: 'default', path: rp('a', '/a') },
    ],
    ['unknown mode', { capability: 'fs.read', projectDir: P, mode: 'yolo', path: rp('a', `${P}/a`) }],
  ])('denies malformed input: %s', (_name, input) => {
    const result = decide(input as unknown as PolicyInput);
    expect(result.decision).toBe('deny');
    expect(result.code).toBe('invalid_input');
  });
});

describe('path jail on a real directory tree', () => {
  let root: string;
  let project: string;
  let outsideDir: string;

  beforeAll(async () => {
    root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cadre-policy-')));
    project = path.join(root, 'project');
    outsideDir = path.join(root, 'outside');
    await mkdir(path.join(project, 'src'), { recursive: true });
    await mkdir(outsideDir);
    await writeFile(path.join(project, 'src', 'a.ts'), 'x');
    await writeFile(path.join(outsideDir, 'secret.txt'), 'x');
    await symlink(path.join(outsideDir, 'secret.txt'), path.join(project, 'file-link'));
    await symlink(outsideDir, path.join(project, 'dir-link'));
    await symlink(path.join(project, 'src'), path.join(project, 'src-link'));
    await writeFile(path.join(project, '.env'), 'TOKEN=1');
    await symlink(path.join(project, '.env'), path.join(project, 'notes.txt'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const cases: [string, string, 'allow' | 'deny' | 'ask', string?][] = [
    ['fs.read', 'src/a.ts', 'allow'],
    ['fs.read', 'src-link/a.ts', 'allow'],
    ['fs.read', 'file-link', 'deny', 'path_outside_project'],
    ['fs.read', 'dir-link/secret.txt', 'deny', 'path_outside_project'],
    ['fs.write', 'dir-link/new.txt', 'deny', 'path_outside_project'],
    ['fs.list', 'dir-link', 'deny', 'path_outside_project'],
    ['fs.read', '../outside/secret.txt', 'deny', 'path_outside_project'],
    ['fs.write', 'src/new/deep.ts', 'allow'],
    ['fs.read', 'notes.txt', 'deny', 'sensitive_path'],
  ];
  it.each(cases)('%s %s → %s', async (cap, requested, expected, code) => {
    const resolved = await resolvePath(requested, project);
    const result = decide({ ...ask(cap, resolved), projectDir: project, mode: 'acceptEdits' });
    expect(result.decision).toBe(expected);
    if (code) expect(result.code).toBe(code);
  });

  it('names where a symlink to a secret leads', async () => {
    const result = decide({
      ...ask('fs.read', await resolvePath('notes.txt', project)),
      projectDir: project,
    });
    expect(result.reason).toContain(`it leads to ${project}/.env`);
  });
});

describe('sensitive paths', () => {
  const denied = [
    '.env',
    'config/.env',
    '.env.local',
    '.env.production',
    '.ENV',
    'server.pem',
    'tls/private.key',
    'cert.p12',
    'id_rsa',
    'keys/id_ed25519',
    'id_ecdsa_work',
    '.npmrc',
    '.netrc',
    '.pypirc',
    '.git-credentials',
    'credentials.json',
    'home/.aws/credentials',
    '.ssh/config',
    'home/.ssh/known_hosts',
    '.gnupg/pubring.kbx',
    '.docker/config.json',
    '.kube/config',
    '.config/gcloud/application_default_credentials.json',
    // `.env` with any prefix or suffix, and the other names secrets hide under.
    '.env~',
    '.env-production',
    '.env.local.bak',
    'prod.env',
    'config/staging.env',
    '.envrc',
    'deploy_key',
    'keys/signing_key',
    'id_deploy',
    'id_rsa.old',
    'credentials',
    'credentials.yml',
    'config/credentials.xml',
  ];
  it.each(denied)('denies reading %s', (rel) => {
    for (const cap of ['fs.read', 'fs.readMany', 'fs.list', 'fs.glob']) {
      const result = decide({
        ...ask(cap, rp(rel, `${P}/${rel}`)),
        mode: 'bypassPermissions',
        rules: { allow: ['Read', 'Read(**)', 'Read(src/**)'] },
      });
      expect(result.decision, cap).toBe('deny');
      expect(result.code).toBe('sensitive_path');
      expect(result.reason).toContain(`Read(${rel})`);
    }
  });

  const allowed = [
    '.env.example',
    '.env.sample',
    '.env.template',
    'id_rsa.pub',
    'environment.ts',
    'src/keys.ts',
    'my.env.ts',
    '.aws/config',
    'ssh/config',
    'docs/pem.md',
    '.env.local.example',
    'prod.env.sample',
    'src/credentials.ts',
    'src/id_gen.py',
    'keys.md',
    'monkey.ts',
    'environment',
  ];
  it.each(allowed)('allows reading %s', (rel) => {
    expect(decide(ask('fs.read', rp(rel, `${P}/${rel}`))).decision).toBe('allow');
  });

  it('lets stat see a secret exists', () => {
    expect(decide(ask('fs.stat', rp('.env', `${P}/.env`))).decision).toBe('allow');
  });

  it.each([
    ['Read(**/.env)', '.env', 'allow'],
    ['Read(.env)', '.env', 'allow'],
    ['Read(.env)', 'config/.env', 'allow'],
    ['Read(./.env)', 'config/.env', 'deny'],
    ['Read(*.pem)', 'certs/server.pem', 'allow'],
    ['Read(.ssh/**)', '.ssh/id_rsa', 'allow'],
    ['Read(**)', '.env', 'deny'],
    ['Read', '.env', 'deny'],
    ['Read(config/*)', 'config/.env', 'deny'],
    ['Read(config)', 'config/.env', 'deny'],
    ['Grep(**/.env)', '.env', 'deny'],
  ])('allow rule %s on %s → %s', (rule, rel, expected) => {
    const result = decide({ ...ask('fs.read', rp(rel, `${P}/${rel}`)), rules: { allow: [rule] } });
    expect(result.decision).toBe(expected);
  });

  it('a Grep rule naming the file opens it to Grep', () => {
    const result = decide({
      ...ask('fs.readMany', rp('.env', `${P}/.env`)),
      rules: { allow: ['Grep(.env)'] },
    });
    expect(result.decision).toBe('allow');
  });

  it('a deny rule still wins over an explicit allow', () => {
    const result = decide({
      ...ask('fs.read', rp('.env', `${P}/.env`)),
      rules: { allow: ['Read(.env)'], deny: ['Read(.env)'] },
    });
    expect(result).toMatchObject({ decision: 'deny', code: 'permission_denied' });
  });

  it.each([
    '.env',
    '.git/hooks/pre-commit',
    '.cadre/config.json',
    '.claude/settings.json',
    '.ssh/authorized_keys',
  ])('writing %s asks even in acceptEdits and bypassPermissions', (rel) => {
    for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
      const result = decide({
        ...ask('fs.write', rp(rel, `${P}/${rel}`)),
        mode,
        rules: { allow: ['Write', 'Edit(**)'] },
      });
      expect(result.decision, mode).toBe('ask');
      expect(result.reason).toContain('always needs approval');
    }
  });

  it('writing a protected file is allowed by a rule that names it', () => {
    const result = decide({
      ...ask('fs.write', rp('.cadre/agents/x.md', `${P}/.cadre/agents/x.md`)),
      rules: { allow: ['Write(.cadre/agents/**)'] },
    });
    expect(result.decision).toBe('allow');
  });
});

describe('the sensitive-path pre-check', () => {
  it('never clears a path that the full scan finds sensitive', () => {
    const words = [
      'src',
      'a.ts',
      '.env',
      '.ENV.local',
      '.env.example',
      'id_rsa',
      'ID_ED25519.old',
      'id_rsa.pub',
      'x.pem',
      'X.KEY',
      'store.jks',
      '_netrc',
      'Credentials.JSON',
      '.ssh',
      '.gnupg',
      '.aws',
      'credentials',
      '.docker',
      'config.json',
      '.kube',
      'config',
      '.config',
      'gcloud',
      'gh',
      '.npmrc',
      '.git-credentials',
      'key',
      'pem',
      'env',
      'ssh',
      'id_',
      'netrc',
      // Non-ASCII that lowercases to ASCII: the Kelvin sign becomes "k".
      'secret.\u212Aey',
      'x.pp\u212A',
      '.\u212Aube',
      'ID_RSA',
    ];
    let state = 7;
    const next = () => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state / 2147483648;
    };
    let sensitive = 0;
    for (let i = 0; i < 20_000; i++) {
      const segs = Array.from(
        { length: 1 + Math.floor(next() * 4) },
        () => words[Math.floor(next() * words.length)],
      );
      const p = `/proj/${segs.join('/')}`;
      const full = scanSensitive(p);
      if (full) sensitive++;
      expect(findSensitive(p), p).toEqual(full);
    }
    // The generator reaches both sides of the check.
    expect(sensitive).toBeGreaterThan(1000);
    expect(sensitive).toBeLessThan(19_000);
  });
});
