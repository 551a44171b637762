// What a runtime runs: the agent registry from every source (and again on reload), and the
// cassette a replaying runtime plays back.
import { readFile } from 'node:fs/promises';
import type { RegistryResult } from '../shared/agent-definition.js';
import { CadreError } from '../shared/errors.js';
import { loadConfig, type LoadedConfig } from './config.js';
import { loadRegistry } from './registry/index.js';
import type { RuntimeOptions } from './runtime.js';

/** The runtime options that say which agents load and how. */
export type AgentOptions = Pick<RuntimeOptions, 'agents' | 'env' | 'registryCacheDir'>;

/** Loads the agents of the project at `cwd` and the user at `home`, with the options' own. */
export function loadAgents(
  cwd: string,
  home: string,
  loaded: LoadedConfig,
  options: AgentOptions,
): Promise<RegistryResult> {
  return loadRegistry({
    cwd,
    home,
    cliAgents: options.agents,
    config: loaded,
    env: options.env ?? process.env,
    ...(options.registryCacheDir !== undefined ? { cacheDir: options.registryCacheDir } : {}),
  });
}

/**
 * Reads every agent source again, with the same options as the first load (its agents, its
 * environment for `${VAR}`s, its registry cache). The config files are read again too; while they
 * do not parse, the ones the runtime started with still say where agents come from.
 */
export async function reloadAgents(
  cwd: string,
  home: string,
  started: LoadedConfig,
  options: AgentOptions,
): Promise<RegistryResult> {
  const fresh = await loadConfig({ cwd, home });
  return loadAgents(cwd, home, fresh.errors.length > 0 ? started : fresh, options);
}

/** The cassette of `options.replay`, or undefined when not replaying. */
export async function readCassette(options: Pick<RuntimeOptions, 'replay'>): Promise<string | undefined> {
  if (!options.replay) return undefined;
  const file = options.replay;
  return readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CadreError(
      'invalid_input',
      `options.replay: cannot read ${file}: ${error.code ?? error.message}`,
    );
  });
}
