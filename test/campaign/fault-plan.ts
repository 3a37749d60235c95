// Puts a schedule's faults into the sandboxes' own fault injectors (sandbox/kube/faults.ts, used by both): the
// injector's `match` is wrapped so that the Nth request (or Nth write) of a pass gets the scheduled failure, and so that
// the process running the pass can be killed as its Nth request arrives. Counts what was injected, by kind.
import type { FaultDecision, FaultInjector, InjectedFailure } from '../../sandbox/kube/faults.ts';
import type { Api, FaultKind, ScheduledFault, ScheduledKill } from './schedule.ts';

export interface InjectionCounts {
  faults: Partial<Record<FaultKind, number>>;
  kills: number;
}

interface ActivePass {
  faults: ScheduledFault[];
  kill: ScheduledKill | undefined;
  onKill: (() => void) | undefined;
  counters: Record<Api, { any: number; write: number }>;
  total: number;
  writes: number;
  killed: boolean;
}

export class FaultPlan {
  private active: ActivePass | undefined;
  readonly counts: InjectionCounts = { faults: {}, kills: 0 };

  constructor(injectors: Record<Api, FaultInjector>) {
    for (const api of ['kube', 'github'] as const) {
      const injector = injectors[api];
      const original = injector.match.bind(injector);
      injector.match = (method: string, resource: string, subresource: string | undefined): FaultDecision | undefined => {
        // The GitHub server asks again with resource '*' when the first answer is undefined: one request, one count.
        if (resource === '*') return original(method, resource, subresource);
        return this.decide(api, method) ?? original(method, resource, subresource);
      };
    }
  }

  /** Faults (and a kill) for the next pass; `onKill` must kill the process running it. */
  begin(faults: ScheduledFault[], kill: ScheduledKill | undefined, onKill: (() => void) | undefined): void {
    this.active = { faults, kill, onKill, counters: { kube: { any: 0, write: 0 }, github: { any: 0, write: 0 } }, total: 0, writes: 0, killed: false };
  }

  /** Clean passes from here on. Returns whether the pass was killed. */
  end(): boolean {
    const killed = this.active?.killed ?? false;
    this.active = undefined;
    return killed;
  }

  private decide(api: Api, method: string): FaultDecision | undefined {
    const pass = this.active;
    if (!pass) return undefined;
    if (pass.killed) return { latencyMs: 0, failure: 'reset' };
    const counter = pass.counters[api];
    counter.any += 1;
    if (method !== 'GET') counter.write += 1;
    pass.total += 1;
    if (method !== 'GET') pass.writes += 1;
    const killCount = pass.kill?.among === 'write' ? (method !== 'GET' ? pass.writes : -1) : pass.total;
    if (pass.kill && pass.onKill && killCount === pass.kill.atRequest) {
      pass.killed = true;
      pass.onKill();
      this.counts.kills += 1;
      return { latencyMs: 0, failure: pass.kill.when === 'before' ? 'reset' : 'drop-reply' };
    }
    const fault = pass.faults.find((f) => f.api === api && (f.among === 'any' ? counter.any : method !== 'GET' ? counter.write : -1) === f.nth);
    if (!fault) return undefined;
    this.counts.faults[fault.kind] = (this.counts.faults[fault.kind] ?? 0) + 1;
    return decision(fault);
  }
}

function decision(fault: ScheduledFault): FaultDecision {
  const failures: Record<FaultKind, InjectedFailure | undefined> = {
    '500': 500, '503': 503, '429': 429, '409': 409, reset: 'reset', 'drop-reply': 'drop-reply',
    // A timeout as a client sees it behind a load balancer: a long wait, then the connection is cut.
    timeout: 'reset', latency: undefined,
  };
  const slow = fault.kind === 'latency' || fault.kind === 'timeout';
  return { latencyMs: slow ? fault.latencyMs : 0, failure: failures[fault.kind] };
}
