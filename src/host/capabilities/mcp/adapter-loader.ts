// Loads the MCP client (sdk-adapter.ts with the SDK, bundled as dist/host-bundle/mcp-adapter.cjs)
// the first time a server starts, through V8's code cache like cadre's other bundles: one file
// instead of the SDK's hundred-odd modules. A process that never starts a server never loads it.
import { createRequire } from 'node:module';
import path from 'node:path';
import { DIST_DIR } from '../../pool/worker-flags.js';
import type * as Adapter from './sdk-adapter.js';

/** The adapter's exports. */
export type SdkAdapter = typeof Adapter;

let loaded: SdkAdapter | undefined;

/** The MCP client, loaded on first use. */
export function loadSdkAdapter(): SdkAdapter {
  if (loaded) return loaded;
  const load = createRequire(import.meta.url);
  const { loadCached } = load(path.join(DIST_DIR, 'code-cache.cjs')) as {
    loadCached(file: string): { exports: unknown };
  };
  loaded = loadCached(path.join(DIST_DIR, 'host-bundle', 'mcp-adapter.cjs')).exports as SdkAdapter;
  return loaded;
}

/** True once the MCP client has been loaded in this process. */
export function sdkAdapterLoaded(): boolean {
  return loaded !== undefined;
}
