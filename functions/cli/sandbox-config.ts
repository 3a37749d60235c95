// The sandboxes' ready configuration, as `sandbox`, `npm start` and the tests write it: one target over both
// sandboxes, its record key, state namespace, credential (a token, or the GitHub sandbox's App), size sources and
// prices; and what examples/ adds to it (sandbox-seed.ts).
import { randomBytes } from 'node:crypto';
import type { GuardrailsConfig, PriceConfig, SizeSourceConfig } from '../domain/config.ts';
import { unitPrice } from '../domain/spelling.ts';
import { exampleSeedTarget } from './sandbox-seed.ts';

/** The example repository's chart values (examples/gitops-repo/apps/victoria-logs) mapped to the StatefulSet it renders. */
export const exampleSizeSources: readonly SizeSourceConfig[] = exampleSeedTarget.sizeSources;

/**
 * Figures per GiB-month for the example cluster's classes (examples/cluster-seed.yaml), so that plans, pull request
 * checks and recovery pull requests on the sandboxes say what a change costs, as they do with `prices` configured.
 */
export const examplePrices: PriceConfig = exampleSeedTarget.prices ?? { currency: 'USD', perGiBMonth: {} };

/** `standard 0.1 USD per GiB-month, capped 0.125 USD per GiB-month`. */
export function describePrices(prices: PriceConfig): string {
  return Object.entries(prices.perGiBMonth).map(([klass, price]) => `${klass} ${unitPrice(price, prices.currency)}`).join(', ');
}

/** The variable the sandbox config names for the recreation record key by default (tests put a fresh key in it). */
export const sandboxRecordKeyVariable = 'STS_SANDBOX_RECORD_KEY';

/** A fresh record key, as an environment for the default sandbox config. */
export function sandboxRecordKeyEnv(): Record<string, string> {
  return { [sandboxRecordKeyVariable]: generateRecordKey() };
}

/** 32 random bytes, base64: what `openssl rand -base64 32` prints. */
export function generateRecordKey(): string {
  return randomBytes(32).toString('base64');
}

/**
 * Where the deployment keeps its record key and its Lease and records. By default: the key in $STS_SANDBOX_RECORD_KEY,
 * and the state in `default` (a sandbox without the RBAC manifest has no sts-volume-gitops namespace). The demo and the
 * `sandbox` command apply the manifest, so they use the real default (`stateNamespace: undefined`) and a key file.
 */
export interface SandboxDeployment {
  recordKey: { env: string } | { file: string };
  stateNamespace: string | undefined;
  /** The sandbox's GitHub App instead of the token (its verdicts are then check runs), its key in a variable or a file. */
  app?: { appId: number; installationId: number; privateKey: { env: string } | { file: string } };
  /** Prices per GiB-month of the sandbox's StorageClasses: plans and recovery pull requests then say what a change costs. */
  prices?: PriceConfig;
  /** The target's limits on a change (its seed's). */
  guardrails?: GuardrailsConfig;
  /** The Kubernetes sandbox's Prometheus API: the target reads its volumes' usage there, and decides growth from it. */
  prometheusUrl?: string;
}

/** The growth policy of the sandbox's ready config (README, "Usage and growth"). */
export const sandboxGrowth = '{ usedPercent: 80, fullWithin: 7d, step: 50%, max: 100Gi }';

export function sandboxConfig(
  kubeconfigPath: string, githubUrl: string, tokenVariable: string, sizeSources: readonly SizeSourceConfig[] = [],
  deployment: SandboxDeployment = { recordKey: { env: sandboxRecordKeyVariable }, stateNamespace: 'default' },
): string {
  const recordKey = 'env' in deployment.recordKey ? `{ env: ${deployment.recordKey.env} }` : `{ file: ${JSON.stringify(deployment.recordKey.file)} }`;
  const state = deployment.stateNamespace === undefined ? '' : `state: ${deployment.stateNamespace}, `;
  const credential = deployment.app
    ? `app: { appId: ${deployment.app.appId}, installationId: ${deployment.app.installationId}, privateKey: ${'env' in deployment.app.privateKey ? `{ env: ${deployment.app.privateKey.env} }` : `{ file: ${JSON.stringify(deployment.app.privateKey.file)} }`} }`
    : `token: { env: ${tokenVariable} }`;
  const prices = deployment.prices
    ? `    prices: { currency: ${deployment.prices.currency}, perGiBMonth: { ${Object.entries(deployment.prices.perGiBMonth).map(([k, v]) => `${k}: ${v}`).join(', ')} } }\n` : '';
  const usage = deployment.prometheusUrl === undefined ? ''
    : `    usage: { prometheus: { url: ${JSON.stringify(deployment.prometheusUrl)} } }\n    growth: ${sandboxGrowth}\n`;
  // Written as JSON, which is YAML, so every field of a size source (its own guardrails, an owner) goes through.
  const mappings = sizeSources.length === 0 ? '' : `    sizeSources:\n${sizeSources.map((s) => `      - ${JSON.stringify(s)}\n`).join('')}`;
  const guardrails = deployment.guardrails ? `    guardrails: ${JSON.stringify(deployment.guardrails)}\n` : '';
  return `targets:
  - name: demo
    source:
      github:
        owner: acme
        repo: platform-gitops
        branch: main
        paths: ["k8s/**/*.yaml"]
        apiUrl: ${githubUrl}
        ${credential}
    cluster:
      kubeconfig: { path: ${JSON.stringify(kubeconfigPath)} }
    namespaces: { default: default, ${state}allow: [db, cache, analytics] }
    recordKey: ${recordKey}
    pullRequests: { validate: true, recovery: true }
${prices}${usage}${guardrails}${mappings}`;
}
