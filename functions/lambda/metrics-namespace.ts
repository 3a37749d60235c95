// The CloudWatch namespace of the functions' metrics when POWERTOOLS_METRICS_NAMESPACE is unset. Its own module so that
// the webhook's metrics name it without bundling what the pass metrics read (the engine's verdict).
export const defaultMetricsNamespace = 'StsVolumeGitops';
