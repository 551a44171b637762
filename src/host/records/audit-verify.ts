// Checks an audit log's hash chain (audit-chain.ts) from its first line to its last, and its end
// against the checkpoint, streaming (a log of millions of lines needs no more memory than its
// longest line). Reports the first broken link with its line number.
import { createReadStream } from 'node:fs';
import { GENESIS, hashLine, readHead } from './audit-chain.js';

/** What a verification found. */
export type AuditVerdict =
  | { ok: true; lines: number; bytes: number; warnings: string[] }
  | { ok: false; lines: number; line: number; reason: string; warnings: string[] };

const PREV = /^\{"prev":"([0-9a-f]{64})",/;

interface Walk {
  line: number;
  bytes: number;
  expected: string;
  /** A line that was not a record, which the next line must chain over (a torn write). */
  torn: number | undefined;
  /** The byte offset the checkpoint names, and the hash of the line ending there. */
  head: { bytes: number; last: string } | undefined;
  headSeen: boolean;
  warnings: string[];
}

/** Checks one line (its bytes, without the newline); the reason it breaks the chain, or undefined. */
function checkLine(walk: Walk, bytes: Buffer, last: boolean): string | undefined {
  walk.line++;
  const n = walk.line;
  const start = bytes.subarray(0, 80).toString('latin1');
  const prev = PREV.exec(start)?.[1];
  const hash = hashLine(bytes);
  walk.bytes += bytes.length + (last ? 0 : 1);
  if (walk.head && !walk.headSeen && walk.bytes >= walk.head.bytes) {
    walk.headSeen = true;
    if (walk.bytes !== walk.head.bytes || hash !== walk.head.last)
      return `line ${n} is not the line cadre last wrote there: it was changed after it was written`;
  }
  if (prev === undefined) {
    // Not a record: a write cut short by a crash, which the next line chains over, or a forgery.
    if (walk.torn !== undefined) return `line ${walk.torn} is not a record, and neither is line ${n}`;
    walk.torn = n;
    walk.expected = hash;
    return undefined;
  }
  if (prev !== walk.expected) {
    if (n === 1) return 'line 1 does not start the chain: lines before it were removed, or it was changed';
    return `line ${n} does not carry the hash of line ${n - 1}: line ${n - 1} was changed, or lines were removed or inserted between them`;
  }
  if (walk.torn !== undefined) {
    walk.warnings.push(
      `line ${walk.torn} is an incomplete record (a write cut short); the chain continues over it`,
    );
    walk.torn = undefined;
  }
  walk.expected = hash;
  return undefined;
}

/** Verifies the audit log at `file`. Rejects with the file system's error when it cannot be read. */
export async function verifyAuditLog(file: string): Promise<AuditVerdict> {
  const head = readHead(file);
  const walk: Walk = {
    line: 0,
    bytes: 0,
    expected: GENESIS,
    torn: undefined,
    head: head === 'unreadable' ? undefined : head,
    headSeen: false,
    warnings: [],
  };
  const broken = (reason: string): AuditVerdict => ({
    ok: false,
    lines: walk.line,
    line: walk.line,
    reason,
    warnings: walk.warnings,
  });
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    let data = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
      const reason = checkLine(walk, data.subarray(0, nl), false);
      if (reason !== undefined) return broken(reason);
      data = data.subarray(nl + 1);
    }
    carry = Buffer.from(data);
  }
  if (carry.length > 0) {
    const reason = checkLine(walk, carry, true);
    if (reason !== undefined) return broken(reason);
  }
  if (walk.torn !== undefined) {
    // The last line is cut short: a crash mid-write. Tolerated only past the checkpoint.
    walk.warnings.push(`line ${walk.torn}, the last, is an incomplete record (a write cut short)`);
  }
  if (walk.line > 0 && walk.head === undefined) {
    // Every append writes the checkpoint: a chained log without one has lost it.
    const what = head === 'unreadable' ? 'is unreadable' : 'is missing';
    return {
      ok: false,
      lines: walk.line,
      line: walk.line + 1,
      reason: `the checkpoint ${file}.head ${what}, so lines removed from the end of the log would not show`,
      warnings: walk.warnings,
    };
  }
  if (walk.head && !walk.headSeen) {
    return {
      ok: false,
      lines: walk.line,
      line: walk.line + 1,
      reason: `the log ends at line ${walk.line} (${walk.bytes} bytes), but cadre had written ${walk.head.bytes} bytes: lines were removed from its end`,
      warnings: walk.warnings,
    };
  }
  return { ok: true, lines: walk.line, bytes: walk.bytes, warnings: walk.warnings };
}
