// `sts-volume-gitops check` against both sandboxes seeded from examples/: a deployment as the README sets it up passes;
// each planted misconfiguration (a verb taken from the tool's identity, a token without a scope, an App installation
// without pull_requests: write, a missing or fixed StorageClass, a missing Lease namespace, an unreachable cluster)
// is found with the fix it prints; and check writes nothing to either sandbox.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { defaultRbacGroup, rbacObjects, type RbacObject } from '../../functions/app/rbac-manifest.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { checkCommand } from '../../functions/cli/check-command.ts';
import { renderCheckReport, type CheckReport } from '../../functions/cli/render-check.ts';
import { exampleSizeSources, sandboxConfig, sandboxRecordKeyEnv, sandboxRecordKeyVariable } from '../../functions/cli/sandbox-config.ts';
import type { CheckResult } from '../../functions/check/check-result.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { requireMergeQueue } from '../../sandbox/github/endpoints/rules.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

const examples = new URL('../../examples/', import.meta.url).pathname;
const run = promisify(execFile);
const noSecretsManager = (): Promise<string> => Promise.reject(new Error('no Secrets Manager in this test'));

interface Checked {
  code: number;
  report: CheckReport;
  /** What --json counts, beside the report. */
  counts: unknown;
  text: string;
}

