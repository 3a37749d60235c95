// The growth decision (functions/usage/growth-decision.ts), table-driven: db/pg's `data` template (3 replicas, Git and
// live at 10Gi unless a case says) with its replicas' usage, the target's policy and guardrails.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GuardrailsConfig, PriceConfig } from '../../functions/domain/config.ts';
import type { GrowthPolicy } from '../../functions/domain/usage-config.ts';
import type { ClaimUsage, GrowthDecision } from '../../functions/domain/volume-usage.ts';
import type { ToolAnnotation } from '../../functions/domain/desired-state.ts';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { decideGrowth } from '../../functions/usage/growth-decision.ts';
import { markModificationWindows } from '../../functions/engine/plan/modification-windows.ts';
import { setPolicy } from '../../functions/usage/set-policy.ts';
import { templateUsageOf } from '../../functions/usage/template-usage.ts';
import { desiredSet, desiredTemplate, pgWorld } from '../engine/builders.ts';

const gi = 2 ** 30;
const policy: GrowthPolicy = { usedPercent: 80, step: { percent: 50 }, max: '100Gi', openAtOnce: 5 };

/** Usage of replica `ordinal` of db/pg's data template: used GiB of a 10Gi file system unless said. */
function used(ordinal: number, usedGi: number, extra: Partial<ClaimUsage> = {}): ClaimUsage {
  return { namespace: 'db', claim: `data-pg-${ordinal}`, usedBytes: usedGi * gi, capacityBytes: 10 * gi, inodesUsed: 1_000, inodes: 655_360, ...extra };
}

interface Case {
  name: string;
  usage: ClaimUsage[];
  policy?: Partial<GrowthPolicy>;
  git?: string;
  live?: string;
  pvcs?: Parameters<typeof pgWorld>[0];
  guardrails?: GuardrailsConfig;
  prices?: PriceConfig;
  annotations?: ToolAnnotation[];
  /** The maximum, in bytes, the driver of the template's class stated (issue 35). */
  driverMaximum?: bigint;
  expect: Partial<Extract<GrowthDecision, { action: 'grow' }>> & { action?: 'grow' } | { action: 'none'; code: string; sentence?: RegExp };
}

function decide(c: Case): GrowthDecision {
  const world = pgWorld(c.pvcs ?? {}, { size: c.live ?? c.git ?? '10Gi' });
  world.storageClasses = world.storageClasses.map((k) => ({ ...k, provisioner: 'hostpath.csi.k8s.io' }));
  const driverMaxima = new Map(c.driverMaximum === undefined ? [] : [['hostpath.csi.k8s.io', {
    driver: 'hostpath.csi.k8s.io', bytes: String(c.driverMaximum), saidAt: '2026-11-25T20:51:14.000Z', claim: 'db/data-pg-0',
    words: `failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 21474836480 exceeds maximum allowed ${c.driverMaximum}`,
  }]]);
  const sets = [desiredSet({ templates: [desiredTemplate({ size: c.git ?? '10Gi' })], ...(c.annotations ? { toolAnnotations: c.annotations } : {}) })];
  const [sts] = planTarget(sets, world, { allowedNamespaces: ['db'], ...(c.guardrails ? { guardrails: c.guardrails } : {}), ...(c.prices ? { prices: c.prices } : {}) });
  const template = sts?.templates[0];
  assert.ok(sts && template);
  const claims = new Map(c.usage.map((u) => [`${u.namespace}/${u.claim}`, u]));
  return decideGrowth(sts, template, templateUsageOf(sts, template, claims), setPolicy({ ...policy, ...c.policy }, c.annotations), { guardrails: c.guardrails, prices: c.prices, driverMaxima });
}

