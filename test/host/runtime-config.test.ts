// The configuration a runtime starts from: the config files with the options' overrides on top,
// and clear errors naming the option or file when the start cannot go on.
import { afterEach, describe, expect, it } from 'vitest';
import { projectDirOf, runtimeConfig } from '../../src/host/runtime-config.js';
import { readCassette } from '../../src/host/runtime-agents.js';
import { tempProject } from '../support/project.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

async function project(files: Record<string, string>) {
  const p = await tempProject(files);
  cleanup = p.cleanup;
  return p;
}

describe('runtimeConfig', () => {
  it("puts the options' overrides over the config files, and leaves what they do not name", async () => {
    const p = await project({
      '.cadre/config.json': JSON.stringify({
        concurrency: 3,
        permissions: { defaultMode: 'plan', deny: ['Bash(rm:*)'] },
      }),
    });
    const files = await runtimeConfig(p.dir, p.home, {});
    expect(files.config.concurrency).toBe(3);
    expect(files.config.permissions.defaultMode).toBe('plan');
    const overridden = await runtimeConfig(p.dir, p.home, {
      concurrency: 7,
      isolation: 'process',
      memoryLimitMb: 256,
      tokenBudget: 1000,
      permissionMode: 'acceptEdits',
    });
    expect(overridden.config).toMatchObject({
      concurrency: 7,
      isolation: 'process',
      memoryLimitMb: 256,
      tokenBudget: 1000,
    });
    expect(overridden.config.permissions.defaultMode).toBe('acceptEdits');
    // The mode override keeps the file's rules.
    expect(overridden.config.permissions.deny).toEqual(files.config.permissions.deny);
    expect(overridden.loaded).toEqual(files.loaded);
  });

  it('refuses a config that does not parse, naming the file', async () => {
    const p = await project({ '.cadre/config.json': '{ "concurrency": "many" }' });
    await expect(runtimeConfig(p.dir, p.home, {})).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/invalid configuration:\n.*config\.json.*concurrency/s),
    });
  });
});

describe('projectDirOf and readCassette', () => {
  it('name the option when the directory or the cassette is missing', async () => {
    await expect(projectDirOf({ cwd: '/no/such/dir' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'options.cwd: directory /no/such/dir does not exist',
    });
    await expect(readCassette({ replay: '/no/such/cassette.jsonl' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'options.replay: cannot read /no/such/cassette.jsonl: ENOENT',
    });
    expect(await readCassette({})).toBeUndefined();
  });
});