describe('check: what is missing before anything runs', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let toolKubeconfig: string;
  let restrictedKubeconfig: string;
  const env: Record<string, string> = sandboxRecordKeyEnv();

  /** A config file for the example target; `edit` changes its YAML text. */
  async function configFile(name: string, options: { kubeconfig?: string; tokenVariable?: string; edit?: (text: string) => string } = {}): Promise<string> {
    const text = sandboxConfig(options.kubeconfig ?? toolKubeconfig, github.url, options.tokenVariable ?? 'CHECK_GITHUB_TOKEN', exampleSizeSources);
    const path = join(dir, `${name}.yaml`);
    await writeFile(path, options.edit ? options.edit(text) : text);
    return path;
  }

  /** One check with --json; the text is what the command prints without it (the last test runs that for real). */
  async function check(args: string[], extraEnv: Record<string, string> = {}): Promise<Checked> {
    let json = '';
    const code = await checkCommand([...args, '--json'], { env: { ...env, ...extraEnv }, readSecret: noSecretsManager, readSecretText: noSecretsManager }, (t) => { json += t; });
    const { counts, ...report } = JSON.parse(json) as CheckReport & { counts: unknown };
    return { code, report, counts, text: renderCheckReport(report) };
  }

  function results(checked: Checked, id?: string): CheckResult[] {
    return checked.report.targets.flatMap((t) => t.results).filter((r) => id === undefined || r.id === id);
  }

  function errors(checked: Checked): CheckResult[] {
    return [...results(checked), ...checked.report.webhook].filter((r) => r.level === 'error');
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-check-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    env.CHECK_GITHUB_TOKEN = github.token;
    const targets = parseConfig(sandboxConfig('kubeconfig', github.url, 'X', exampleSizeSources), 'config', dir).targets;
    // The tool's identity, granted exactly what `sts-volume-gitops rbac` generates (as the README's deployment does) ...
    await applyObjects(kube, rbacObjects(targets));
    toolKubeconfig = (await kube.addIdentity({ name: 'sts-volume-gitops-tool', groups: [defaultRbacGroup] })).kubeconfigPath;
    // ... and one whose Role in namespace db lacks `patch` on persistentvolumeclaims.
    const restricted = rbacObjects(targets, [{ kind: 'Group', name: 'restricted' }]).map((object): RbacObject => {
      if (object.kind === 'ClusterRole' || object.kind === 'ClusterRoleBinding' || object.kind === 'RoleBinding' || object.kind === 'Role') {
        object.metadata = { ...object.metadata, name: `${object.metadata.name}-restricted` };
      }
      if (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') (object.roleRef as { name: string }).name += '-restricted';
      if (object.kind === 'Role' && object.metadata.namespace === 'db') {
        for (const rule of object.rules as Array<{ resources: string[]; verbs: string[] }>) {
          if (rule.resources.includes('persistentvolumeclaims')) rule.verbs = rule.verbs.filter((v) => v !== 'patch');
        }
      }
      return object;
    });
    await applyObjects(kube, restricted);
    restrictedKubeconfig = (await kube.addIdentity({ name: 'restricted-tool', groups: ['restricted'] })).kubeconfigPath;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('passes a deployment set up as the README says, and writes nothing to either sandbox', async () => {
    kube.requestLog.reset();
    github.requestLog.reset();
    const checked = await check(['--config', await configFile('good')]);
    assert.deepEqual(errors(checked), [], checked.text);
    assert.equal(checked.code, 0);
    assert.match(checked.text, /ok +cluster\.access +permissions: all \d+ verbs the tool uses are allowed \(cluster scope, namespaces analytics, cache, db, default\)/);
    assert.match(checked.text, /ok +cluster\.version +v1\.34\.9: Kubernetes 1\.34/, 'the sandbox plays v1.34.9 by default');
    assert.match(checked.text, /ok +cluster\.storageclass +capped: exists and allows expansion \(used by analytics\/clickhouse data \(k8s\/analytics\/clickhouse\.yaml:\d+\)\)/);
    assert.match(checked.text, /ok +cluster\.lease-namespace +default: exists/);
    assert.match(checked.text, /ok +github\.permissions +pull_requests: write: the token's scopes repo cover it/);
    assert.match(checked.text, /ok +source\.parse .*3 StatefulSets with 4 volumeClaimTemplates from manifests, 1 size from values files/);
    assert.match(checked.text, /0 errors, \d+ warnings?, \d+ ok(, \d+ info)?\n$/);
    // Access reviews and dry runs store nothing; nothing else is written.
    assert.deepEqual(kube.requestLog.writes().filter((w) => w.resource !== 'selfsubjectaccessreviews'), []);
    assert.ok(kube.requestLog.entries.some((e) => e.resource === 'leases' && e.dryRun), 'the Lease namespace is probed by a dry run');
    assert.deepEqual(github.requestLog.writes(), []);
  });

  it('finds the verb the identity lacks, per namespace, and prints the grant to make', async () => {
    const checked = await check(['--config', await configFile('restricted', { kubeconfig: restrictedKubeconfig })]);
    assert.equal(checked.code, 1);
    assert.deepEqual(errors(checked).map((e) => [e.id, e.subject]), [['cluster.access', 'patch persistentvolumeclaims in namespace "db"']]);
    const [missing] = errors(checked);
    // The manifest generated for the config, not infra/k8s/rbac.yaml (the example's: another target's Lease name).
    assert.match(missing?.fix ?? '', /^grant "patch" on "persistentvolumeclaims" in namespace "db" \(`npx sts-volume-gitops rbac --config FILE \| kubectl apply -f -` grants what the configuration needs\)$/);
    assert.equal(missing?.message, 'not allowed; needed to raise a PVC\'s storage request (and to dry-run it), and to write the status annotation of a set an operator writes',
      'the refused verb\'s reason alone, in words (issue 30 item 9: not `needed for list: readSnapshot; patch: ...`)');
    assert.match(checked.text, /error +cluster\.access +patch persistentvolumeclaims in namespace "db": not allowed/);
  });

  it('finds a classic token without the repo scope, a read-only user, and warns about a fine-grained token', async () => {
    const noRepo = await check(['--config', await configFile('scopes', { tokenVariable: 'OPS_TOKEN' })], { OPS_TOKEN: github.addPerson('ops', 'write', { scopes: ['read:org'] }) });
    assert.equal(noRepo.code, 1);
    assert.deepEqual(errors(noRepo).map((e) => e.subject), ['acme/platform-gitops', 'contents: write', 'statuses: write', 'pull_requests: write']);
    assert.match(errors(noRepo)[0]?.message ?? '', /GitHub answers 404: a classic token needs the repo scope to see a private repository \(this one has scopes read:org\)/);
    assert.match(errors(noRepo)[1]?.message ?? '', /the classic token has scopes read:org; used for: read manifests/);
    assert.match(errors(noRepo)[0]?.fix ?? '', /create a token with the "repo" scope/);
    const reader = await check(['--config', await configFile('reader', { tokenVariable: 'READER_TOKEN' })], { READER_TOKEN: github.addPerson('reader', 'read') });
    assert.deepEqual(errors(reader).map((e) => [e.id, e.subject]), [['github.role', 'reader']]);
    assert.match(errors(reader)[0]?.fix ?? '', /give reader the Write role/);
    const fineGrained = await check(['--config', await configFile('fine-grained', { tokenVariable: 'FG_TOKEN' })], { FG_TOKEN: github.addPerson('fg', 'write', { fineGrained: true }) });
    assert.equal(fineGrained.code, 0, fineGrained.text);
    const [warned] = results(fineGrained, 'github.permissions');
    assert.equal(warned?.level, 'warning');
    assert.match(warned?.fix ?? '', /"Contents" Read and write, "Commit statuses" Read and write, "Pull requests" Read and write/);
  });

  it('finds an App installation without pull_requests: write, as GitHub reports the installation', async () => {
    const appConfig = (text: string): string => withSandboxApp(text, github, 'CHECK_APP_KEY');
    const path = await configFile('app', { edit: appConfig });
    const saved = github.state.installationPermissions;
    github.state.installationPermissions = { contents: 'write', statuses: 'write', metadata: 'read' };
    github.requestLog.reset();
    try {
      const checked = await check(['--config', path], { CHECK_APP_KEY: github.app.privateKeyPem });
      assert.deepEqual(github.requestLog.writes(), [], 'an installation token is taken, nothing is written');
      assert.equal(checked.code, 1, checked.text);
      assert.deepEqual(errors(checked).map((e) => [e.id, e.subject]), [['github.permissions', 'pull_requests: write']]);
      assert.match(errors(checked)[0]?.message ?? '', /the App installation has no pull_requests permission/);
      assert.match(errors(checked)[0]?.fix ?? '', /set "Pull requests" to Read and write/);
      assert.match(checked.text, /ok +github\.installation +GitHub App 4242: installed on acme as installation 777/);
      assert.deepEqual(results(checked, 'github.permissions').find((r) => r.subject === 'checks: write')?.level, 'warning', 'check runs fall back to statuses');
    } finally {
      github.state.installationPermissions = saved;
    }
    const wrongInstallation = await check(['--config', await configFile('app-wrong', { edit: (t) => appConfig(t).replace(`installationId: ${github.app.installationId}`, 'installationId: 9') })], { CHECK_APP_KEY: github.app.privateKeyPem });
    assert.match(errors(wrongInstallation)[0]?.fix ?? '', /set source\.github\.app\.installationId to 777/);
  });

  it('finds an App that would leave a merge queue waiting: no Merge queues permission where a ruleset requires a queue (README asks for it)', async () => {
    const path = await configFile('merge-queue', {
      edit: (text) => withSandboxApp(text, github, 'CHECK_APP_KEY'),
    });
    const env = { CHECK_APP_KEY: github.app.privateKeyPem };
    const mergeQueues = (checked: Checked): CheckResult[] =>
      results(checked, 'github.permissions').filter((r) => r.subject === 'merge_queues: read');
    const saved = github.state.installationPermissions;
    const { merge_queues: _granted, ...withoutMergeQueues } = saved;
    github.state.installationPermissions = withoutMergeQueues;
    try {
      const noQueue = mergeQueues(await check(['--config', path], env));
      assert.deepEqual(noQueue.map((r) => r.level), ['warning'], 'no queue on main yet: a warning, since a classic protection\'s queue is not visible');
      assert.match(noQueue[0]?.message ?? '', /no ruleset puts main behind a merge queue/);

      requireMergeQueue(github.state, 'main');
      const queued = await check(['--config', path], env);
      assert.equal(queued.code, 1, queued.text);
      const [missing] = mergeQueues(queued);
      assert.equal(missing?.level, 'error');
      assert.match(missing?.message ?? '', /a ruleset makes main merge through a merge queue, and the App installation has no merge_queues permission: GitHub delivers no merge_group event/);
      assert.match(missing?.fix ?? '', /set "Merge queues" to Read-only and subscribe to "Merge group"/);

      github.state.installationPermissions = saved;
      assert.deepEqual(mergeQueues(await check(['--config', path], env)).map((r) => r.level), ['ok'], 'granted, as README asks');
    } finally {
      github.state.installationPermissions = saved;
      github.state.rulesets = [];
    }
  });

  it('finds a StorageClass that does not exist and one that cannot expand, where the manifests use them', async () => {
    const pg = await github.readFile('main', 'k8s/db/pg.yaml') ?? '';
    const redis = await github.readFile('main', 'k8s/cache/redis.yaml') ?? '';
    await github.commitFiles({
      branch: 'classes', baseBranch: 'main', message: 'classes',
      files: { 'k8s/db/pg.yaml': pg.replace('storageClassName: standard', 'storageClassName: gold'), 'k8s/cache/redis.yaml': redis.replace('storageClassName: standard', 'storageClassName: fixed') },
    });
    const checked = await check(['--config', await configFile('classes', { edit: (t) => t.replace('branch: main', 'branch: classes') })]);
    assert.equal(checked.code, 1);
    assert.deepEqual(errors(checked).map((e) => e.subject), ['fixed', 'gold']);
    const [fixed, gold] = errors(checked);
    assert.match(gold?.message ?? '', /StorageClass gold does not exist \(used by db\/pg data \(k8s\/db\/pg\.yaml:\d+\)\)/);
    assert.match(gold?.fix ?? '', /create StorageClass gold/);
    assert.match(fixed?.message ?? '', /does not allow volume expansion \(used by cache\/redis data/);
    assert.match(fixed?.fix ?? '', /allowVolumeExpansion: true/);
  });

  it('finds a missing Lease namespace, located manifests errors and paths that match nothing', async () => {
    await github.commitFiles({ branch: 'broken', baseBranch: 'main', message: 'broken', files: { 'k8s/db/broken.yaml': 'kind: StatefulSet\nmetadata: { name: x\n' } });
    const edit = (t: string): string => t.replace('branch: main', 'branch: broken').replace('default: default, state: default', 'default: platform, state: platform').replace('paths: ["k8s/**/*.yaml"]', 'paths: ["k8s/**/*.yaml", "manifests/**/*.yaml"]');
    const checked = await check(['--config', await configFile('lease', { kubeconfig: kube.kubeconfigPath, edit })]);
    assert.equal(checked.code, 1);
    const lease = results(checked, 'cluster.lease-namespace')[0];
    assert.equal(lease?.level, 'error');
    assert.equal(lease?.fix, 'kubectl create namespace platform (then apply the RBAC manifest again: its Role there could not be created without it)');
    assert.deepEqual(results(checked, 'source.parse').filter((r) => r.level === 'error').map((r) => r.subject), ['k8s/db/broken.yaml:3']);
    assert.deepEqual(results(checked, 'source.paths').map((r) => [r.subject, r.level]), [['k8s/**/*.yaml', 'ok'], ['manifests/**/*.yaml', 'warning']]);
  });

  it('judges paths that match no file at all as the passes do, saying why, with the paths and the glob probably meant (issue 37 item 14)', async () => {
    // Beside size sources, passes still read and apply those and plan exits 0: a warning, as plan's own report says it.
    const typo = await check(['--config', await configFile('paths-typo', { edit: (t) => t.replace('paths: ["k8s/**/*.yaml"]', 'paths: ["k8/**/*.yaml", "manifests/*.yaml"]') })]);
    assert.equal(typo.code, 0, typo.text);
    const paths = results(typo, 'source.paths');
    assert.deepEqual(paths.map((r) => [r.subject, r.level]), [['k8/**/*.yaml', 'warning'], ['manifests/*.yaml', 'warning']]);
    assert.equal(paths[0]?.message, 'matches no YAML file, nor does any other glob of paths: no manifest is read, only the size sources: passes apply their sizes and go on (plan exits 0)');
    assert.equal(paths[0]?.fix, 'fix paths (now ["k8/**/*.yaml","manifests/*.yaml"], globs relative to the repository root) or the branch: '
      + 'k8/ has no YAML file; did you mean k8s/**/*.yaml? (a target read only through sizeSources can point paths at its values files)');
    assert.match(paths[1]?.fix ?? '', /or the branch: the YAML files are in apps\/, k8s\/; did you mean k8s\/\*\*\/\*\.yaml\? \(a target/);
    // Without size sources every pass reads nothing and is blocked (plan exits 1): an error, saying so.
    const alone = await configFile('paths-alone', { edit: (t) => t.replace('paths: ["k8s/**/*.yaml"]', 'paths: ["k8s/*.yaml"]').replace(/ {4}sizeSources:\n(?: {6}- .*\n)+/, '') });
    const blocked = await check(['--config', alone]);
    assert.equal(blocked.code, 1);
    assert.deepEqual(results(blocked, 'source.paths').map((r) => [r.level, r.message]), [['error', 'matches no YAML file: no manifest is read, so every pass is blocked until it does (plan and reconcile exit 1)']]);
    assert.match(results(blocked, 'source.paths')[0]?.fix ?? '', /k8s\/ holds k8s\/analytics\/clickhouse\.yaml, .*; did you mean k8s\/\*\*\/\*\.yaml\?$/);
    const plan = await run(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', 'plan', '--config', alone], { env: { ...process.env, ...env } }).then(() => 0, (failure: { code: number }) => failure.code);
    assert.equal(plan, 1, 'plan says the same with its exit code');
  });

  it('finds a namespace the manifests use that namespaces.allow forgot', async () => {
    const checked = await check(['--config', await configFile('forgotten', { edit: (t) => t.replace('allow: [db, cache, analytics]', 'allow: [db, cache]') })]);
    assert.equal(checked.code, 1);
    assert.deepEqual(errors(checked).map((e) => [e.id, e.subject]), [['source.namespaces', 'analytics']]);
    assert.match(errors(checked)[0]?.message ?? '', /^analytics\/clickhouse \(k8s\/analytics\/clickhouse\.yaml:2\), analytics\/vlogs-victoria-logs-single-server \(apps\/victoria-logs\/values-prod\.yaml:\d+\) are in namespace analytics, which namespaces\.allow \(db, cache\) does not list/);
    assert.match(errors(checked)[0]?.fix ?? '', /^add analytics to namespaces\.allow, then apply the RBAC manifest again/);
  });

  it('reads a local source directory as the CLI does', async () => {
    const local = (t: string): string => t.replace(/ {6}github:\n(?: {8}.*\n)+/, `      local: { directory: ${JSON.stringify(join(examples, 'gitops-repo'))}, paths: ["k8s/**/*.yaml"] }\n`);
    const checked = await check(['--config', await configFile('local', { edit: local })]);
    assert.deepEqual(errors(checked), [], checked.text);
    assert.deepEqual(results(checked).filter((r) => r.id.startsWith('github.')), []);
    assert.match(checked.text, /ok +source\.read +\/.*examples\/gitops-repo: read at [0-9a-f]{12}: 5 files/);
  });

  it('finds a record key that is not set or too short, and warns of a config that names none', async () => {
    const path = await configFile('record-key');
    const unset = await check(['--config', path], { [sandboxRecordKeyVariable]: '' });
    assert.deepEqual(errors(unset).map((e) => [e.id, e.message]), [['config.record-key', `target demo: the record key (environment variable ${sandboxRecordKeyVariable}) is empty or not set`]]);
    const short = await check(['--config', path], { [sandboxRecordKeyVariable]: 'short' });
    assert.match(errors(short)[0]?.message ?? '', /shorter than 32 characters/);
    const none = await check(['--config', await configFile('no-record-key', { edit: (t) => t.replace(/ {4}recordKey: .*\n/, '') })]);
    assert.equal(results(none, 'config.record-key')[0]?.level, 'warning');
    assert.equal(results(await check(['--config', path]), 'config.record-key')[0]?.level, 'ok');
  });

  it('says what is missing when the cluster cannot be reached or the token variable is not set', async () => {
    const unreachable = join(dir, 'unreachable-kubeconfig');
    // Port 9 is one fetch refuses to connect to (the Fetch standard's bad ports): said as such, not as "fetch failed".
    await writeFile(unreachable, (await readFile(toolKubeconfig, 'utf8')).replace(/127\.0\.0\.1:\d+/, '127.0.0.1:9'));
    const checked = await check(['--config', await configFile('unreachable', { kubeconfig: unreachable, tokenVariable: 'UNSET_TOKEN' })]);
    assert.equal(checked.code, 1);
    assert.deepEqual(errors(checked).map((e) => e.id), ['github.credential', 'cluster.reach']);
    assert.equal(errors(checked)[0]?.fix, 'export UNSET_TOKEN=<a token with the repo scope, or a fine-grained token>');
    assert.match(errors(checked)[1]?.message ?? '', /fetch does not connect to this port: it is on the Fetch standard's list of blocked \("bad"\) ports/);
    assert.match(errors(checked)[1]?.fix ?? '', /^serve the API server \(or the tunnel or proxy to it\) on another port, and correct the server URL of cluster/);
  });

  it('checks the webhook secret where a webhook is deployed', async () => {
    const path = await configFile('good');
    const unset = await check(['--config', path, '--webhook-secret-env', 'HOOK_SECRET']);
    assert.deepEqual(unset.report.webhook.map((r) => [r.level, r.subject, r.fix]), [['error', '$HOOK_SECRET', 'export HOOK_SECRET=<the secret entered in the GitHub webhook settings, 16 characters or more>']]);
    assert.equal(unset.code, 1);
    // --json counts what a script would otherwise count itself: every result, targets and webhook together.
    const levels = [...results(unset), ...unset.report.webhook].map((r) => r.level);
    assert.deepEqual(unset.counts, { error: 1, warning: levels.filter((l) => l === 'warning').length, ok: levels.filter((l) => l === 'ok').length, info: levels.filter((l) => l === 'info').length });
    assert.equal(levels.filter((l) => l === 'error').length, 1);
    const set = await check(['--config', path, '--webhook-secret-env', 'HOOK_SECRET'], { HOOK_SECRET: 'a-long-enough-webhook-secret' });
    assert.deepEqual(set.report.webhook.map((r) => r.level), ['ok']);
    assert.equal(set.code, 0);
    const deployed = await checkCommand(['--config', path, '--json'], {
      env: { ...env, STS_VOLUME_GITOPS_WEBHOOK_SECRET: 'arn:aws:secretsmanager:eu-west-1:1:secret:hook' }, readSecret: noSecretsManager,
      readSecretText: () => Promise.resolve('{"webhookSecret": ""}'),
    }, () => undefined);
    assert.equal(deployed, 1);
  });

  it('runs from the command line: exit 2 on bad usage or configuration, the report on stdout', async () => {
    assert.equal(await checkCommand(['--bogus'], { env }, () => undefined), 2);
    const badConfig = join(dir, 'bad.yaml');
    await writeFile(badConfig, 'targets: []\n');
    assert.equal(await checkCommand(['--config', badConfig], { env }, () => undefined), 2);
    const path = await configFile('good');
    const answer = await run(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', 'check', '--config', path], { env: { ...process.env, ...env } })
      .then((output) => ({ code: 0, ...output }), (failure: unknown) => failure as { code: number; stdout: string; stderr: string });
    assert.equal(answer.code, 0, answer.stderr);
    assert.match(answer.stdout, /^target demo\n {2}ok +config /);
  });
});
