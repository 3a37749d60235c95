// Plain-data types for the desired state read from Git: what the engine plans from. No I/O here.
import type { SizeSourceConfig } from './config.ts';
import type { Quantity } from './quantity.ts';

/** A place in a file, 1-based, as editors and GitHub line links count. */
export interface SourceLocation {
  path: string;
  line: number;
  column: number;
}

/** A problem tied to a place in the manifests (parse error, schema error, limit breach, duplicate). */
export interface LocatedError extends SourceLocation {
  message: string;
  /** JSON pointer-like path inside the document, e.g. `/spec/volumeClaimTemplates/0/spec/resources`. */
  jsonPath?: string;
}

export type PodManagementPolicy = 'OrderedReady' | 'Parallel';

export interface DesiredTemplate {
  name: string;
  /** `undefined` when the manifest leaves it out: the cluster's default class applies. */
  storageClassName: string | undefined;
  storage: Quantity;
  /** The storage value as written in the file (e.g. `20Gi`, `"20Gi"` unquoted to `20Gi`). */
  storageText: string;
  /** Where the storage scalar sits, for links and for byte-exact edits. */
  storageLocation: SourceLocation;
  /** Byte offsets [start, end) of the storage scalar's source text (quotes included) in the file. */
  storageRange: [number, number];
  /** `spec.volumeAttributesClassName` as written (KEP-3751): may change like the size; undefined when absent. */
  volumeAttributesClassName?: string | undefined;
  /** Where the class scalar sits and its byte range [start, end), for links and the byte-exact edit of a recovery. */
  classLocation?: SourceLocation;
  classRange?: [number, number];
  /** The whole template as written, minus `spec.resources.requests.storage` (for "only storage changed" checks). */
  templateWithoutStorage: Record<string, unknown>;
}

/** An annotation of the tool's own (`sts-volume-gitops.io/...`) on a StatefulSet, as written, with where it is. */
export interface ToolAnnotation {
  name: string;
  /** As read: a string, or whatever the YAML holds (a number left unquoted is not an annotation Kubernetes accepts). */
  value: unknown;
  /** Where it is written in Git; undefined when read from the live object (a set sized by size sources). */
  location: SourceLocation | undefined;
}

export interface DesiredStatefulSet {
  namespace: string;
  name: string;
  replicas: number;
  podManagementPolicy: PodManagementPolicy;
  templates: DesiredTemplate[];
  /** Where the StatefulSet document starts (for a set sized by size sources: where its first mapped value is). */
  location: SourceLocation;
  /**
   * Set when the sizes come from size sources (values files) instead of a manifest: the set is the live object, and
   * `templates` lists only the mapped templates, so the plan compares sizes and nothing else.
   */
  sizedBy?: SizeSourceConfig[];
  /** Its `sts-volume-gitops.io/` annotations (the growth policy a set may set for itself); absent when it has none. */
  toolAnnotations?: ToolAnnotation[];
}

export interface DesiredState {
  statefulSets: DesiredStatefulSet[];
  errors: LocatedError[];
}
