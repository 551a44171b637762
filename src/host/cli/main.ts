// The `cadre` executable's body: wiring only. The bundle (dist/host/cli/cadre.cjs) exports `main`,
// which the executable (dist/host/cli/cadre.mjs, scripts/cli-loader.mjs) calls.
import { processContext } from './context.js';
import { runCli } from './program.js';

/** What the executable hands the bundled CLI. */
export interface MainOptions {
  /** Loads an ES module (the bundle itself runs where import() has no loader). */
  importModule?: (specifier: string) => Promise<unknown>;
}

/** Runs `cadre` with the process's arguments and sets its exit code. */
export async function main(options: MainOptions = {}): Promise<void> {
  const args = process.argv.slice(2);
  const script = process.argv[1];
  process.exitCode = await runCli(args, {
    ...processContext(),
    ...(script !== undefined ? { relaunch: { script, args } } : {}),
    ...(options.importModule ? { importModule: options.importModule } : {}),
  });
}
