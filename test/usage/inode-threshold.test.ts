// How full a volume's inodes must be for the pass to read them (pure): the lowest growth threshold in play, from the
// target and the sets' annotations in Git; every claim's when sets take their annotations from the live objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ToolAnnotation } from '../../functions/domain/desired-state.ts';
import type { GrowthPolicy } from '../../functions/domain/usage-config.ts';
import { inodeThreshold } from '../../functions/usage/inode-threshold.ts';

const target: GrowthPolicy = { usedPercent: 85, step: { percent: 50 }, max: '100Gi', openAtOnce: 5 };
const annotated = (annotations: Record<string, unknown>): { toolAnnotations: ToolAnnotation[] } => ({
  toolAnnotations: Object.entries(annotations).map(([name, value], line) => ({ name: `sts-volume-gitops.io/${name}`, value, location: { path: 'k8s/a.yaml', line: line + 5 } }) as ToolAnnotation),
});

describe('the inode threshold a pass reads from', () => {
  it('is the target\'s when no set says otherwise', () => {
    assert.equal(inodeThreshold(target, { statefulSets: [{}, annotated({ 'growth-step': '10Gi' })], liveAnnotated: false }), 85);
  });

  it('is the lowest of a set\'s growth-used-percent and the target\'s, whichever is lower', () => {
    assert.equal(inodeThreshold(target, { statefulSets: [{}, annotated({ 'growth-used-percent': '70' }), annotated({ 'growth-used-percent': '75%' })], liveAnnotated: false }), 70);
    assert.equal(inodeThreshold(target, { statefulSets: [annotated({ 'growth-used-percent': '95' })], liveAnnotated: false }), 85);
  });

  it('ignores the percentage of a set with growth off or a policy in error (held to the target\'s threshold)', () => {
    assert.equal(inodeThreshold(target, { statefulSets: [annotated({ growth: 'off', 'growth-used-percent': '10' }), annotated({ 'growth-used-percent': '20', 'growth-step': 'lots' })], liveAnnotated: false }), 85);
  });

  it('is growth\'s default (80%) where growth is not configured', () => {
    assert.equal(inodeThreshold(undefined, { statefulSets: [annotated({ 'growth-used-percent': '10' })], liveAnnotated: true }), 80);
  });

  it('asks for every claim\'s inodes when size sources add sets whose annotations are read from the cluster later', () => {
    assert.equal(inodeThreshold(target, { statefulSets: [], liveAnnotated: true }), undefined);
  });
});
