// The host's I/O thread: answers batch reads with synchronous calls, so thousands of small files
// cost microseconds each without blocking the host's event loop (which keeps deadlines, kills and
// approvals on time). It is host code with the host's rights; agent workers never reach it.
import { parentPort } from 'node:worker_threads';
import { toWire, type WireError } from '../../../shared/errors.js';
import { globSync, type GlobWalkOptions } from './glob-walk-sync.js';
import { judgeReadSync, type JudgeContext } from './judge-read-sync.js';
import { readBatchSync } from './read-batch-sync.js';

/**
 * A request from the host: read checked real paths; resolve, judge and read requested ones; or
 * walk a checked directory for a glob.
 */
export type IoRequest =
  | { id: number; kind: 'read'; reals: string[]; maxBytes: number; budget: number }
  | { id: number; kind: 'judgeRead'; paths: string[]; ctx: JudgeContext; maxBytes: number; budget: number }
  | { id: number; kind: 'glob'; rootReal: string; pattern: string; options: GlobWalkOptions };

/** The answer: the result, or the error that stopped the whole request. */
export type IoAnswer = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

function answer(request: IoRequest): { value: unknown; bytes?: Uint8Array } {
  if (request.kind === 'glob') return { value: globSync(request.rootReal, request.pattern, request.options) };
  if (request.kind === 'read') {
    const batch = readBatchSync(request.reals, request.maxBytes, request.budget);
    return { value: batch, bytes: batch.bytes };
  }
  const batch = judgeReadSync(request.paths, request.ctx, request.maxBytes, request.budget);
  return { value: batch, bytes: batch.bytes };
}

parentPort?.on('message', (request: IoRequest) => {
  let reply: IoAnswer;
  let transfer: ArrayBuffer[] = [];
  try {
    const { value, bytes } = answer(request);
    reply = { id: request.id, ok: true, value };
    if (bytes) transfer = [bytes.buffer as ArrayBuffer];
  } catch (error) {
    reply = { id: request.id, ok: false, error: toWire(error) };
  }
  parentPort?.postMessage(reply, transfer);
});
