// What travels on the target queue: one message names one target and what to do with it. A message is only a key:
// the worker re-reads the configuration, the Git source and the cluster (level-triggered), so a lost, late or
// duplicated message changes nothing but timing. Pure: the SQS fields are derived here, sent by the adapter.
import { createHash } from 'node:crypto';
import type { Config, TargetConfig } from '../domain/config.ts';
import { clusterKey } from '../domain/cluster-key.ts';

/** `pass`: reconcile (apply) and publish feedback; `validate`: check pull requests only (reads and dry runs). */
export type TargetAction = 'pass' | 'validate';

export interface TargetMessage {
  target: string;
  action: TargetAction;
  /** Why it was sent: `schedule`, `manual` (the dispatcher invoked by hand), or the GitHub event that asked for it (`pull_request`, `push`, `merge_group`, `check_run`, `check_suite`). */
  trigger: string;
  /** A merge queue's merge commit to check (`validate` only): its changes from `baseSha` are planned, not the open PRs. */
  mergeGroup?: MergeGroupRef;
  /** The one pull request a `validate` from its own event checks (the schedule checks them all). */
  pullRequest?: number;
  /** Someone asked for this tool's checks on a commit again (a check's Re-run): they are written anew, even unchanged. */
  rerun?: RerunRef;
}

/** The commit whose check runs were asked for again, and the one run (all of this tool's on the commit when absent). */
export interface RerunRef {
  sha: string;
  check?: string;
}

export interface MergeGroupRef {
  headSha: string;
  baseSha: string;
}

/** The SQS FIFO fields of one message. */
export interface QueuedTargetMessage {
  body: TargetMessage;
  /** The cluster: two passes never run on one cluster at once. */
  groupId: string;
  /** Within SQS's five-minute window, the same target and slot (or the same commit) is queued once. */
  deduplicationId: string;
}

export class TargetMessageError extends Error {
  constructor(reason: string) {
    super(`not a target message: ${reason}`);
    this.name = 'TargetMessageError';
  }
}

/** SQS allows 128 characters of alphanumerics and punctuation in both ids; longer or other keys are hashed. */
function sqsId(key: string): string {
  return key.length <= 128 && /^[\x21-\x7e]+$/.test(key) ? key : createHash('sha256').update(key).digest('hex');
}

export function queuedMessage(target: TargetConfig, body: TargetMessage, deduplicationKey: string): QueuedTargetMessage {
  return { body, groupId: sqsId(clusterKey(target)), deduplicationId: sqsId(`${body.target}/${body.action}/${deduplicationKey}`) };
}

/** The scheduled fan-out: one `pass` per target, deduplicated per time slot of `slotMs` (the schedule's rate). */
export function scheduledMessages(config: Config, nowMs: number, slotMs: number): QueuedTargetMessage[] {
  if (!(slotMs > 0)) throw new Error(`the time slot must be a positive number of milliseconds, got ${slotMs}`);
  const slot = Math.floor(nowMs / slotMs);
  return config.targets.map((target) => queuedMessage(target, { target: target.name, action: 'pass', trigger: 'schedule' }, `slot-${slot}`));
}

/**
 * A fan-out someone asked for (`aws lambda invoke` of the dispatcher): one `pass` per target, deduplicated per
 * invocation. Deduplicated per slot instead, it would share the ids of the slot's scheduled messages, and SQS would drop
 * it as their duplicate for five minutes: no pass would run "now". A retry of the same invocation keeps its id.
 */
export function requestedMessages(config: Config, invocationId: string): QueuedTargetMessage[] {
  return config.targets.map((target) => queuedMessage(target, { target: target.name, action: 'pass', trigger: 'manual' }, `invocation-${invocationId}`));
}

export function parseTargetMessage(text: string): TargetMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TargetMessageError(`the body is not JSON (${(error as Error).message})`);
  }
  const message = value as Partial<TargetMessage> | null;
  if (typeof message !== 'object' || message === null) throw new TargetMessageError('the body is not an object');
  if (typeof message.target !== 'string' || message.target === '') throw new TargetMessageError('"target" must be a target name');
  if (message.action !== 'pass' && message.action !== 'validate') throw new TargetMessageError(`"action" must be pass or validate, got ${JSON.stringify(message.action)}`);
  const trigger = typeof message.trigger === 'string' ? message.trigger : 'unknown';
  if (message.pullRequest !== undefined && (!Number.isInteger(message.pullRequest) || message.pullRequest < 1)) {
    throw new TargetMessageError(`"pullRequest" must be a pull request number, got ${JSON.stringify(message.pullRequest)}`);
  }
  const rerun = message.rerun === undefined ? undefined : parseRerun(message.rerun);
  if (message.mergeGroup === undefined) {
    return {
      target: message.target, action: message.action, trigger,
      ...(message.pullRequest !== undefined ? { pullRequest: message.pullRequest } : {}), ...(rerun ? { rerun } : {}),
    };
  }
  if (rerun) throw new TargetMessageError('"rerun" does not go with "mergeGroup": a merge queue commit is checked from merge_group alone');
  const group = message.mergeGroup as Partial<MergeGroupRef> | null;
  const isSha = (value: unknown): value is string => typeof value === 'string' && /^[0-9a-f]{40}$/.test(value);
  if (typeof group !== 'object' || group === null || !isSha(group.headSha) || !isSha(group.baseSha)) {
    throw new TargetMessageError('"mergeGroup" must be { headSha, baseSha } with 40-hex commit SHAs');
  }
  if (message.action !== 'validate') throw new TargetMessageError('"mergeGroup" goes with the validate action only');
  // Only GitHub's signed merge_group delivery names a queue's commits (app/merge-queue-webhooks.ts).
  if (trigger !== 'merge_group') throw new TargetMessageError('"mergeGroup" comes from a merge_group delivery only (trigger merge_group)');
  return { target: message.target, action: message.action, trigger, mergeGroup: { headSha: group.headSha, baseSha: group.baseSha } };
}

function parseRerun(value: unknown): RerunRef {
  const rerun = value as Partial<RerunRef> | null;
  if (typeof rerun !== 'object' || rerun === null || typeof rerun.sha !== 'string' || !/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(rerun.sha)) {
    throw new TargetMessageError('"rerun" must be { sha, check? } with a commit SHA');
  }
  if (rerun.check !== undefined && (typeof rerun.check !== 'string' || rerun.check === '')) throw new TargetMessageError('"rerun.check" must be a check run\'s name');
  return { sha: rerun.sha, ...(rerun.check !== undefined ? { check: rerun.check } : {}) };
}
