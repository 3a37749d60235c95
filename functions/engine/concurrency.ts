// Bounded concurrency for API calls: enough parallelism to be quick, few enough requests to stay polite to the server.
// The first failure stops new work from starting; it is thrown once the work already started has settled, so nothing
// runs on behind the caller's back (a pass releases its Lease only after its last write).
export async function mapWithConcurrency<T, R>(
  items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (!failed && next < items.length) {
      const index = next++;
      try {
        results[index] = await work(items[index] as T, index);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  });
  const settled = await Promise.allSettled(workers);
  const failure = settled.find((s) => s.status === 'rejected');
  if (failure) throw failure.reason;
  return results;
}
