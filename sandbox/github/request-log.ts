// Requests the GitHub sandbox served, counted by Octokit-style operation name (`repos.createCommitStatus`).
export interface GitHubLoggedRequest {
  method: string;
  operation: string;
  path: string;
  /** The query string as sent (`?state=open&per_page=100`), or ''; tells one listing from another of the same operation. */
  query: string;
  status: number;
  /** The bytes of the answer's body as sent (gzipped for a tarball): what the client had to take in. */
  bytes: number;
}

export class GitHubRequestLog {
  readonly entries: GitHubLoggedRequest[] = [];

  record(entry: GitHubLoggedRequest): void {
    this.entries.push(entry);
  }

  reset(): void {
    this.entries.length = 0;
  }

  countsByOperation(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const e of this.entries) counts[e.operation] = (counts[e.operation] ?? 0) + 1;
    return counts;
  }

  /** POST, PATCH, PUT and DELETE requests: what changed GitHub (or tried to). */
  writes(): GitHubLoggedRequest[] {
    return this.entries.filter((e) => e.method !== 'GET' && e.operation !== 'apps.createInstallationAccessToken');
  }
}
