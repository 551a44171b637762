// The package version, read from package.json beside the compiled code (one level above dist/ or src/).
import { readFile } from 'node:fs/promises';

/** The version in package.json, or "0.0.0" when it cannot be read. */
export async function packageVersion(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
