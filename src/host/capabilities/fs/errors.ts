// Turns node:fs failures into CadreErrors that name the path, so the model reads
// "file not found: src/x.ts" instead of an errno dump.
import { CadreError, isCadreError } from '../../../shared/errors.js';

/** The errno code of a node error, if any. */
export function errnoOf(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Maps an fs error on `path` to a CadreError (CadreErrors pass through unchanged). */
export function fsError(error: unknown, path: string): CadreError {
  if (isCadreError(error)) return error;
  switch (errnoOf(error)) {
    case 'ENOENT':
    case 'ENOTDIR':
      return new CadreError('not_found', `file not found: ${path}`, { path });
    case 'EISDIR':
      return new CadreError('invalid_input', `${path} is a directory, use LS to list it`, { path });
    case 'EACCES':
    case 'EPERM':
      return new CadreError('io_error', `the operating system denied access to ${path}`, { path });
    case 'ELOOP':
      return new CadreError('invalid_input', `too many levels of symbolic links: ${path}`, { path });
    case 'ENOSPC':
      return new CadreError('io_error', `no space left on the device writing ${path}`, { path });
    default:
      return new CadreError('io_error', `${path}: ${(error as Error | null)?.message ?? String(error)}`, {
        path,
      });
  }
}
