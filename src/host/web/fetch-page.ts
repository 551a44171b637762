// One WebFetch download: an HTTP(S) GET through the guarded lookup (no private addresses, checked
// before connecting), redirects followed by hand so each hop is checked again (its address and,
// through `mayFollow`, the policy), the body decompressed and cut at `maxBytes` (a compression bomb
// stops there too), and the whole fetch bounded by `timeoutMs` and the run's signal. It only moves
// bytes; decoding and HTML conversion happen off the event loop (html-thread.ts).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Readable } from 'node:stream';
import { CadreError, isCadreError } from '../../shared/errors.js';
import { decodedBody } from '../http-body.js';
import { addressRefusal, type PrivateAllowance } from './address-guard.js';
import { guardedLookup } from './guarded-lookup.js';

/** What a download needs. */
export interface FetchOptions {
  allowance: PrivateAllowance;
  maxBytes: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** Whether a redirect to `url` may be followed without asking (the policy allows it outright). */
  mayFollow: (url: URL) => boolean;
  userAgent: string;
}

/** A downloaded response. */
export interface FetchedPage {
  /** The URL the body came from (after the redirects followed). */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was longer than `maxBytes` and was cut there. */
  truncated: boolean;
  /** The address the last hop connected to. */
  address: string;
  /** A redirect that was not followed (to a host the policy does not allow outright). */
  redirect?: string;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Downloads `start`. Throws a CadreError (`permission_denied`, `timeout`, `io_error`, ...) on failure. */
export async function fetchPage(start: URL, options: FetchOptions): Promise<FetchedPage> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let url = start;
  for (let hop = 0; ; hop++) {
    try {
      const page = await getOnce(url, options, signal);
      const location = REDIRECTS.has(page.result.status) ? page.location : undefined;
      if (location === undefined) return page.result;
      const next = new URL(location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        throw new CadreError(
          'permission_denied',
          `${url.href} redirects to ${next.protocol} URLs, which are not fetched`,
        );
      if (hop + 1 > MAX_REDIRECTS)
        throw new CadreError('io_error', `more than ${MAX_REDIRECTS} redirects, the last to ${next.href}`);
      if (!options.mayFollow(next)) return { ...page.result, redirect: next.href };
      url = next;
    } catch (error) {
      if (timeout.aborted)
        throw new CadreError(
          'timeout',
          `fetching ${url.href} took longer than ${options.timeoutMs / 1000} s`,
        );
      if (options.signal.aborted) throw new CadreError('cancelled', 'the fetch was cancelled');
      throw isCadreError(error)
        ? error
        : new CadreError('io_error', `fetching ${url.href}: ${(error as Error).message}`);
    }
  }
}

interface Hop {
  result: FetchedPage;
  location: string | undefined;
}

function getOnce(url: URL, options: FetchOptions, signal: AbortSignal): Promise<Hop> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  // An address written in the URL is never resolved, so it is checked here.
  if (net.isIP(hostname) !== 0) {
    const refusal = addressRefusal(hostname, hostname, options.allowance);
    if (refusal !== undefined) return Promise.reject(new CadreError('permission_denied', refusal));
  }
  let address = hostname;
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Hop>((resolve, reject) => {
    const request = client.get(
      url,
      {
        agent: false,
        lookup: guardedLookup(options.allowance, (a) => (address = a)),
        signal,
        headers: {
          'user-agent': options.userAgent,
          accept: 'text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const contentType = String(response.headers['content-type'] ?? '');
        const location = response.headers.location;
        const done = (body: Buffer, truncated: boolean) =>
          resolve({
            location,
            result: {
              url: url.href,
              status,
              contentType,
              body,
              truncated,
              address: net.isIP(hostname) ? hostname : address,
            },
          });
        if (REDIRECTS.has(status) && location !== undefined) {
          response.resume();
          done(Buffer.alloc(0), false);
          return;
        }
        readCapped(decodedBody(response).body, options.maxBytes, () => response.destroy()).then(
          ({ body, truncated }) => done(body, truncated),
          reject,
        );
      },
    );
    request.on('error', reject);
  });
}

/** Reads at most `max` bytes, then stops the stream and the response: the rest is never downloaded or inflated. */
function readCapped(
  stream: Readable,
  max: number,
  stopSource: () => void,
): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let settled = false;
    const finish = (truncated: boolean) => {
      if (settled) return;
      settled = true;
      resolve({ body: Buffer.concat(chunks, Math.min(length, max)), truncated });
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      chunks.push(chunk);
      length += chunk.length;
      if (length > max) {
        finish(true);
        stream.destroy();
        stopSource();
      }
    });
    stream.on('end', () => finish(false));
    stream.on('error', (error) => {
      if (!settled) {
        settled = true;
        reject(error);
      }
    });
  });
}
