// What one pass is given: the target's settings and the ports it reads and writes through. Its own module so that
// the pass and the record resumption it calls both depend on it, not on each other.
import type { GuardrailsConfig, PriceConfig } from '../domain/config.ts';
import type { SizeSource } from '../domain/size-sources.ts';
import type { ClusterPort, GitSourcePort } from './ports.ts';
import type { PassMode } from './pass-report.ts';
import type { RecreationTiming } from './recreate-statefulset.ts';

export interface PassTarget {
  name: string;
  globs: readonly string[];
  defaultNamespace: string;
  allowedNamespaces: readonly string[];
  /** Sizes mapped from values files (Helm values, Kustomize patches) to StatefulSet templates. */
  sizeSources?: readonly SizeSource[];
  /** Size limits of every template change (engine/guardrails.ts). */
  guardrails?: GuardrailsConfig;
  /** Price per GiB-month per StorageClass, for the cost of a change. */
  prices?: PriceConfig;
}


export interface PassContext {
  target: PassTarget;
  git: GitSourcePort;
  cluster: ClusterPort;
  mode: PassMode;
  /** Who holds the Lease while this pass writes (Lambda request id, hostname+pid). */
  holderIdentity: string;
  leaseDurationSeconds?: number;
  timing: RecreationTiming;
  /** Milliseconds left before the caller must stop; no new StatefulSet is started when it runs short. */
  remainingMs?: () => number;
  /** Timeline of what the pass does, for the CLI and the demo. */
  onEvent?: (line: string) => void;
  now?: () => Date;
  apiConcurrency?: number;
}
