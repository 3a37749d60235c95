// Every request the sandbox served, with counters by verb and resource, so tests can assert how many reads and writes
// a pass made and benchmarks can print API-call counts.
export interface LoggedRequest {
  method: string;
  verb: string;
  resource: string;
  subresource?: string | undefined;
  namespace?: string | undefined;
  name?: string | undefined;
  dryRun: boolean;
  status: number;
}

const writeVerbs = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

export class RequestLog {
  readonly entries: LoggedRequest[] = [];

  record(entry: LoggedRequest): void {
    this.entries.push(entry);
  }

  reset(): void {
    this.entries.length = 0;
  }

  /** `list statefulsets` -> 2, `patch persistentvolumeclaims (dryRun)` -> 3, ... */
  countsByVerbAndResource(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const e of this.entries) {
      const key = `${e.verb} ${e.resource}${e.subresource ? `/${e.subresource}` : ''}${e.dryRun ? ' (dryRun)' : ''}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /** Requests that changed (or tried to change) stored state: dry runs excluded. */
  writes(): LoggedRequest[] {
    return this.entries.filter((e) => writeVerbs.has(e.verb) && !e.dryRun);
  }

  reads(): LoggedRequest[] {
    return this.entries.filter((e) => e.verb === 'get' || e.verb === 'list');
  }
}
