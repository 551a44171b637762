// The host's I/O thread: answers batch reads with synchronous calls, so thousands of small files
// cost microseconds each without blocking the host's event loop (which keeps deadlines, kills and
// approvals on time). It is host code with the host's rights; agent workers never reach it.
import { parentPort } from 'node:worker_threads';
import { toWire, type WireError } from '../../../shared/errors.js';
import { globSync, walkGlob, type GlobWalkOptions } from './glob-walk-sync.js';
import { judgeReadFoundSync, judgeReadSync, type JudgeContext } from './judge-read-sync.js';
import { readBatchSync } from './read-batch-sync.js';

/** Files a streaming walk found: what fs.glob would list, and where each really is. */
export interface FoundBatch {
  paths: string[];
  reals: string[];
}

/**
 * A request from the host: read checked real paths; resolve, judge and read requested ones; walk
 * a checked directory for a glob, whole or in batches as it goes; judge and read what a walk found.
 */
export type IoRequest =
  | { id: number; kind: 'read'; reals: string[]; maxBytes: number; budget: number }
  | { id: number; kind: 'judgeRead'; paths: string[]; ctx: JudgeContext; maxBytes: number; budget: number }
  | { id: number; kind: 'glob'; rootReal: string; pattern: string; options: GlobWalkOptions }
  | {
      id: number;
      kind: 'globStream';
      rootReal: string;
      pattern: string;
      options: GlobWalkOptions;
      batch: number;
    }
  | {
      id: number;
      kind: 'judgeReadFound';
      found: FoundBatch;
      ctx: JudgeContext;
      maxBytes: number;
      budget: number;
    };

/** An answer: a part of the result (streaming requests), the result, or the error that stopped it. */
export type IoAnswer =
  | { id: number; partial: unknown }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: WireError };

/** The last answer of a streaming walk: the files found since the last part, and how the walk ended. */
export type WalkEnd = FoundBatch & { truncated: boolean; notices: string[] };

/** Walks, posting the files found every `size` files; the answer is the rest and how the walk ended. */
function walkInBatches(request: Extract<IoRequest, { kind: 'globStream' }>): WalkEnd {
  let batch: FoundBatch = { paths: [], reals: [] };
  const { truncated, notices } = walkGlob(request.rootReal, request.pattern, request.options, (file) => {
    batch.paths.push(file.path);
    batch.reals.push(file.real);
    if (batch.paths.length >= request.batch) {
      parentPort?.postMessage({ id: request.id, partial: batch } satisfies IoAnswer);
      batch = { paths: [], reals: [] };
    }
  });
  return { ...batch, truncated, notices };
}

function answer(request: IoRequest): { value: unknown; bytes?: Uint8Array } {
  switch (request.kind) {
    case 'glob':
      return { value: globSync(request.rootReal, request.pattern, request.options) };
    case 'globStream':
      return { value: walkInBatches(request) };
    case 'read': {
      const batch = readBatchSync(request.reals, request.maxBytes, request.budget);
      return { value: batch, bytes: batch.bytes };
    }
    case 'judgeRead': {
      const batch = judgeReadSync(request.paths, request.ctx, request.maxBytes, request.budget);
      return { value: batch, bytes: batch.bytes };
    }
    case 'judgeReadFound': {
      const { paths, reals } = request.found;
      const batch = judgeReadFoundSync(paths, reals, request.ctx, request.maxBytes, request.budget);
      return { value: batch, bytes: batch.bytes };
    }
  }
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
