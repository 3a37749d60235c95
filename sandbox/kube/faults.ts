// Fault injection per route (method + resource [+ subresource]): latency, error rates and one-shot failures,
// deterministic through a seeded PRNG so tests and benchmarks repeat exactly. Shared by both sandboxes.
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * An injected failure: an HTTP status answered instead of serving the request; 'reset' cuts the connection before
 * the request is served; 'drop-reply' serves it (a write takes effect) and cuts the connection where the answer
 * would go out, so the client sees a network error for a change that happened.
 */
export type InjectedFailure = number | 'reset' | 'drop-reply';

export interface FaultRule {
  method?: string;
  resource?: string;
  subresource?: string;
  latencyMs?: number;
  /** Probability in [0, 1] that a matching request fails with `errorCode`. */
  errorRate?: number;
  errorCode?: number;
  /** Fail the next N matching requests with `failWith`. */
  failNext?: number;
  failWith?: InjectedFailure;
}

export interface FaultDecision {
  latencyMs: number;
  failure: InjectedFailure | undefined;
}

export class FaultInjector {
  private rules: Array<FaultRule & { remaining: number }> = [];
  private state: number;

  constructor(seed = 42) {
    this.state = seed >>> 0 || 1;
  }

  add(rule: FaultRule): void {
    this.rules.push({ ...rule, remaining: rule.failNext ?? 0 });
  }

  /** Fails the next `count` requests matching method and resource, e.g. `failNext('DELETE', 'statefulsets')`. */
  failNext(method: string, resource: string, count = 1, failWith: FaultRule['failWith'] = 503): void {
    this.add({ method, resource, failNext: count, failWith });
  }

  clear(): void {
    this.rules = [];
  }

  match(method: string, resource: string, subresource: string | undefined): FaultDecision | undefined {
    let decision: FaultDecision | undefined;
    for (const rule of this.rules) {
      if (rule.method !== undefined && rule.method !== method) continue;
      if (rule.resource !== undefined && rule.resource !== resource) continue;
      if (rule.subresource !== undefined && rule.subresource !== subresource) continue;
      decision ??= { latencyMs: 0, failure: undefined };
      decision.latencyMs += rule.latencyMs ?? 0;
      if (decision.failure !== undefined) continue;
      if (rule.remaining > 0) {
        rule.remaining -= 1;
        decision.failure = rule.failWith ?? 503;
      } else if (rule.errorRate !== undefined && this.random() < rule.errorRate) {
        decision.failure = rule.errorCode ?? 500;
      }
    }
    this.rules = this.rules.filter((r) => !(r.failNext !== undefined && r.remaining === 0 && r.errorRate === undefined && r.latencyMs === undefined));
    return decision;
  }

  /** mulberry32 */
  private random(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
}

/**
 * Lets the request be served as usual, then destroys the connection instead of sending the answer: the effect of a
 * reply lost on the way back ("it succeeded, but we never heard").
 */
export function dropReply(request: IncomingMessage, response: ServerResponse): void {
  const cut = (): ServerResponse => {
    request.socket.destroy();
    return response;
  };
  response.writeHead = cut;
  response.write = ((): boolean => {
    request.socket.destroy();
    return false;
  }) as ServerResponse['write'];
  response.end = cut as ServerResponse['end'];
}
