// The policy's side of what a model must never reach: cadre's records (every file capability, every
// mode, whatever the rules), private keys by content, the one protected list for writes in every
// mode (config additions included), and package.json changes to what npm runs.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  decide,
  loadShellGrammar,
  type PolicyInput,
  type ResolvedPath,
} from '../../../src/host/capabilities/policy.js';
import { PROTECTED_PATHS } from '../../../src/host/capabilities/policy/protected-paths.js';
import type { PermissionMode } from '../../../src/shared/task.js';

const P = '/work/proj';
const RECORDS = ['/work/proj/.cadre/projects', '/home/u/.cadre/projects', '/work/proj/run.cassette.jsonl'];
const MODES: PermissionMode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];
const FILE_CAPS = ['fs.read', 'fs.readMany', 'fs.glob', 'fs.stat', 'fs.list', 'fs.write'];

function rp(rel: string, real?: string): ResolvedPath {
  const abs = rel.startsWith('/') ? rel : `${P}/${rel}`;
  return { requested: rel, absolute: abs, real: real ?? abs, exists: true };
}

function call(cap: string, p: ResolvedPath, extra: Partial<PolicyInput> = {}): PolicyInput {
  const base: PolicyInput = {
    capability: cap,
    projectDir: P,
    extraRoots: ['/home/u'],
    mode: 'default',
    ...extra,
  };
  return cap === 'fs.readMany' ? { ...base, paths: [p] } : { ...base, path: p };
}

