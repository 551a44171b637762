// The pure half of Grep's one-pass search (glob-read.ts): a batch whose read stopped at its share
// of the byte budget is split so the rest goes out again, and the batches' answers are put
// together in path order, within the call's budget, as one result part.
import type { FoundBatch } from './io-thread.js';
import type { JudgedBatch } from './judge-read-sync.js';
import type { ReadPart } from './read-many.js';

/** Files the walk found, and the answer of the batch read that judged and read them. */
export interface Part {
  found: FoundBatch;
  answer?: JudgedBatch;
  sent: boolean;
}

/**
 * Splits `part`, whose answer stopped at its share of the budget while budget is left, into the
 * files it handled and the rest (returned, to be sent again); the rest will be judged again.
 */
export function splitAtCut(part: Part, answer: JudgedBatch, cutAt: number): Part {
  const { paths, reals } = part.found;
  part.found = { paths: paths.slice(0, cutAt), reals: reals.slice(0, cutAt) };
  part.answer = {
    ...answer,
    skipped: answer.skipped.filter((s) => s.index < cutAt),
    deferred: [],
    // Every allowed file past the cut was deferred.
    allowed: answer.allowed - answer.deferred.length,
  };
  return { found: { paths: paths.slice(cutAt), reals: reals.slice(cutAt) }, sent: false };
}

/**
 * Puts the batches' answers together in order, up to `budget` bytes of content (at least one
 * file), as one batch with indexes into `labels`; everything from the first file that did not fit
 * (or was not read) on is `deferred`, to be asked for again by path.
 */
export function assemble(
  batches: readonly FoundBatch[],
  answers: readonly (JudgedBatch | undefined)[],
  budget: number,
): { part: ReadPart; labels: string[]; deferred: string[]; allowed: number } {
  const labels: string[] = [];
  const part: ReadPart = { read: [], ends: [], mtimes: [], bytes: new Uint8Array(0), skipped: [] };
  const pieces: Uint8Array[] = [];
  const deferred: string[] = [];
  let total = 0;
  let allowed = 0;
  let cut = false;
  batches.forEach((batch, k) => {
    const answer = answers[k];
    if (cut || !answer) {
      cut = true;
      deferred.push(...batch.paths);
      return;
    }
    let cutAt = answer.deferred[0] ?? batch.paths.length;
    let taken = 0;
    for (; taken < answer.read.length; taken++) {
      const index = answer.read[taken] ?? 0;
      if (index >= cutAt) break;
      if (part.read.length > 0 && total >= budget) {
        cutAt = index;
        break;
      }
      const end = answer.ends[taken] ?? 0;
      total += end - (answer.ends[taken - 1] ?? 0);
      part.read.push(labels.length + index);
      part.ends.push(total);
      part.mtimes.push(answer.mtimes[taken] ?? 0);
    }
    pieces.push(answer.bytes.subarray(0, answer.ends[taken - 1] ?? 0));
    for (const s of answer.skipped)
      if (s.index < cutAt) part.skipped.push({ index: labels.length + s.index, reason: s.reason });
    labels.push(...batch.paths.slice(0, cutAt));
    deferred.push(...batch.paths.slice(cutAt));
    allowed += answer.allowed;
    cut = cutAt < batch.paths.length;
  });
  part.bytes = new Uint8Array(total);
  let at = 0;
  for (const piece of pieces) {
    part.bytes.set(piece, at);
    at += piece.length;
  }
  return { part, labels, deferred, allowed };
}
