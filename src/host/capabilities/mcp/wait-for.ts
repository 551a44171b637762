// Waiting for a shared piece of work (a server starting) with a caller's own limits: its timeout
// and its abort signal end its wait, never the work, which other callers may still be waiting for.
import { CadreError } from '../../../shared/errors.js';

/** Waits for `work`, but no longer than `ms` or until `signal` aborts. */
export function waitFor<T>(
  work: Promise<T>,
  signal: AbortSignal | undefined,
  ms: number,
  what: string,
): Promise<T> {
  if (signal?.aborted) return Promise.reject(new CadreError('cancelled', `${what}: cancelled`));
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        finish(() =>
          reject(new CadreError('timeout', `${what}: no answer within ${Math.round(ms / 1000)} s`)),
        ),
      ms,
    );
    const onAbort = () => finish(() => reject(new CadreError('cancelled', `${what}: cancelled`)));
    const finish = (settle: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      settle();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
