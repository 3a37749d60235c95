// The one StatefulSet manifest builder the tests share: a single-template apps/v1 StatefulSet, each part replaceable by
// YAML text (the hostile cases put bombs and oddities in every position), in the flow style the examples use.

export interface ManifestParts {
  name?: string;
  /** `null` leaves the namespace out (the target's default applies). */
  namespace?: string | null;
  storage?: string;
  storageClass?: string;
  accessMode?: string;
  apiVersion?: string;
  replicas?: string | number;
  /** The StatefulSet's own labels (left out when not given). */
  labels?: string;
  annotations?: string;
  /** Extra lines inside the volumeClaimTemplate's metadata (indented by the builder). */
  templateMetadata?: string;
  /** More volumeClaimTemplates, as YAML list items indented by four spaces. */
  extraTemplates?: string;
  /** A comment line above the document. */
  heading?: string;
  /** A comment after the storage value on its line (recovery edits must keep it). */
  storageComment?: string;
  /** The template's volumeAttributesClassName (KEP-3751), written as given (quotes and comments included). */
  volumeAttributesClass?: string;
}

export function statefulSetManifest(parts: ManifestParts = {}): string {
  const name = parts.name ?? 'pg';
  const namespace = parts.namespace === null ? '' : `\n  namespace: ${parts.namespace ?? 'db'}`;
  const labels = parts.labels === undefined ? '' : `\n  labels: ${parts.labels}`;
  const annotations = parts.annotations === undefined ? '' : `\n  annotations: ${parts.annotations}`;
  return `${parts.heading === undefined ? '' : `# ${parts.heading}\n`}apiVersion: ${parts.apiVersion ?? 'apps/v1'}
kind: StatefulSet
metadata:
  name: ${name}${namespace}${labels}${annotations}
spec:
  serviceName: ${name}
  replicas: ${parts.replicas ?? 2}
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
      containers: [{ name: main, image: "busybox:1.36" }]
  volumeClaimTemplates:
    - metadata:
        name: data${parts.templateMetadata === undefined ? '' : `\n        ${parts.templateMetadata}`}
      spec:
        accessModes: [${parts.accessMode ?? 'ReadWriteOnce'}]
        storageClassName: ${parts.storageClass ?? 'standard'}${parts.volumeAttributesClass === undefined ? '' : `\n        volumeAttributesClassName: ${parts.volumeAttributesClass}`}
        resources:
          requests:
            storage: ${parts.storage ?? '20Gi'}${parts.storageComment === undefined ? '' : `  # ${parts.storageComment}`}
${parts.extraTemplates ?? ''}`;
}
