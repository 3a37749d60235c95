// What `npx sts-volume-gitops sandbox` starts and prints: the sandboxes asked for, the GitHub sandbox's repository as a
// git remote and, with --webhook, its signed deliveries to that URL; with both sandboxes, a ready configuration that
// runs the tool as a user granted only the RBAC manifest and as the GitHub sandbox's App (its verdicts are check runs,
// which a Re-run asks for again); then how to drive the loop (Try:).
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { startGitHubSandbox } from '../../sandbox/github/index.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { defaultRbacGroup, rbacObjects } from '../app/rbac-manifest.ts';
import { parseConfig } from '../domain/config.ts';
import type { commandTable } from './command-table.ts';
import { runAs, type FlagValues } from './command-line.ts';
import { describePrices, generateRecordKey, sandboxConfig } from './sandbox-config.ts';
import { sandboxTokenVariable, sandboxUrlVariable } from './sandbox-pr-command.ts';
import { examplesFolder, readSeedTarget, seedTargetFile } from './sandbox-seed.ts';
import { jsonText, writeErr, writeOut } from './terminal.ts';
import { defaultWebhookSecretVariable } from './webhook-command.ts';
import { printable } from '../domain/printable.ts';

type SandboxValues = FlagValues<typeof commandTable.sandbox>;

/** Where deliveries go and the secret that signs them (`--webhook`), and the variable the webhook reads it from. */
export interface SandboxWebhook {
  url: string;
  secret: string;
  secretVariable: string;
}

/** The remote to clone and push: the token goes in as the password, as on github.com. */
export function gitRemoteOf(githubUrl: string, token: string, repository: string): string {
  const url = new URL(githubUrl);
  url.username = 'x-access-token';
  url.password = token;
  return `${url.toString().replace(/\/$/, '')}/${repository}.git`;
}

/** Starts the sandboxes asked for in `workDir`, adding how to close each to `closers`, and prints how to reach them. */
export async function serveSandboxes(input: {
  which: 'kube' | 'github' | undefined; values: SandboxValues; port: number | undefined; tickMs: number; workDir: string;
  closers: Array<() => Promise<void>>; webhook: SandboxWebhook | undefined;
}): Promise<void> {
  const { which, values, port, tickMs, workDir, closers, webhook } = input;
  const info: Record<string, string> = {};
  let kubeSandbox: KubeSandbox | undefined;
  let app: { appId: number; installationId: number; privateKeyPem: string } | undefined;
  // --seed is a sandbox's own seed when it starts alone (a cluster file, a repository folder), else a folder like examples/.
  const seedFolder = which === undefined && values.seed ? resolve(values.seed) : examplesFolder;
  const seedOf = (sandbox: 'kube' | 'github', inFolder: string): string =>
    which === sandbox && values.seed ? resolve(values.seed) : join(seedFolder, inFolder);
  if (which !== 'github') {
    const kube = await startKubeSandbox({
      ...(port !== undefined && which === 'kube' ? { port } : {}),
      seedFile: seedOf('kube', 'cluster-seed.yaml'),
      workDir: join(workDir, 'kube'),
      ...(values.version !== undefined ? { version: values.version } : {}),
    });
    kube.startTimer(tickMs);
    // A seed written for a newer server (the examples, on --version 1.26) starts without what this one does not serve.
    for (const warning of kube.seedWarnings) writeErr(`warning: kube sandbox seed: ${printable(warning)}\n`);
    kubeSandbox = kube;
    closers.push(() => kube.close());
    info.kubernetesUrl = kube.url;
    info.kubernetesVersion = kube.server.gitVersion;
    info.kubeconfig = kube.kubeconfigPath;
    info.prometheusUrl = kube.prometheus.url;
  }
  if (which !== 'kube') {
    const github = await startGitHubSandbox({
      ...(port !== undefined && which === 'github' ? { port } : {}),
      seedDir: seedOf('github', 'gitops-repo'),
      workDir: join(workDir, 'github'),
    });
    closers.push(() => github.close());
    if (webhook) github.webhooks.subscribe({ url: webhook.url, secret: webhook.secret });
    app = github.app;
    info.githubUrl = github.url;
    info.githubToken = github.token;
    info.repository = `${github.owner}/${github.repo}`;
    info.gitRemote = gitRemoteOf(github.url, github.token, info.repository);
    if (webhook) {
      info.webhook = webhook.url;
      info.webhookSecret = webhook.secret;
    }
  }
  if (kubeSandbox && app && info.githubUrl) {
    info.config = join(workDir, 'config.yaml');
    // The tool gets what it gets on a real cluster: a user in the group the RBAC manifest binds, granted only that
    // manifest (applied here), never the sandbox's admin kubeconfig, so a missing permission shows up here first.
    const identity = await kubeSandbox.addIdentity({ name: 'sts-volume-gitops-sandbox', groups: [defaultRbacGroup] });
    info.toolKubeconfig = identity.kubeconfigPath;
    // Secrets in files only this user can read: a record key generated for this sandbox (the Lease and records live in
    // their own namespace, which the RBAC manifest applied below creates) and the sandbox App's private key.
    const recordKeyFile = join(workDir, 'record-key');
    await writeFile(recordKeyFile, `${generateRecordKey()}\n`, { mode: 0o600 });
    const appKeyFile = join(workDir, 'github-app.pem');
    await writeFile(appKeyFile, app.privateKeyPem, { mode: 0o600 });
    // Size sources and prices belong to the seed's repository and cluster: its sandbox-target.yaml says them, and a
    // seed without one gets neither, said on stderr.
    const seedTarget = await readSeedTarget(seedFolder);
    if (seedTarget === undefined) {
      writeErr(printable(`note: ${join(seedFolder, seedTargetFile)} does not exist: the ready config maps no chart values (sizeSources) and prices no StorageClass`) + '\n');
    }
    const configText = sandboxConfig(identity.kubeconfigPath, info.githubUrl, sandboxTokenVariable, seedTarget?.sizeSources ?? [], {
      recordKey: { file: recordKeyFile }, stateNamespace: undefined, prometheusUrl: kubeSandbox.prometheus.url, app: { appId: app.appId, installationId: app.installationId, privateKey: { file: appKeyFile } },
      ...(seedTarget?.prices ? { prices: seedTarget.prices } : {}), ...(seedTarget?.guardrails ? { guardrails: seedTarget.guardrails } : {}),
    });
    if (seedTarget?.prices) info.prices = describePrices(seedTarget.prices);
    await writeFile(info.config, configText);
    for (const object of rbacObjects(parseConfig(configText, info.config, workDir).targets)) {
      // A cluster seeded from elsewhere may lack a namespace the config allows: that grant is missing, and said so.
      await applyObjects(kubeSandbox, [object]).catch((error: unknown) => {
        const { kind, metadata } = object as { kind?: string; metadata?: { namespace?: string; name?: string } };
        writeErr(printable(`warning: could not grant ${kind ?? '?'} ${metadata?.namespace ? `${metadata.namespace}/` : ''}${metadata?.name ?? '?'}: ${(error as Error).message}`) + '\n');
      });
    }
  }
  writeOut(values.json ? jsonText(info) : renderSandboxInfo(info, webhook));
}

