// Bounded concurrency for API calls: enough parallelism to be quick, few enough requests to stay polite to the server.
export async function mapWithConcurrency<T, R>(
  items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  });
  await Promise.all(workers);
  return results;
}
