// An HTTP response's body as its reader wants it: decoded from gzip, deflate or brotli, as fetch
// does. Used by the model channel and by WebFetch.
import type http from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';

/** The body decoded (and whether it had to be); an unknown encoding is passed through as sent. */
export function decodedBody(res: http.IncomingMessage): { body: Readable; decoded: boolean } {
  const encoding = String(res.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? zlib.createGunzip()
      : encoding === 'deflate'
        ? zlib.createInflate()
        : encoding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return { body: res, decoded: false };
  res.on('error', (error) => decoder.destroy(error));
  return { body: res.pipe(decoder), decoded: true };
}
