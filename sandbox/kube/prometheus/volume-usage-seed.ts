// The seed's `volumeUsage`: how full each volume is when the sandbox starts and how fast it fills, read with the
// sandbox's own quantity parser.
//   volumeUsage:
//     - { namespace: db, claim: data-pg-0, used: 8.5Gi, perDay: 0.5Gi }
//     - { namespace: db, claim: data-pg-1, used: 4Gi, inodes: 655360, inodesUsed: 600000, inodesPerDay: 100, filesystemOverhead: 0.02 }
import { parseSandboxQuantity, QuantityError, sandboxQuantityValue } from '../quantity.ts';
import { SeedError } from '../seed.ts';
import type { VolumeUsageSeed } from './volume-stats.ts';

type Json = Record<string, unknown>;

function bytes(value: unknown, where: string): bigint {
  if (typeof value !== 'string' && typeof value !== 'number') throw new SeedError(`${where} must be a quantity such as 8.5Gi`);
  try {
    return sandboxQuantityValue(parseSandboxQuantity(value));
  } catch (error) {
    if (error instanceof QuantityError) throw new SeedError(`${where}: ${error.message}`);
    throw error;
  }
}

function count(value: unknown, where: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new SeedError(`${where} must be a whole number of inodes`);
  return BigInt(value);
}

export function readVolumeUsageSeed(seed: unknown): VolumeUsageSeed[] {
  if (typeof seed !== 'object' || seed === null) return [];
  const list = (seed as Json).volumeUsage;
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw new SeedError('volumeUsage must be a list');
  return list.map((raw: unknown, index) => {
    if (typeof raw !== 'object' || raw === null) throw new SeedError(`volumeUsage[${index}] must be a map`);
    const entry = raw as Json;
    const where = `volumeUsage[${index}]`;
    if (typeof entry.namespace !== 'string' || typeof entry.claim !== 'string') throw new SeedError(`${where} needs namespace and claim`);
    const overhead = entry.filesystemOverhead ?? 0;
    if (typeof overhead !== 'number' || overhead < 0 || overhead >= 0.5) throw new SeedError(`${where}.filesystemOverhead must be a fraction below 0.5 (0.02 for 2%)`);
    const inodes = count(entry.inodes, `${where}.inodes`);
    const inodesUsed = count(entry.inodesUsed, `${where}.inodesUsed`);
    const inodesPerDay = count(entry.inodesPerDay, `${where}.inodesPerDay`);
    return {
      namespace: entry.namespace, claim: entry.claim, usedBytes: bytes(entry.used ?? 0, `${where}.used`), bytesPerDay: bytes(entry.perDay ?? 0, `${where}.perDay`),
      overheadPpm: BigInt(Math.round(overhead * 1_000_000)),
      ...(inodes !== undefined ? { inodes } : {}), ...(inodesUsed !== undefined ? { inodesUsed } : {}), ...(inodesPerDay !== undefined ? { inodesPerDay } : {}),
    };
  });
}
