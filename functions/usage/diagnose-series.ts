// Why Prometheus answers but has no series for a target's claims, from what check's diagnosis queries found (pure):
// the kubelet's labels relabelled away (the claim under `pvc`, the namespace under `exported_namespace`), the claims
// in another namespace than the one named, a renamed metric family, or no kubelet scraped at all. Each said with the
// one probably meant, and what to do.
import { closestName } from '../domain/similar-names.ts';
import { claimLabels, volumeStatsFamilies } from './volume-stats-queries.ts';
import type { VectorSample } from './prometheus-api.ts';

export interface SeriesFound {
  /** A few used-bytes series anywhere, with all their labels (`topk(3, ...)`). */
  sampleSeries: readonly VectorSample[];
  /** The namespaces that have used-bytes series. */
  namespaces: readonly string[];
  /** Metric names that look like the kubelet's volume statistics. */
  metricNames: readonly string[];
}

export interface Diagnosis {
  message: string;
  fix: string;
}

/** Labels a scrape's relabelling may have put the claim or the namespace under. */
const relabelledClaim = ['pvc', 'claim', 'persistentvolumeclaim_name', 'exported_persistentvolumeclaim', 'kubernetes_pvc_name'];
const relabelledNamespace = ['exported_namespace', 'kubernetes_namespace', 'k8s_namespace', 'namespace_name'];

const keepLabels = 'the tool reads the kubelet\'s own labels, namespace and persistentvolumeclaim: keep them in the scrape\'s relabelling (kube-prometheus-stack\'s kubelet ServiceMonitor does)';

export function diagnoseMissingSeries(found: SeriesFound, wantedNamespaces: readonly string[]): Diagnosis {
  const usedFamily = volumeStatsFamilies.usedBytes;
  if (found.sampleSeries.length === 0) {
    const meant = closestName(usedFamily, found.metricNames);
    if (meant !== undefined) {
      return { message: `Prometheus has no ${usedFamily} series, but has ${meant} (did you mean it?)`, fix: `the tool reads the kubelet's own metric names (${usedFamily}, ...); record or keep them under those names` };
    }
    return {
      message: `Prometheus has no kubelet_volume_stats series at all${found.metricNames.length > 0 ? ` (only ${found.metricNames.join(', ')})` : ''}: it does not scrape the kubelets' /metrics`,
      fix: 'scrape every kubelet\'s /metrics endpoint (kube-prometheus-stack\'s kubelet ServiceMonitor does), or point usage.prometheus.url at the Prometheus that does',
    };
  }
  const labels = new Set(found.sampleSeries.flatMap((s) => Object.keys(s.labels)));
  for (const [wanted, alternatives] of [[claimLabels[1], relabelledClaim], [claimLabels[0], relabelledNamespace]] as const) {
    if (labels.has(wanted)) continue;
    const instead = alternatives.find((a) => labels.has(a)) ?? closestName(wanted, labels);
    return {
      message: `the ${usedFamily} series carry no ${wanted} label${instead !== undefined ? `, but ${instead} (did you mean it? a scrape relabelled it)` : ` (they have ${[...labels].sort().join(', ')})`}`,
      fix: keepLabels,
    };
  }
  const missing = wantedNamespaces.filter((ns) => !found.namespaces.includes(ns));
  const suggestions = missing.map((ns) => [ns, closestName(ns, found.namespaces)] as const).filter(([, meant]) => meant !== undefined);
  const meantWords = suggestions.length === 1 ? suggestions[0]?.[1] ?? '' : suggestions.map(([ns, meant]) => `${meant ?? ''} for ${ns}`).join(', ');
  return {
    message: `Prometheus has ${usedFamily} series, but none in ${missing.length > 0 ? missing.join(', ') : wantedNamespaces.join(', ')}`
      + `${suggestions.length > 0 ? `; did you mean ${meantWords}?` : ''} (namespaces with series: ${[...found.namespaces].sort().join(', ') || 'none'})`,
    fix: 'check that the StatefulSets\' pods run in the cluster this Prometheus scrapes (a kubelet reports only the volumes of running pods), and that usage.prometheus.url is that cluster\'s Prometheus',
  };
}