describe("cadre's records", () => {
  const targets: [string, ResolvedPath][] = [
    ['a transcript', rp('.cadre/projects/x-1/transcripts/explore-1.jsonl')],
    ['the records directory', rp('.cadre/projects')],
    ['a record in any letter case', rp('.CADRE/Projects/x/audit.jsonl')],
    ['a symlink into the records', rp('notes/link.jsonl', '/home/u/.cadre/projects/x/audit.jsonl')],
    ['a cassette named by --record', rp('run.cassette.jsonl')],
  ];
  const rows = targets.flatMap(([name, p]) =>
    FILE_CAPS.flatMap((cap) => MODES.map((mode) => [name, cap, mode, p] as const)),
  );
  it.each(rows)('%s: %s in %s mode is denied, even with allow rules naming it', (_n, cap, mode, p) => {
    const allow = ['Read', 'Write', 'Edit', 'Read(.cadre/**)', 'Edit(.cadre/**)', 'Read(//home/u/**)'];
    const v = decide({ ...call(cap, p, { mode, records: RECORDS }), rules: { allow } });
    expect(v.decision).toBe('deny');
    expect(v.code).toBe('forbidden_operation');
    expect(v.reason).toMatch(/cadre's own records/);
  });

  it('leaves the rest of .cadre alone: an agent file may be read', () => {
    expect(decide(call('fs.read', rp('.cadre/agents/a.md'), { records: RECORDS })).decision).toBe('allow');
  });

  it('denies a file whose content shows it is a record, wherever it is', () => {
    const v = decide(
      call('fs.read', rp('notes/copy.jsonl'), {
        content: 'cadre-record',
        rules: { allow: ['Read(notes/copy.jsonl)'] },
      }),
    );
    expect(v).toMatchObject({ decision: 'deny', code: 'forbidden_operation' });
  });

  it('refuses record locations that are not absolute paths', () => {
    const v = decide({ ...call('fs.read', rp('a.ts')), records: ['relative/dir'] });
    expect(v).toMatchObject({ decision: 'deny', code: 'invalid_input' });
  });
});

describe('private keys by content', () => {
  it('denies a file that begins with a private key, naming the rule that would allow it', () => {
    for (const cap of ['fs.read', 'fs.readMany']) {
      const v = decide(call(cap, rp('docs/notes.txt'), { content: 'private-key' }));
      expect(v.decision).toBe('deny');
      expect(v.code).toBe('sensitive_path');
      expect(v.reason).toContain('Read(docs/notes.txt)');
    }
  });

  it.each([
    ['Read(docs/notes.txt)', 'allow'],
    ['Read(notes.txt)', 'allow'],
    ['Read(docs/**)', 'deny'],
    ['Read(**)', 'deny'],
    ['Read', 'deny'],
  ])('allow rule %s → %s', (rule, expected) => {
    const v = decide({
      ...call('fs.read', rp('docs/notes.txt'), { content: 'private-key' }),
      rules: { allow: [rule] },
    });
    expect(v.decision).toBe(expected);
  });
});

describe('protected paths for the file tools', () => {
  const paths = [
    '.git/HEAD',
    '.git/hooks/pre-commit',
    '.git/config',
    'sub/.git/info/exclude',
    '.gitmodules',
    '.husky/pre-commit',
    '.vscode/tasks.json',
    '.idea/workspace.xml',
    '.envrc',
    '.pre-commit-config.yaml',
    '.mcp.json',
    '.claude/settings.json',
    '.cadre/config.json',
    '.cursor/mcp.json',
    '.gemini/settings.json',
    '.continue/config.yaml',
    '.opencode/plugins/evil.ts',
    'opencode.json',
    'opencode.jsonc',
    'packages/web/.husky/pre-push',
    '.HUSKY/pre-commit',
  ];
  const rows = paths.flatMap((p) =>
    (['acceptEdits', 'bypassPermissions', 'default'] as const).map((m) => [p, m] as const),
  );
  it.each(rows)('writing %s asks in %s mode', (rel, mode) => {
    const v = decide({ ...call('fs.write', rp(rel), { mode }), rules: { allow: ['Write', 'Edit(**)'] } });
    expect(v.decision).toBe('ask');
    expect(v.reason).toMatch(/always needs approval/);
  });

  it('covers every entry of the one protected list', () => {
    for (const entry of PROTECTED_PATHS) {
      const v = decide(call('fs.write', rp(`${entry}/x`), { mode: 'bypassPermissions' }));
      expect(v.decision, entry).toBe('ask');
    }
  });

  it('adds the paths config sandbox.protect names', () => {
    const plain = decide(call('fs.write', rp('deploy/run.sh'), { mode: 'acceptEdits' }));
    expect(plain.decision).toBe('allow');
    const guarded = decide(
      call('fs.write', rp('deploy/run.sh'), { mode: 'acceptEdits', protect: ['deploy/'] }),
    );
    expect(guarded.decision).toBe('ask');
    expect(guarded.suggestions).toEqual(['Edit(deploy/run.sh)']);
  });

  it('opens a protected path only to an allow rule that names it', () => {
    const named = decide({
      ...call('fs.write', rp('.husky/pre-commit'), { mode: 'acceptEdits' }),
      rules: { allow: ['Edit(.husky/**)'] },
    });
    expect(named.decision).toBe('allow');
    const wide = decide({
      ...call('fs.write', rp('.husky/pre-commit'), { mode: 'acceptEdits' }),
      rules: { allow: ['Edit(**)'] },
    });
    expect(wide.decision).toBe('ask');
  });

  it('leaves ordinary writes to the mode', () => {
    expect(decide(call('fs.write', rp('src/a.ts'), { mode: 'acceptEdits' })).decision).toBe('allow');
    expect(decide(call('fs.write', rp('src/.gitkeep'), { mode: 'acceptEdits' })).decision).toBe('allow');
  });
});

describe('package.json', () => {
  const write = (codeKeysChanged: string[] | undefined, mode: PermissionMode = 'bypassPermissions') =>
    decide(call('fs.write', rp('package.json'), { mode, ...(codeKeysChanged ? { codeKeysChanged } : {}) }));

  it('asks for a change to scripts or lifecycle hooks in every mode', () => {
    for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
      const v = write(['scripts'], mode);
      expect(v.decision).toBe('ask');
      expect(v.reason).toContain('"scripts"');
    }
  });

  it('lets a change that leaves scripts alone through as the mode says', () => {
    expect(write([], 'acceptEdits').decision).toBe('allow');
    expect(write([], 'default').decision).toBe('ask');
  });

  it('asks when the change could not be checked (fails closed)', () => {
    expect(write(undefined).decision).toBe('ask');
    expect(
      decide(call('fs.write', rp('packages/a/package.json'), { mode: 'bypassPermissions' })).decision,
    ).toBe('ask');
  });
});

describe('commands and the records', () => {
  beforeAll(() => loadShellGrammar());
  const exec = (command: string, mode: PermissionMode = 'bypassPermissions') =>
    decide({ capability: 'exec.run', command, projectDir: P, homeDir: '/home/u', mode, records: RECORDS });

  it('refuses a redirection into the records in every mode', () => {
    const v = exec('echo forged >> /home/u/.cadre/projects/x/audit.jsonl');
    expect(v.decision).toBe('deny');
    expect(v.reason).toMatch(/cadre's own records/);
  });

  it('asks, even in bypassPermissions, for a command that names a record', () => {
    const v = exec("sed -i '2d' /home/u/.cadre/projects/x/audit.jsonl");
    expect(v.decision).toBe('ask');
    expect(v.reason).toMatch(/cadre's own records/);
  });
});
