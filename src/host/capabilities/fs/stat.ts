// Stats one path for the tools that need to know what is there (Write's create-or-overwrite, LS).
import { stat as fsStat } from 'node:fs/promises';
import type { FsStatResult } from '../../../shared/capabilities.js';
import { errnoOf, fsError } from './errors.js';

/** What `real` is now. A missing path is a value (`exists: false`), not an error. */
export async function stat(real: string): Promise<FsStatResult> {
  try {
    const st = await fsStat(real);
    const type = st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other';
    return { path: real, exists: true, type, size: st.size, mtimeMs: st.mtimeMs };
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { path: real, exists: false, type: 'missing', size: 0, mtimeMs: 0 };
    throw fsError(error, real);
  }
}
