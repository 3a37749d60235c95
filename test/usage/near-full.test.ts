// Volumes near full (pure): a replica's bytes or inodes at or above the threshold it is held to, counted per volume.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReplicaUsage, TemplateUsage } from '../../functions/domain/volume-usage.ts';
import { volumesNearFull } from '../../functions/usage/near-full.ts';

const replica = (claim: string, usedPercent: number, inodesPercent?: number): ReplicaUsage => ({
  claim, ordinal: Number(claim.slice(-1)), usedBytes: usedPercent, capacityBytes: 100, usedPercent, ...(inodesPercent !== undefined ? { inodesPercent } : {}),
});
const template = (statefulSet: string, replicas: ReplicaUsage[]): TemplateUsage => ({ namespace: 'db', statefulSet, template: 'data', replicas, unread: [] });

describe('volumesNearFull', () => {
  it('counts each volume whose bytes or inodes reach its own threshold, at the threshold too', () => {
    assert.equal(volumesNearFull([
      { usage: template('pg', [replica('data-pg-0', 80), replica('data-pg-1', 79.9), replica('data-pg-2', 10, 85)]), usedPercent: 80 },
      { usage: template('es', [replica('data-es-0', 85)]), usedPercent: 90 },
      { usage: template('kafka', [replica('data-kafka-0', 60)]), usedPercent: 50 },
    ]), 3, 'pg-0 (bytes at 80), pg-2 (inodes), kafka-0 (its set\'s own 50); not pg-1 nor es-0 (held to 90)');
  });

  it('is 0 without volumes read', () => {
    assert.equal(volumesNearFull([]), 0);
    assert.equal(volumesNearFull([{ usage: { ...template('pg', []), unread: ['data-pg-0'] }, usedPercent: 80 }]), 0);
  });
});