const cases: Case[] = [
  {
    name: 'a replica 85% full is proposed one step of 50%: 10Gi -> 15Gi, with each replica\'s share after',
    usage: [used(0, 8.5), used(1, 4), used(2, 2)],
    expect: { action: 'grow', from: '10Gi', to: '15Gi', because: { claim: 'data-pg-0', ordinal: 0, cause: 'bytes', value: 85 }, cuts: [], sentence: 'propose 15Gi (from 10Gi), because data-pg-0 is 85% full (8.5Gi of 10Gi; growth from 80%)' },
  },
  {
    name: 'the fullest replica decides how many steps: 99% full with 1Gi steps needs 13Gi to be under 80%; every replica over the threshold is a reason',
    usage: [used(0, 8.2), used(1, 9.9)], policy: { step: { size: '1Gi' } },
    expect: {
      action: 'grow', to: '13Gi', because: { claim: 'data-pg-1', ordinal: 1, cause: 'bytes', value: 99 },
      triggers: [{ claim: 'data-pg-0', ordinal: 0, cause: 'bytes', value: 82 }, { claim: 'data-pg-1', ordinal: 1, cause: 'bytes', value: 99 }],
    },
  },
  {
    name: 'inodes count as much as bytes: 40% of the bytes but 92% of the inodes',
    usage: [used(0, 4, { inodesUsed: 602_931 })],
    expect: { action: 'grow', to: '15Gi', because: { claim: 'data-pg-0', ordinal: 0, cause: 'inodes', value: (602_931 / 655_360) * 100 } },
  },
  {
    name: 'a replica filling within fullWithin at its pace is proposed enough to last beyond it',
    usage: [used(0, 6, { bytesPerDay: 1 * gi })], policy: { fullWithinSeconds: 7 * 86_400 },
    expect: { action: 'grow', to: '15Gi', because: { claim: 'data-pg-0', ordinal: 0, cause: 'fills-soon', value: 4 }, sentence: 'propose 15Gi (from 10Gi), because data-pg-0 fills in 4 days at the last day\'s pace (1Gi a day; growth when it fills within 7 days)' },
  },
  {
    name: 'a replica below the threshold and filling slowly gets none, saying how full the fullest is',
    usage: [used(0, 6, { bytesPerDay: 0.1 * gi }), used(1, 3)], policy: { fullWithinSeconds: 7 * 86_400 },
    expect: { action: 'none', code: 'below-threshold', sentence: /^no growth: the fullest replica, data-pg-0, is 60% full, fills in 40 days \(growth from 80% or when it fills within 7 days\)$/ },
  },
  {
    name: 'a percentage step is rounded up to whole Gi: 10% of 15Gi is 2Gi',
    usage: [used(0, 12.5, { capacityBytes: 15 * gi })], git: '15Gi', pvcs: { 0: { request: '15Gi' }, 1: { request: '15Gi' }, 2: { request: '15Gi' } }, policy: { step: { percent: 10 } },
    expect: { action: 'grow', to: '17Gi' },
  },
  {
    name: 'a step never under 1Gi: 1% of 10Gi is 1Gi',
    usage: [used(0, 8.1)], policy: { step: { percent: 1 } },
    expect: { action: 'grow', to: '11Gi' },
  },
  {
    name: 'a size in decimal units grows to whole Gi: 10G + 50% is 15Gi',
    usage: [used(0, 8.5)], git: '10G', live: '10G', pvcs: { 0: { request: '10G' }, 1: { request: '10G' }, 2: { request: '10G' } },
    expect: { action: 'grow', from: '10G', to: '15Gi' },
  },
  {
    name: 'max cuts the step and says so',
    usage: [used(0, 9)], policy: { max: '12Gi' },
    expect: { action: 'grow', to: '12Gi', cuts: [{ limit: 'max', setBy: 'growth.max on the target', wanted: '15Gi', allowed: '12Gi' }] },
  },
  {
    name: 'at max, none',
    usage: [used(0, 9)], policy: { max: '10Gi' },
    expect: { action: 'none', code: 'at-max', sentence: /but 10Gi is already at 10Gi, the largest growth proposes \(growth\.max on the target\)$/ },
  },
  {
    name: 'guardrails.maxSize cuts the step as far as it allows',
    usage: [used(0, 9)], guardrails: { maxSize: '13Gi' },
    expect: { action: 'grow', to: '13Gi', cuts: [{ limit: 'maxSize', setBy: 'guardrails.maxSize on the target', wanted: '15Gi', allowed: '13Gi' }] },
  },
  {
    name: 'the growth factor cuts the step (1.2x of 10Gi is 12Gi)',
    usage: [used(0, 9)], guardrails: { maxGrowthFactor: 1.2 },
    expect: { action: 'grow', to: '12Gi', cuts: [{ limit: 'maxGrowthFactor', setBy: 'guardrails.maxGrowthFactor on the target', wanted: '15Gi', allowed: '12Gi' }] },
  },
  {
    name: 'the monthly cost cuts the step to the largest size within it (3 replicas x 3Gi x 0.1 = 0.90 a month)',
    usage: [used(0, 9)], guardrails: { maxMonthlyIncrease: 1 }, prices: { currency: 'USD', perGiBMonth: { standard: 0.1 } },
    expect: { action: 'grow', to: '13Gi', monthlyIncrease: { amount: 0.9, currency: 'USD' }, cuts: [{ limit: 'maxMonthlyIncrease', setBy: 'guardrails.maxMonthlyIncrease on the target', wanted: '15Gi', allowed: '13Gi' }] },
  },
  {
    name: 'at a guardrail, none, in the guardrail\'s own words',
    usage: [used(0, 9)], guardrails: { maxSize: '10Gi' },
    expect: { action: 'none', code: 'at-guardrail', sentence: /but 10Gi is at the limit: 15Gi is above the largest size allowed, 10Gi \(guardrails\.maxSize, set on the target\)/ },
  },
  {
    name: 'a cost limit without the class\'s price: none, as the guardrail fails closed',
    usage: [used(0, 9)], guardrails: { maxMonthlyIncrease: 1 }, prices: { currency: 'USD', perGiBMonth: { gp3: 0.08 } },
    expect: { action: 'none', code: 'guardrail-unknown', sentence: /StorageClass standard has no price in prices\.perGiBMonth/ },
  },
  {
    name: 'growth turned off by the set\'s annotation, where it is written',
    usage: [used(0, 9)], annotations: [{ name: 'sts-volume-gitops.io/growth', value: 'off', location: { path: 'k8s/db/pg.yaml', line: 6, column: 34 } }],
    expect: { action: 'none', code: 'growth-off', sentence: /^no growth: growth is off for this StatefulSet \(sts-volume-gitops\.io\/growth at k8s\/db\/pg\.yaml:6\)$/ },
  },
  {
    name: 'the set\'s own threshold and step (annotations) over the target\'s',
    usage: [used(0, 8.5)], annotations: [
      { name: 'sts-volume-gitops.io/growth-used-percent', value: '90', location: { path: 'k8s/db/pg.yaml', line: 6, column: 1 } },
    ],
    expect: { action: 'none', code: 'below-threshold' },
  },
  {
    name: 'a change under way in Git waits',
    usage: [used(0, 9)], git: '20Gi', live: '10Gi',
    expect: { action: 'none', code: 'change-under-way', sentence: /a change to 20Gi is under way/ },
  },
  {
    name: 'a volume still expanding waits',
    usage: [used(0, 9)], pvcs: { 0: { request: '10Gi', capacity: '8Gi' } },
    expect: { action: 'none', code: 'change-under-way', sentence: /data-pg-0 is still expanding to 10Gi/ },
  },
  {
    name: 'a blocked change (Git below the live size) is no place for growth: the write-back decision speaks for it',
    usage: [used(0, 9)], git: '5Gi', live: '10Gi',
    expect: { action: 'none', code: 'blocked' },
  },
  {
    name: 'no replica with series (no pod running): none, naming the claims',
    usage: [],
    expect: { action: 'none', code: 'no-usage', sentence: /\(data-pg-0, data-pg-1, data-pg-2\)/ },
  },
  // Issue 35: never a size above what the template's driver stated it provides.
  {
    name: 'a driver that stated a 12Gi maximum cuts 15Gi to 12Gi, quoting it',
    usage: [used(0, 8.5)], driverMaximum: 12n * BigInt(gi),
    expect: { action: 'grow', to: '12Gi', cuts: [{ limit: 'driverMaximum', setBy: 'the driver\'s maximum (hostpath.csi.k8s.io said at 2026-11-25T20:51:14.000Z, "failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 21474836480 exceeds maximum allowed 12884901888")', wanted: '15Gi', allowed: '12Gi' }] },
  },
  {
    name: 'at the driver\'s maximum, no growth: no larger size can succeed on it',
    usage: [used(0, 9.5)], driverMaximum: 10n * BigInt(gi),
    expect: { action: 'none', code: 'at-driver-maximum', sentence: /^no growth: data-pg-0 is 95% full .*, but 10Gi is at the driver's maximum, 10Gi \(hostpath\.csi\.k8s\.io said at .*\): no larger size can succeed on this driver$/ },
  },
  {
    name: 'a maximum of a size between whole Gi allows the whole Gi under it',
    usage: [used(0, 8.5)], driverMaximum: 13n * BigInt(gi) - 1n,
    expect: { action: 'grow', to: '12Gi' },
  },
];

describe('the growth decision for a template', () => {
  for (const c of cases) {
    it(c.name, () => {
      const decision = decide(c);
      const { expect } = c;
      if (expect.action === 'none' && 'code' in expect) {
        assert.equal(decision.action, 'none', decision.sentence);
        if (decision.action !== 'none') return;
        assert.equal(decision.code, expect.code, decision.sentence);
        if (expect.sentence) assert.match(decision.sentence, expect.sentence);
        return;
      }
      assert.equal(decision.action, 'grow', decision.sentence);
      if (decision.action !== 'grow') return;
      for (const [key, value] of Object.entries(expect)) assert.deepEqual(decision[key as keyof typeof decision], value, `${key}: ${decision.sentence}`);
      assert.deepEqual({ namespace: decision.namespace, statefulSet: decision.statefulSet, template: decision.template }, { namespace: 'db', statefulSet: 'pg', template: 'data' });
    });
  }

  describe("a replica's volume within its driver's modification window (EBS: 4 per 24h, none while one is under way)", () => {
    const at = (hours: number): Date => new Date(Date.parse('2026-11-28T08:00:00Z') + hours * 3_600_000);
    const decideAt = (world: ReturnType<typeof pgWorld>, hours: number): GrowthDecision => {
      world.storageClasses = world.storageClasses.map((c) => ({ ...c, provisioner: 'ebs.csi.aws.com' }));
      const plans = planTarget([desiredSet({ templates: [desiredTemplate({ size: '10Gi' })] })], world, { allowedNamespaces: ['db'] });
      markModificationWindows(plans, world, at(hours));
      const [sts] = plans;
      const template = sts?.templates[0];
      assert.ok(sts && template);
      const claims = new Map([used(0, 8.5), used(1, 4)].map((u) => [`${u.namespace}/${u.claim}`, u]));
      return decideGrowth(sts, template, templateUsageOf(sts, template, claims), setPolicy(policy, undefined), { guardrails: undefined, prices: undefined });
    };
    const sentence = (decision: GrowthDecision): unknown => (decision.action === 'none' ? [decision.code, decision.sentence] : decision);

    it('proposes none while a volume has had its four modifications within 24 hours, until the oldest leaves them, and does after', () => {
      // This tool patched data-pg-1 at 08:00, 09:00, 10:00 and 11:00 (the status annotation's record, oldest first).
      const status = [{ templateName: 'data', desiredSize: '10Gi', commitSha: 'c0', replicas: 3, readyReplicas: 3, volumesModifiedAt: { 'data-pg-1': [0, 1, 2, 3].map((h) => at(h).toISOString()) } }];
      const world = () => pgWorld({}, { annotations: { 'sts-volume-gitops.io/volume-claim-templates': JSON.stringify(status) } });
      assert.deepEqual(sentence(decideAt(world(), 12)), ['driver-window',
        "no growth: data-pg-1 was modified 4 times within the last 24h, and ebs.csi.aws.com accepts 4 modifications per volume within any 24h, and none while one is under way; growth waits for the driver's window, until 2026-11-29T08:00:00Z"]);
      assert.equal(decideAt(world(), 24.1).action, 'grow', 'at 08:06 the next day three modifications are left within the 24h');
    });

    it('proposes none while a modification is under way, saying no time is known, and does once it completed', () => {
      // data-pg-1 is resizing since 08:00 (the resizer's Resizing condition): the backend takes no other until it completes.
      const resizing = { type: 'Resizing', status: 'True', reason: undefined, message: undefined, lastTransitionTime: at(0).toISOString() };
      assert.deepEqual(sentence(decideAt(pgWorld({ 1: { conditions: [resizing] } }), 30)), ['driver-window',
        "no growth: data-pg-1 has a modification under way, and ebs.csi.aws.com accepts 4 modifications per volume within any 24h, and none while one is under way; growth waits for the driver's window, until the modification under way completes, a time not known yet"]);
      assert.equal(decideAt(pgWorld(), 30).action, 'grow');
    });
  });

  it('says each replica\'s share after the growth (the evidence: 85% -> 57%)', () => {
    const decision = decide({ name: '', usage: [used(0, 8.5), used(1, 4)], expect: { action: 'grow' } });
    assert.ok(decision.action === 'grow');
    assert.deepEqual(decision.after.map((a) => [a.claim, Math.round(a.usedPercent)]), [['data-pg-0', 57], ['data-pg-1', 27]]);
    assert.deepEqual(decision.storageLocation, { path: 'k8s/db/pg.yaml', line: 30, column: 22 });
  });
});
