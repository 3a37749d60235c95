// Answers about git objects named by full SHAs (trees, commits, ancestry, history), asked of git once: objects never
// change, and a pass asked the same questions hundreds of times, a git process each (half a suite's time on a loaded
// machine). Answers about refs, which move, are never kept here; nor is "no such object", which a write can change.

/** A failed git command; `exitCode` tells a "no" (merge-base --is-ancestor's 1) from an error (128: no such object). */
export class GitCommandError extends Error {
  constructor(message: string, readonly exitCode: number | undefined) {
    super(message);
  }
}

export class KeptAnswers {
  private readonly answers = new Map<string, unknown>();

  constructor(private readonly isFullSha: (name: string) => boolean) {}

  /** `compute`'s answer, kept when every name in `shas` is a full SHA and `keep` says the answer cannot change. */
  async once<T>(shas: Array<string | undefined>, what: string, compute: () => Promise<T>, keep: (answer: T) => boolean = () => true): Promise<T> {
    if (!shas.every((sha) => sha === undefined || this.isFullSha(sha))) return compute();
    const key = `${what} ${shas.join(' ')}`;
    if (this.answers.has(key)) return this.answers.get(key) as T;
    const answer = await compute();
    if (keep(answer)) this.answers.set(key, answer);
    return answer;
  }
}
