// Every page of a GitHub list. Not `octokit.paginate`: its iterator reads a 409 on any page as "no more items" (meant
// for an empty repository's commits), so a 409 on listing comments or pull requests looked like none there, and a
// comment of ours was posted twice (fault campaign, seed 1123 schedule 803). Here a 409 fails like any other error.

const perPage = 100;

export async function listAll<T>(
  request: (page: { page: number; per_page: number }) => Promise<{ data: T[]; headers: { link?: string | undefined } }>,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const response = await request({ page, per_page: perPage });
    items.push(...response.data);
    if (!/<[^>]+>;\s*rel="next"/.test(response.headers.link ?? '')) return items;
  }
}