/** The sandboxes' addresses, then the loop to try on them: check, plan, clone, push, a pull request, the webhook. */
export function renderSandboxInfo(info: Readonly<Record<string, string>>, webhook: SandboxWebhook | undefined): string {
  const shown = Object.entries(info).filter(([key]) => key !== 'webhookSecret');
  const lines = shown.map(([key, value]) => `${key.padEnd(14)} ${printable(value)}`);
  if (info.githubUrl) {
    const config = info.config ? ` --config ${info.config}` : '';
    const webhookPort = webhook === undefined ? '8080' : new URL(webhook.url).port || '80';
    lines.push('', 'Try:', `  export ${sandboxUrlVariable}=${info.githubUrl} ${sandboxTokenVariable}=${info.githubToken ?? ''}`);
    if (info.config) lines.push(`  ${runAs} check${config}`, `  ${runAs} plan${config}`);
    lines.push(
      `  git clone ${info.gitRemote ?? ''} platform-gitops && cd platform-gitops`,
      '  # edit a size in k8s/, then: git switch -c grow && git commit -am "Grow" && git push -u origin grow',
      `  ${runAs} sandbox pr open --head grow --title "Grow"     # prints its number, N`,
      `  ${runAs} sandbox pr rerun N       # Re-run its check; then: ${runAs} sandbox pr merge N`,
    );
    if (info.config) lines.push(`  ${runAs} reconcile${config}     # until it says converged (the schedule's job when deployed)`);
    lines.push(webhook === undefined
      ? `Pushes, pull requests and re-runs are delivered to nobody: start with --webhook http://127.0.0.1:8080/ and run ${runAs} webhook --port 8080${config}.`
      : `Deliveries go to ${webhook.url}; in another terminal: export ${webhook.secretVariable}=${webhook.secret} && ${runAs} webhook --port ${webhookPort}${config}`
        + `${webhook.secretVariable === defaultWebhookSecretVariable ? '' : ` --webhook-secret-env ${webhook.secretVariable}`}`);
  }
  lines.push('', 'Press Ctrl-C to stop.');
  return `${lines.join('\n')}\n`;
}
