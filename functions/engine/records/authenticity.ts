// Recreation records are ConfigMaps, and anyone who may write a ConfigMap where they are read could write one: a
// record is an instruction to create a StatefulSet, so one this deployment did not write would make the tool create any
// workload its RBAC allows (a privileged pod, a hostPath of `/`). Each record therefore carries an HMAC-SHA256 over
// everything a pass acts on, with a key only the deployment holds, and is checked (pure, here) before any use: a record
// that fails is never acted on. The MAC binds the record to its place (state namespace, ConfigMap name, target), so a
// record cannot be moved to another target or renamed; its name, namespace and uid must agree with the object it restores.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JsonObject, RecreationRecord } from '../../domain/live-state.ts';
import { recreationRecordName } from './names.ts';

/** The HMAC key of a deployment. Never printed: its JSON and string forms say only that it is a key. */
export class RecordKey {
  static readonly minimumLength = 32;
  readonly #bytes: Buffer;

  private constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  /** The key from the text of its secret; `where` names its source in the error (never the value). */
  static fromText(text: string, where: string): RecordKey {
    const trimmed = text.trim();
    if (trimmed.length < RecordKey.minimumLength) {
      throw new Error(`the record key from ${where} is shorter than ${RecordKey.minimumLength} characters; generate one with \`openssl rand -base64 32\``);
    }
    return new RecordKey(Buffer.from(trimmed, 'utf8'));
  }

  mac(text: string): Buffer {
    return createHmac('sha256', this.#bytes).update(text, 'utf8').digest();
  }

  /** Whether `macBase64` is this key's MAC of `text` (compared in constant time). */
  verifies(text: string, macBase64: string): boolean {
    const given = Buffer.from(macBase64, 'base64');
    const wanted = this.mac(text);
    return given.length === wanted.length && timingSafeEqual(given, wanted);
  }

  toJSON(): string {
    return '(record key)';
  }

  toString(): string {
    return '(record key)';
  }
}

const macVersion = 'sts-volume-gitops.io/recreation-record/v1';

/** What the MAC covers: every field a pass reads, and where the record is (a copy elsewhere does not verify). */
export function signedText(record: RecreationRecord): string {
  return JSON.stringify([
    macVersion, record.recordNamespace, record.recordName, record.ownerTarget ?? null, record.namespace,
    record.statefulSetName, record.oldUid, record.updateRevision || null, record.sealedAt ?? null, record.target,
  ]);
}

/** The record with the time and its MAC (base64), as a pass saves it. */
export function sealRecord(record: RecreationRecord, key: RecordKey, now: Date = new Date()): RecreationRecord {
  const sealed = { ...record, sealedAt: now.toISOString() };
  return { ...sealed, mac: key.mac(signedText(sealed)).toString('base64') };
}

/**
 * How old a record may be. A record lives while a pass is between an orphan delete and the create: seconds, or until
 * the next pass after one died. One much older is refused (and reported), so a copy of a genuine record, taken while
 * it existed, cannot bring back a StatefulSet deleted on purpose since.
 */
export const maxRecordAgeMs = 7 * 24 * 3600 * 1000;

/** What a record must agree with to be acted on: this deployment's key and the target's place. */
export interface RecordExpectation {
  key: RecordKey | undefined;
  target: string;
  stateNamespace: string;
  now: Date;
}

/** Why a record is refused (one sentence, no secret in it), or undefined when it may be acted on. */
export function recordRefusal(record: RecreationRecord, expected: RecordExpectation): string | undefined {
  if (record.unreadable !== undefined) return `it cannot be read (${record.unreadable})`;
  if (record.mac === undefined) {
    return 'it carries no MAC: written by a version before records were signed, or by someone other than this deployment';
  }
  if (expected.key === undefined) return 'no record key is configured (targets[].recordKey), so it cannot be authenticated';
  if (!expected.key.verifies(signedText(record), record.mac)) {
    return 'its MAC does not verify: it was not written by this deployment (or was changed since), or the record key was changed';
  }
  // Authentic; still, every claim must agree with the others (a record of ours is consistent by construction).
  if (record.ownerTarget !== expected.target || record.recordNamespace !== expected.stateNamespace) {
    return `it belongs to target ${record.ownerTarget ?? '(none)'} in namespace ${record.recordNamespace}, not to target ${expected.target} in ${expected.stateNamespace}`;
  }
  if (record.recordName !== recreationRecordName(expected.target, record.namespace, record.statefulSetName)) {
    return `its name is not the one this target gives the record of ${record.namespace}/${record.statefulSetName}`;
  }
  const sealedAt = Date.parse(record.sealedAt ?? '');
  if (Number.isNaN(sealedAt) || expected.now.getTime() - sealedAt > maxRecordAgeMs) {
    return `it was sealed at ${record.sealedAt ?? '(no time)'}, more than ${maxRecordAgeMs / 86_400_000} days ago: a record lives minutes, and an old one may be a copy replayed`;
  }
  return objectMismatch(record);
}

/** The object a record creates must be the StatefulSet it names, with no identity of its own (uid, resourceVersion). */
function objectMismatch(record: RecreationRecord): string | undefined {
  const target = record.target;
  const metadata = (target.metadata ?? {}) as JsonObject;
  // A LIST's items carry no apiVersion and kind; the create goes to the StatefulSet endpoint whatever they say.
  if ((target.apiVersion ?? 'apps/v1') !== 'apps/v1' || (target.kind ?? 'StatefulSet') !== 'StatefulSet') {
    return 'the object it would create is not an apps/v1 StatefulSet';
  }
  if (metadata.namespace !== record.namespace || metadata.name !== record.statefulSetName) {
    return `the object it would create is not ${record.namespace}/${record.statefulSetName}`;
  }
  if (metadata.uid !== undefined || metadata.resourceVersion !== undefined) return 'the object it would create carries a uid or resourceVersion';
  if (record.oldUid === '') return 'it names no uid of the StatefulSet it replaces';
  return undefined;
}
