// Bounded parallelism for many small fs calls: enough in flight to keep libuv's thread pool busy,
// few enough that a 20,000-file walk never opens thousands of descriptors at once.

/** Maps `items` through `fn` with at most `limit` calls in flight; results keep input order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  });
  await Promise.all(lanes);
  return results;
}
