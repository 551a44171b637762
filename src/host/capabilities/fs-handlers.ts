// The file and command capabilities of one run, gathered: each handler parses the worker's
// request, resolves every path (realpath), passes the one authorization step (effect-context.ts:
// policy, a person when it asks, audit) and only then performs the effect. One module per kind:
// fs-read-handlers.ts (read, stat, list, glob), fs-read-many-handler.ts, fs-write-handler.ts and
// exec-handler.ts.
import type { Capabilities } from '../../shared/capabilities.js';
import type { EffectContext } from './effect-context.js';
import { execHandler } from './exec-handler.js';
import { globHandler, listHandler, readHandler, statHandler } from './fs-read-handlers.js';
import { readManyHandler } from './fs-read-many-handler.js';
import { writeHandler } from './fs-write-handler.js';

export { type EffectContext } from './effect-context.js';

/** Builds the fs.* and exec.run handlers of one run. */
export function effectHandlers(ctx: EffectContext): Partial<Capabilities> {
  return {
    'fs.read': readHandler(ctx),
    'fs.readMany': readManyHandler(ctx),
    'fs.glob': globHandler(ctx),
    'fs.stat': statHandler(ctx),
    'fs.list': listHandler(ctx),
    'fs.write': writeHandler(ctx),
    'exec.run': execHandler(ctx),
  };
}
