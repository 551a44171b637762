// Path handling inside the worker: one key per file for the read-state map, whatever form
// (relative or absolute) the model used. Pure string work; the host still jails every path.
import path from 'node:path';

/** The absolute, normalized form of `filePath` against the project directory `cwd`. */
export function resolvePath(cwd: string, filePath: string): string {
  return path.resolve(cwd, filePath);
}
