// What one campaign schedule is, and fast-check's arbitrary for it: a Git scenario (what changed), then one to three
// faulty passes, each with API faults placed on the Nth request (or Nth write) to either sandbox and maybe a SIGKILL
// of the process running the pass at its Nth request.
import fc from 'fast-check';

export type FaultKind = '500' | '503' | '429' | '409' | 'reset' | 'drop-reply' | 'timeout' | 'latency';
export const faultKinds: readonly FaultKind[] = ['500', '503', '429', '409', 'reset', 'drop-reply', 'timeout', 'latency'];

export type Api = 'kube' | 'github';

export interface ScheduledFault {
  api: Api;
  /** Counted among all requests of the pass to that API, or among its writes only (most requests are reads). */
  among: 'any' | 'write';
  nth: number;
  kind: FaultKind;
  /** For 'latency' and 'timeout'. */
  latencyMs: number;
}

export interface ScheduledKill {
  /** Counted among all requests of the pass (to either sandbox), or among its writes only (where crashes hurt). */
  among: 'any' | 'write';
  /** The Nth such request made by the pass: the process is SIGKILLed as it arrives. */
  atRequest: number;
  /** 'before': the request is not served; 'after': it is served (a write takes effect) and the answer goes nowhere. */
  when: 'before' | 'after';
}

export interface FaultyPass {
  faults: ScheduledFault[];
  kill: ScheduledKill | undefined;
  /** Controller ticks after the pass (the cluster moves on while the tool is down). */
  ticksAfter: number;
}

export interface Scenario {
  /** A merged pull request grows db/pg (2 replicas) 10Gi -> 20Gi: recreation, PVC patches, progress status. */
  growPg: boolean;
  /** A merged pull request grows db/wh 20Gi -> 100Gi past its driver's 50Gi: expansion fails, recovery PR. */
  growWh: boolean;
  /** An open pull request grows db/pg to 30Gi: a validation check and a plan comment. */
  openPr: boolean;
}

export interface Schedule {
  scenario: Scenario;
  passes: FaultyPass[];
}

// A pass makes some 40-70 requests, 3-15 of them writes: the Nth is drawn where it usually lands.
const faultArbitrary: fc.Arbitrary<ScheduledFault> = fc.oneof(
  fc.record({
    api: fc.constantFrom<Api>('kube', 'github'), among: fc.constant<'any'>('any'), nth: fc.integer({ min: 1, max: 45 }),
    kind: fc.constantFrom(...faultKinds), latencyMs: fc.integer({ min: 20, max: 250 }),
  }),
  fc.record({
    api: fc.constantFrom<Api>('kube', 'github'), among: fc.constant<'write'>('write'), nth: fc.integer({ min: 1, max: 8 }),
    kind: fc.constantFrom(...faultKinds), latencyMs: fc.integer({ min: 20, max: 250 }),
  }),
);

const killArbitrary: fc.Arbitrary<ScheduledKill> = fc.oneof(
  fc.record({ among: fc.constant<'any'>('any'), atRequest: fc.integer({ min: 1, max: 80 }), when: fc.constantFrom<'before' | 'after'>('before', 'after') }),
  fc.record({ among: fc.constant<'write'>('write'), atRequest: fc.integer({ min: 1, max: 12 }), when: fc.constantFrom<'before' | 'after'>('before', 'after') }),
);

export function scheduleArbitrary(options: { killRate: number }): fc.Arbitrary<Schedule> {
  const scenario = fc.record({ growPg: fc.boolean(), growWh: fc.boolean(), openPr: fc.boolean() })
    .filter((s) => s.growPg || s.growWh || s.openPr);
  const killWeight = Math.min(100, Math.max(0, Math.round(options.killRate * 100)));
  const pass = fc.record({
    faults: fc.array(faultArbitrary, { minLength: 1, maxLength: 4 }),
    kill: fc.oneof(
      { arbitrary: fc.constant<ScheduledKill | undefined>(undefined), weight: 100 - killWeight },
      { arbitrary: killArbitrary.map((k): ScheduledKill | undefined => k), weight: killWeight },
    ),
    ticksAfter: fc.integer({ min: 0, max: 3 }),
  });
  return fc.record({ scenario, passes: fc.array(pass, { minLength: 1, maxLength: 3 }) });
}
