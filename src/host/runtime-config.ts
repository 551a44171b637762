// The configuration a runtime starts from: its project directory, the merged config files, and the
// overrides the caller passed in options. A config that does not parse refuses the start.
import path from 'node:path';
import { realpath } from 'node:fs/promises';
import { CadreError } from '../shared/errors.js';
import { loadConfig, type CadreConfig, type LoadedConfig } from './config.js';
import { formatIssue } from './registry/index.js';
import type { RuntimeOptions } from './runtime.js';

/** The project directory of a runtime, real and checked to exist. */
export async function projectDirOf(options: Pick<RuntimeOptions, 'cwd'>): Promise<string> {
  return realpath(path.resolve(options.cwd ?? process.cwd())).catch(() => {
    throw new CadreError(
      'invalid_input',
      `options.cwd: directory ${options.cwd ?? process.cwd()} does not exist`,
    );
  });
}

/**
 * `files` as entries of the protected list, which is relative to the root a path lies in: each file
 * relative to the project or an additional directory holding it, by every name that reaches it (as
 * given, through its directory's real path, and its own real path), so that neither a symbolic
 * link on the way nor the file behind it can be swapped. A file outside all of them needs none: no
 * file tool writes there, and commands see those places read-only.
 */
async function protectEntries(files: readonly string[], roots: readonly string[]): Promise<string[]> {
  const out = new Set<string>();
  const realRoots = await Promise.all(roots.map((r) => realpath(r).catch(() => r)));
  for (const file of files) {
    const given = path.resolve(file);
    const names = [
      given,
      path.join(await realpath(path.dirname(given)).catch(() => path.dirname(given)), path.basename(given)),
      await realpath(given).catch(() => given),
    ];
    for (const name of names)
      for (const root of [...roots, ...realRoots]) {
        const rel = path.relative(root, name);
        if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel))
          out.add(rel.split(path.sep).join('/'));
      }
  }
  return [...out];
}

/** The config files as loaded, and the config in force: theirs with the options' overrides. */
export async function runtimeConfig(
  cwd: string,
  home: string,
  options: RuntimeOptions,
): Promise<{ loaded: LoadedConfig; config: CadreConfig }> {
  const loaded = await loadConfig({ cwd, home });
  // A config that does not parse may be missing deny rules: refuse to run rather than guess.
  if (loaded.errors.length > 0)
    throw new CadreError(
      'invalid_input',
      `invalid configuration:\n${loaded.errors.map(formatIssue).join('\n')}`,
    );
  const readOnly = await protectEntries(options.readOnlyFiles ?? [], [
    cwd,
    ...loaded.merged.permissions.additionalDirectories,
  ]);
  const config: CadreConfig = {
    ...loaded.merged,
    ...(readOnly.length > 0
      ? { sandbox: { ...loaded.merged.sandbox, protect: [...loaded.merged.sandbox.protect, ...readOnly] } }
      : {}),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}),
    ...(options.isolation ? { isolation: options.isolation } : {}),
    ...(options.memoryLimitMb ? { memoryLimitMb: options.memoryLimitMb } : {}),
    ...(options.tokenBudget ? { tokenBudget: options.tokenBudget } : {}),
    permissions: {
      ...loaded.merged.permissions,
      ...(options.permissionMode ? { defaultMode: options.permissionMode } : {}),
    },
  };
  return { loaded, config };
}
