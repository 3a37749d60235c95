// The repository's refs as one `git for-each-ref` read them, kept until one may have moved: a pass resolved a branch
// or listed refs dozens of times, a git process each. Whoever moves a ref (update-ref, a push) calls `forget`.

interface RefEntry {
  sha: string;
  type: string;
}

export class RefSnapshot {
  private refs: Promise<Map<string, RefEntry>> | undefined;

  /** `read` runs `for-each-ref --format='%(refname) %(objectname) %(objecttype)'`. */
  constructor(private readonly read: () => Promise<string>) {}

  forget(): void {
    this.refs = undefined;
  }

  /**
   * The commit the ref git's rev-parse would take `name` for (refs/NAME, refs/tags/NAME, refs/heads/NAME,
   * refs/remotes/NAME, refs/remotes/NAME/HEAD, in git's order); undefined leaves the question to git itself: SHAs,
   * `HEAD`, `main~1`, a ref to a tag object, a name no ref has.
   */
  async commitOf(name: string): Promise<string | undefined> {
    if (/^[0-9a-f]{4,40}$/.test(name) || !/^[A-Za-z0-9._/-]+$/.test(name) || (!name.includes('/') && /^[A-Z_]+$/.test(name))) return undefined;
    const refs = await this.snapshot();
    const candidates = name.startsWith('refs/') ? [name] : [`refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`];
    const found = candidates.map((candidate) => refs.get(candidate)).find((entry) => entry !== undefined);
    return found?.type === 'commit' ? found.sha : undefined;
  }

  /** What `for-each-ref PATTERN` lists for a pattern without globs: the ref itself and those under it, by name. */
  async matching(pattern: string): Promise<Array<{ ref: string; sha: string }>> {
    const under = pattern.endsWith('/') ? pattern : `${pattern}/`;
    return [...(await this.snapshot())].filter(([ref]) => ref === pattern || ref.startsWith(under)).map(([ref, { sha }]) => ({ ref, sha }));
  }

  private snapshot(): Promise<Map<string, RefEntry>> {
    this.refs ??= this.read().then((output) => new Map(output.split('\n').filter((l) => l !== '').map((line): [string, RefEntry] => {
      const [ref = '', sha = '', type = ''] = line.split(' ');
      return [ref, { sha, type }];
    })));
    return this.refs;
  }
}
