// The PromQL a pass sends, and nothing else: one query per metric family, filtered by the namespaces in play and
// collapsed to one sample per claim, so a pass asks the same five questions at ten volumes or ten thousand. Pure.
// `max by (namespace, persistentvolumeclaim)` drops the labels a scrape adds (instance, job, node, metrics_path: see
// ../shared/conformance/prometheus/real-kubelet/) and keeps one series per claim when a volume was reported by two
// kubelets (a pod moved) or two Prometheus replicas. The two inode queries ask only for the claims whose inodes are at
// least as full as the lowest growth threshold in play (inodeThreshold in inode-threshold.ts): below it a replica's
// inodes are the cause of nothing, and most of a pass's answer bytes were theirs.

/** The kubelet's volume statistics (pkg/kubelet/metrics/collectors/volume_stats.go), labels namespace and persistentvolumeclaim. */
export const volumeStatsFamilies = {
  usedBytes: 'kubelet_volume_stats_used_bytes',
  capacityBytes: 'kubelet_volume_stats_capacity_bytes',
  inodesUsed: 'kubelet_volume_stats_inodes_used',
  inodes: 'kubelet_volume_stats_inodes',
} as const;

export type VolumeStatsFamily = keyof typeof volumeStatsFamilies;

/** What the pace of a volume is measured over: the last day (deriv, a least-squares slope, so a spike weighs little). */
export const paceWindow = '1d';

/** One query of the pass: what it reads and its PromQL. */
export interface VolumeStatsQuery {
  reads: VolumeStatsFamily | 'bytesPerSecond';
  promql: string;
}

/** The labels a claim's series is keyed by, as the kubelet writes them. */
export const claimLabels = ['namespace', 'persistentvolumeclaim'] as const;

/**
 * `namespace=~"db|cache"`. Prometheus anchors the regex; namespace names are DNS labels (no regex metacharacters), and
 * anything else is escaped all the same.
 */
export function namespaceMatcher(namespaces: readonly string[]): string {
  const alternatives = [...new Set(namespaces)].sort().map((ns) => ns.replace(/[.*+?^${}()|[\]\\"]/g, '\\\\$&'));
  return `namespace=~"${alternatives.join('|')}"`;
}

/**
 * The five queries of a pass over these namespaces, in the order they are sent. The inode families are asked only for
 * the claims whose inodes are `inodesFromPercent` full or more (undefined: every claim's). The share is computed as
 * template-usage.ts computes a replica's (used / total * 100, the same float64 operations), so a claim the query keeps
 * is exactly one whose `inodesPercent` reaches the threshold.
 */
export function volumeStatsQueries(namespaces: readonly string[], inodesFromPercent: number | undefined): VolumeStatsQuery[] {
  const selector = (family: string): string => `${family}{${namespaceMatcher(namespaces)}}`;
  const perClaim = (inner: string): string => `max by (${claimLabels.join(', ')}) (${inner})`;
  const inodesFull = inodesFromPercent === undefined ? ''
    : ` and on (${claimLabels.join(', ')}) (${perClaim(selector(volumeStatsFamilies.inodesUsed))} / ${perClaim(selector(volumeStatsFamilies.inodes))} * 100 >= ${promqlNumber(inodesFromPercent)})`;
  const only = (reads: VolumeStatsFamily): string => (reads === 'inodesUsed' || reads === 'inodes' ? inodesFull : '');
  return [
    ...(Object.entries(volumeStatsFamilies) as Array<[VolumeStatsFamily, string]>).map(([reads, family]) => ({ reads, promql: perClaim(selector(family)) + only(reads) })),
    { reads: 'bytesPerSecond', promql: perClaim(`deriv(${selector(volumeStatsFamilies.usedBytes)}[${paceWindow}])`) },
  ];
}

/** A threshold as a PromQL number literal (a percentage above 0 and at most 100, checked where it is configured). */
function promqlNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`an inode threshold must be a finite number, not ${value}`);
  return String(value);
}

/**
 * Labels a scrape may have put the kubelet's namespace under: `exported_namespace` when the scrape's own `namespace`
 * won (no honor_labels), or a relabelling's name.
 */
export const relabelledNamespaceLabels = ['exported_namespace', 'kubernetes_namespace', 'k8s_namespace', 'namespace_name'] as const;

/**
 * What `check` asks when claims have no series, to say why (three queries, whatever the number of series): a few of
 * the used-bytes series anywhere with all their labels (relabelled claim or namespace labels show there), the
 * namespaces that have series under `namespace` and the labels a scrape may have moved it to, and the metric names
 * that look like the kubelet's (a prefix, a recording rule or a renamed family).
 */
export const diagnosisQueries = {
  sampleSeries: `topk(3, ${volumeStatsFamilies.usedBytes})`,
  namespaces: `group by (${[claimLabels[0], ...relabelledNamespaceLabels].join(', ')}) (${volumeStatsFamilies.usedBytes})`,
  metricNames: 'group by (__name__) ({__name__=~".*volume_stats.*"})',
} as const;
