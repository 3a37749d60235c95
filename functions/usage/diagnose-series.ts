// Why Prometheus answers but has no series for a target's claims, from what check's diagnosis queries found (pure):
// the kubelet's labels relabelled away (the claim under `pvc`), its namespace label lost to the scrape's own (kept as
// `exported_namespace`), the claims in another namespace than the one named, a renamed or prefixed metric family, a
// family dropped, or no kubelet scraped at all. Each said with the one probably meant, and the relabelling that fixes it.
import { closestName } from '../domain/similar-names.ts';
import { claimLabels, relabelledNamespaceLabels, volumeStatsFamilies } from './volume-stats-queries.ts';
import type { VectorSample } from './prometheus-api.ts';

export interface SeriesFound {
  /** A few used-bytes series anywhere, with all their labels (`topk(3, ...)`). */
  sampleSeries: readonly VectorSample[];
  /** The used-bytes series' distinct namespace labels: `namespace` and the names a scrape may have moved it to. */
  namespaceLabels: ReadonlyArray<Record<string, string>>;
  /** Metric names that look like the kubelet's volume statistics. */
  metricNames: readonly string[];
}

export interface Diagnosis {
  message: string;
  fix: string;
}

/** Labels a scrape's relabelling may have put the claim under. */
const relabelledClaim = ['pvc', 'claim', 'persistentvolumeclaim_name', 'exported_persistentvolumeclaim', 'kubernetes_pvc_name'];

const ownLabels = `the tool reads the kubelet's own labels, ${claimLabels.join(' and ')}`;
const honorLabels = 'honor the kubelet\'s labels in its scrape: honor_labels: true (kube-prometheus-stack: the kubelet ServiceMonitor\'s honorLabels: true), so namespace is the volume\'s';

/** The rule that puts a label back under the kubelet's name, or honors the labels when the scrape renamed it on a collision. */
function labelFix(wanted: string, instead: string | undefined): string {
  if (instead === `exported_${wanted}`) return honorLabels;
  if (instead === undefined) return `${ownLabels}: keep them in the scrape's relabelling (kube-prometheus-stack's kubelet ServiceMonitor does)`;
  return `${ownLabels}: put ${wanted} back in the scrape's metric_relabel_configs (- {source_labels: [${instead}], target_label: ${wanted}}), or remove the rule that renamed it`;
}

/** No used-bytes series: the family under another name (a prefix a relabelling added, a typo), dropped, or no kubelet scraped. */
function familyMissing(metricNames: readonly string[]): Diagnosis {
  const usedFamily = volumeStatsFamilies.usedBytes;
  const kubeletNames = new Set<string>(Object.values(volumeStatsFamilies));
  const renamed = metricNames.filter((name) => !kubeletNames.has(name));
  const prefixed = renamed.find((name) => name.endsWith(usedFamily));
  if (prefixed !== undefined) {
    const prefix = prefixed.slice(0, -usedFamily.length);
    return {
      message: `Prometheus has no ${usedFamily} series, but has ${prefixed} (did you mean it? the names carry the prefix ${prefix})`,
      fix: `the tool reads the kubelet's own names: strip the prefix in the scrape's metric_relabel_configs (- {source_labels: [__name__], regex: "${prefix}(kubelet_volume_stats_.+)", target_label: __name__}), or remove the rule that added it`,
    };
  }
  const meant = renamed.find((name) => name.includes(usedFamily)) ?? closestName(usedFamily, renamed);
  if (meant !== undefined) {
    return { message: `Prometheus has no ${usedFamily} series, but has ${meant} (did you mean it?)`, fix: `the tool reads the kubelet's own metric names (${usedFamily}, ...); record or keep them under those names` };
  }
  if (metricNames.length > 0) {
    return {
      message: `Prometheus has no ${usedFamily} series (only ${metricNames.join(', ')}): a scrape drops it`,
      fix: `keep ${usedFamily} in the kubelet scrape: a metric_relabel_configs rule with action: drop (or keep) leaves it out`,
    };
  }
  return {
    message: 'Prometheus has no kubelet_volume_stats series at all: it does not scrape the kubelets\' /metrics',
    fix: 'scrape every kubelet\'s /metrics endpoint (kube-prometheus-stack\'s kubelet ServiceMonitor does), or point usage.prometheus.url at the Prometheus that does',
  };
}

/** Each namespace label's values among the series. */
function valuesByLabel(samples: ReadonlyArray<Record<string, string>>): Map<string, Set<string>> {
  const byLabel = new Map<string, Set<string>>();
  for (const labels of samples) {
    for (const [label, value] of Object.entries(labels)) byLabel.set(label, (byLabel.get(label) ?? new Set()).add(value));
  }
  return byLabel;
}

export function diagnoseMissingSeries(found: SeriesFound, wantedNamespaces: readonly string[]): Diagnosis {
  const usedFamily = volumeStatsFamilies.usedBytes;
  if (found.sampleSeries.length === 0) return familyMissing(found.metricNames);
  const labels = new Set(found.sampleSeries.flatMap((s) => Object.keys(s.labels)));
  for (const [wanted, alternatives] of [[claimLabels[1], relabelledClaim], [claimLabels[0], relabelledNamespaceLabels]] as const) {
    if (labels.has(wanted)) continue;
    const instead = alternatives.find((a) => labels.has(a)) ?? closestName(wanted, labels);
    return {
      message: `the ${usedFamily} series carry no ${wanted} label${instead !== undefined ? `, but ${instead} (did you mean it? a scrape relabelled it)` : ` (they have ${[...labels].sort().join(', ')})`}`,
      fix: labelFix(wanted, instead),
    };
  }
  const byLabel = valuesByLabel(found.namespaceLabels);
  const namespaces = [...byLabel.get(claimLabels[0]) ?? []].sort();
  const missing = wantedNamespaces.filter((ns) => !namespaces.includes(ns));
  // The scrape's own namespace label won over the kubelet's: the volumes' namespaces are under another label.
  const movedTo = relabelledNamespaceLabels.find((label) => missing.some((ns) => byLabel.get(label)?.has(ns)));
  if (movedTo !== undefined) {
    const moved = missing.filter((ns) => byLabel.get(movedTo)?.has(ns));
    return {
      message: `the ${usedFamily} series' namespace label holds the scrape's own (${namespaces.join(', ')}), and ${moved.join(', ')} ${moved.length === 1 ? 'is' : 'are'} under ${movedTo}`
        + ` (did you mean it? a scrape that does not honor labels renames the kubelet's namespace label)`,
      fix: movedTo === `exported_${claimLabels[0]}` ? honorLabels : labelFix(claimLabels[0], movedTo),
    };
  }
  const suggestions = missing.map((ns) => [ns, closestName(ns, namespaces)] as const).filter(([, meant]) => meant !== undefined);
  const meantWords = suggestions.length === 1 ? suggestions[0]?.[1] ?? '' : suggestions.map(([ns, meant]) => `${meant ?? ''} for ${ns}`).join(', ');
  return {
    message: `Prometheus has ${usedFamily} series, but none in ${missing.length > 0 ? missing.join(', ') : wantedNamespaces.join(', ')}`
      + `${suggestions.length > 0 ? `; did you mean ${meantWords}?` : ''} (namespaces with series: ${namespaces.join(', ') || 'none'})`,
    fix: 'check that the StatefulSets\' pods run in the cluster this Prometheus scrapes (a kubelet reports only the volumes of running pods), and that usage.prometheus.url is that cluster\'s Prometheus',
  };
}
