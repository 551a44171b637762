// What a file's first bytes say about it, for the policy: a PEM private key (whatever the file is
// called), or one of cadre's own records (a transcript, an audit log or a cassette copied or
// recorded anywhere). Pure and cheap: it looks at the first few kilobytes the read has in hand.
import type { FileContentKind } from '../policy/types.js';

/** How much of a file is looked at. */
export const SNIFF_BYTES = 64 * 1024;

/** A private key's PEM armour (`-----BEGIN RSA PRIVATE KEY-----`, `OPENSSH`, `ENCRYPTED`, PGP's). */
const PRIVATE_KEY = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/;
/** What a record's first line starts with (transcripts/records.ts, capabilities/audit.ts, models/cassette.ts). */
const RECORD_STARTS: readonly RegExp[] = [
  /^\{"type":"header","version":\d+,/,
  /^\{"prev":"[0-9a-f]{64}",/,
  /^\{"v":\d+,"request":\{"model":/,
];

/**
 * The sensitive kind of a file that begins with `head`, or undefined. A private key counts when the
 * file begins with PEM armour (after whitespace or a byte-order mark) and a private-key block appears
 * in the first `SNIFF_BYTES` (a bundle may put the certificate first), or when it is a PuTTY key.
 */
export function sniffContent(head: Uint8Array): FileContentKind | undefined {
  let start = 0;
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) start = 3;
  while (start < head.length && isSpace(head[start] ?? 0)) start++;
  const first = head[start];
  if (first === 0x2d /* - */) {
    const text = latin1(head, start, SNIFF_BYTES);
    if (text.startsWith('-----BEGIN ') && PRIVATE_KEY.test(text)) return 'private-key';
    return undefined;
  }
  if (first === 0x50 /* P */) {
    return latin1(head, start, 32).startsWith('PuTTY-User-Key-File-') ? 'private-key' : undefined;
  }
  // `{"` then one of the records' first keys (`type`, `prev`, `v`): only then is a string made.
  if (
    first === 0x7b /* { */ &&
    head[start + 1] === 0x22 &&
    RECORD_KEY_STARTS.includes(head[start + 2] ?? 0)
  ) {
    const text = latin1(head, start, 256);
    return RECORD_STARTS.some((re) => re.test(text)) ? 'cadre-record' : undefined;
  }
  return undefined;
}

/** The first letters of the records' first keys: `type`, `prev`, `v`. */
const RECORD_KEY_STARTS: readonly number[] = [0x74, 0x70, 0x76];

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function latin1(bytes: Uint8Array, start: number, max: number): string {
  const end = Math.min(bytes.length, start + max);
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1');
}
