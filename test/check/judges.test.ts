// The pure decisions behind `check`: which verbs a target needs where, what GitHub's answers grant, which classes the
// templates use, what a server version means.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { workloadPermissions } from '../../functions/adapters/kube/permissions.ts';
import { accessQuestions, judgeAccess } from '../../functions/check/cluster-access.ts';
import {
  fineGrainedTokenWarning, judgeInstallationPermissions, judgeRepositoryRole, judgeTokenScopes, neededGitHubPermissions,
} from '../../functions/check/github-permissions.ts';
import { judgeServerVersion } from '../../functions/check/server-version.ts';
import { judgeEksAuthenticationMode } from '../../functions/check/eks-authentication-mode.ts';
import { judgeStorageClasses } from '../../functions/check/storage-classes.ts';
import { judgeNamespaces } from '../../functions/check/namespaces.ts';
import { capabilitiesOf, parseServerVersion } from '../../functions/domain/server-capabilities.ts';

const target = { name: 'prod', namespaces: { default: 'platform', state: 'platform', allow: ['db', 'cache'] } };
const workloadVerbs = workloadPermissions.reduce((sum, rule) => sum + rule.verbs.length, 0);

describe('check: cluster access questions', () => {
  it('asks every workload verb in every allowed namespace, the Lease verbs in the Lease namespace on its name', () => {
    const questions = accessQuestions(target);
    assert.equal(questions.filter((q) => q.namespace === 'db').length, workloadVerbs);
    assert.equal(questions.filter((q) => q.namespace === 'cache').length, workloadVerbs);
    assert.deepEqual(questions.filter((q) => q.namespace === undefined).map((q) => `${q.verb} ${q.resource}`), ['list storageclasses', 'list volumeattributesclasses']);
    const leaseGets = questions.filter((q) => q.namespace === 'platform' && q.resource === 'leases');
    assert.deepEqual(leaseGets.map((q) => [q.verb, q.name]), [['create', undefined], ['get', 'sts-volume-gitops-prod'], ['update', 'sts-volume-gitops-prod'], ['patch', 'sts-volume-gitops-prod']]);
  });

  it('knows why each granted verb is needed (every rule of the generated manifest is one of permissions.ts)', () => {
    for (const allow of [['db'], ['*']]) {
      const questions = accessQuestions({ name: 'prod', namespaces: { default: 'platform', state: 'platform', allow } });
      assert.deepEqual(questions.filter((q) => q.why === 'for what `npx sts-volume-gitops rbac` grants it'), []);
    }
  });

  it('asks the workload verbs in every namespace for allow: ["*"], and says a ClusterRole is needed', () => {
    const questions = accessQuestions({ name: 'all', namespaces: { default: 'platform', state: 'platform', allow: ['*'] } });
    const everywhere = questions.filter((q) => q.everyNamespace);
    assert.equal(everywhere.length, workloadVerbs);
    const answers = questions.map((q) => ({ allowed: !(q.everyNamespace && q.resource === 'pods') }));
    const [refused, ...rest] = judgeAccess(questions, answers);
    assert.deepEqual(rest, []);
    assert.equal(refused?.subject, 'list pods in every namespace');
    // The binding belongs to the grant; the manifest that makes it comes last, as in every other grant.
    assert.equal(refused?.fix, 'grant "list" on "pods" at the cluster scope with a ClusterRole bound cluster-wide (namespaces.allow has "*") (`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -` grants what the configuration needs)');
  });

  it('groups refused verbs by resource and scope, with the authorizer\'s reason', () => {
    const questions = accessQuestions(target);
    const answers = questions.map((q) => (q.namespace === 'cache' && q.resource === 'statefulsets' && ['delete', 'create'].includes(q.verb)
      ? { allowed: false, reason: 'no RBAC policy matched' } : { allowed: true }));
    const results = judgeAccess(questions, answers);
    assert.deepEqual(results.map((r) => [r.level, r.subject]), [['error', 'create, delete statefulsets.apps in namespace "cache"']]);
    assert.match(results[0]?.message ?? '', /^not allowed \(no RBAC policy matched\); needed to /);
    assert.match(results[0]?.fix ?? '', /^grant "create", "delete" on "statefulsets" \(API group "apps"\) in namespace "cache"/);
  });

  it('says an identity granted nothing must apply the generated manifest; all granted is one ok line', () => {
    const questions = accessQuestions(target);
    const none = judgeAccess(questions, questions.map(() => ({ allowed: false })));
    assert.match(none[0]?.fix ?? '', /npx sts-volume-gitops rbac --config FILE \| kubectl apply -f -/);
    const all = judgeAccess(questions, questions.map(() => ({ allowed: true })));
    assert.deepEqual(all.map((r) => r.level), ['ok']);
    assert.match(all[0]?.message ?? '', /namespaces cache, db, platform/);
  });
});

describe('check: GitHub permissions', () => {
  const pullRequests = { validate: true, recovery: true, writeBack: true, forks: 'neutral' as const };

  it('needs contents: write only for recovery pull requests, checks: write only with check runs', () => {
    assert.deepEqual(neededGitHubPermissions(pullRequests).map((n) => `${n.permission}:${n.level}`), ['contents:write', 'statuses:write', 'pull_requests:write']);
    assert.deepEqual(neededGitHubPermissions({ ...pullRequests, recovery: false, writeBack: false }, { checkRuns: true }).map((n) => `${n.permission}:${n.level}`),
      ['contents:read', 'statuses:write', 'pull_requests:write', 'checks:write']);
    // Write-back pull requests push a branch too: turned on alone, they need the same write.
    assert.equal(neededGitHubPermissions({ ...pullRequests, recovery: false, writeBack: true })[0]?.level, 'write');
  });

  it('compares the installation\'s grants level by level', () => {
    const needed = neededGitHubPermissions(pullRequests, { checkRuns: true });
    const results = judgeInstallationPermissions(needed, { contents: 'read', statuses: 'write', pull_requests: 'admin', metadata: 'read' }, 42);
    assert.deepEqual(results.map((r) => [r.subject, r.level]), [['contents: write', 'error'], ['statuses: write', 'ok'], ['pull_requests: write', 'ok'], ['checks: write', 'warning']]);
    assert.match(results[0]?.message ?? '', /has only contents: read/);
    assert.match(results[3]?.message ?? '', /without it, verdicts are published as commit statuses instead/);
    assert.match(results[3]?.fix ?? '', /GitHub App 42 .*"Checks" to Read and write/);
  });

  it('reads classic scopes: repo covers all, public_repo only a public repository, repo:status only statuses; no token writes check runs', () => {
    const needed = neededGitHubPermissions(pullRequests, { checkRuns: true });
    const levels = (scopes: string[], isPrivate: boolean): string[] => judgeTokenScopes(needed, scopes, { private: isPrivate }).map((r) => r.level);
    assert.deepEqual(levels(['repo'], true), ['ok', 'ok', 'ok', 'error']);
    assert.deepEqual(levels(['public_repo'], false), ['ok', 'ok', 'ok', 'error']);
    assert.deepEqual(levels(['public_repo'], true), ['error', 'error', 'error', 'error']);
    assert.deepEqual(levels(['repo:status'], true), ['error', 'ok', 'error', 'error']);
    assert.match(judgeTokenScopes(needed, [], { private: false })[0]?.fix ?? '', /"public_repo" scope/);
  });

  it('warns that a fine-grained token is not described by GitHub, and refuses a read-only role', () => {
    assert.equal(fineGrainedTokenWarning(neededGitHubPermissions(pullRequests)).level, 'warning');
    assert.equal(judgeRepositoryRole({ push: true }, 'x').level, 'ok');
    assert.equal(judgeRepositoryRole({ push: false }, 'x').level, 'error');
  });
});

describe('check: an identity granted nothing (issue 37 item 14)', () => {
  it('is one error with one fix and the list of what it grants, not an error per resource and namespace', () => {
    const questions = accessQuestions({ name: 'prod', namespaces: { default: 'platform', state: 'sts-volume-gitops', allow: ['db', 'cache'] } });
    const results = judgeAccess(questions, questions.map(() => ({ allowed: false })));
    assert.equal(results.length, 1);
    assert.equal(results[0]?.level, 'error');
    assert.match(results[0]?.message ?? '', new RegExp(`^this identity has none of the ${questions.length} permissions the tool needs: list storageclasses, list volumeattributesclasses at the cluster scope; get/list/create/update/patch/delete statefulsets, .* in namespaces cache, db; `));
    assert.match(results[0]?.fix ?? '', /^apply the manifest the config needs/);
  });
});

describe('check: StorageClasses', () => {
  const classes = [
    { name: 'standard', allowVolumeExpansion: true, isDefault: true },
    { name: 'fixed', allowVolumeExpansion: false, isDefault: false },
  ];

  it('takes the default class for a template without one, and finds a missing and a fixed class', () => {
    const results = judgeStorageClasses([
      { className: undefined, usedBy: 'db/pg data' }, { className: 'gold', usedBy: 'db/a data' }, { className: 'fixed', usedBy: 'db/b data' },
    ], classes);
    assert.deepEqual(results.map((r) => [r.subject, r.level]), [['fixed', 'error'], ['gold', 'error'], ['standard', 'ok']]);
    assert.match(results[2]?.message ?? '', /used by db\/pg data/);
  });

  it('says the class probably meant for a typo (issue 37 item 13)', () => {
    const [typo] = judgeStorageClasses([{ className: 'standrd', usedBy: 'db/pg data' }], classes);
    assert.match(typo?.message ?? '', /^StorageClass standrd does not exist \(used by db\/pg data\); its volumes cannot be resized; did you mean standard\?$/);
    assert.equal(typo?.fix, 'change the templates to standard (or create StorageClass standrd)');
  });

  it('is an error when a template names no class and the cluster has no default', () => {
    const results = judgeStorageClasses([{ className: undefined, usedBy: 'db/pg data' }], classes.filter((c) => !c.isDefault));
    assert.match(results[0]?.message ?? '', /no default StorageClass/);
  });
});

describe('check: server version', () => {
  it('reads managed clusters\' versions and what each means for recovery', () => {
    assert.deepEqual(parseServerVersion({ major: '1', minor: '30+', gitVersion: 'v1.30.4-eks-a737599' }), { major: 1, minor: 30, gitVersion: 'v1.30.4-eks-a737599' });
    assert.throws(() => parseServerVersion({}), /names no version/);
    assert.equal(capabilitiesOf(parseServerVersion({ gitVersion: 'v1.34.9' })).lowerRequest, 'ga');
    assert.equal(capabilitiesOf(parseServerVersion({ gitVersion: 'v1.32.0' })).lowerRequest, 'default-on');
    const old = judgeServerVersion(parseServerVersion({ gitVersion: 'v1.25.0' }), true);
    assert.deepEqual(old.map((r) => [r.id, r.level]), [['cluster.version', 'warning'], ['cluster.recovery', 'warning'], ['cluster.volumeattributesclass', 'ok']]);
    assert.equal(judgeServerVersion(parseServerVersion({ gitVersion: 'v1.26.5' }), false)[1]?.level, 'ok', 'no warning when recovery pull requests are off');
  });
});

describe('check: namespaces', () => {
  const set = (namespace: string, name: string) => ({ namespace, name, replicas: 1, podManagementPolicy: 'OrderedReady' as const, templates: [], location: { path: `${name}.yaml`, line: 1, column: 1 } });

  it('names each StatefulSet in a namespace the allow list forgot; * allows all', () => {
    const desired = { statefulSets: [set('db', 'pg'), set('logs', 'loki'), set('logs', 'tempo')], sizeValues: [] };
    const results = judgeNamespaces(desired, { allow: ['db'], state: 'sts-volume-gitops' });
    assert.deepEqual(results.map((r) => [r.level, r.subject]), [['error', 'logs']]);
    assert.match(results[0]?.message ?? '', /^logs\/loki \(loki\.yaml:1\), logs\/tempo \(tempo\.yaml:1\) are in namespace logs/);
    assert.deepEqual(judgeNamespaces(desired, { allow: ['*'], state: 'sts-volume-gitops' }).map((r) => r.level), ['ok']);
  });

  it('names a StatefulSet in the state namespace, which * does not cover (issue 28 item 6)', () => {
    const desired = { statefulSets: [set('db', 'pg'), set('sts-volume-gitops', 'planted')], sizeValues: [] };
    const results = judgeNamespaces(desired, { allow: ['*'], state: 'sts-volume-gitops' });
    assert.deepEqual(results.map((r) => [r.level, r.subject]), [['error', 'sts-volume-gitops']]);
    assert.match(results[0]?.message ?? '', /^sts-volume-gitops\/planted \(planted\.yaml:1\): namespace sts-volume-gitops is this target's state namespace .*"\*" means every namespace but this one/);
  });
});

describe('check: an EKS cluster\'s authentication mode (issue 37 item 6)', () => {
  const cluster = { name: 'prod-eu', region: 'eu-west-1' };
  it('is ok in API and API_AND_CONFIG_MAP, an error in CONFIG_MAP, a warning when EKS does not say', () => {
    assert.deepEqual(['API', 'API_AND_CONFIG_MAP', 'CONFIG_MAP', undefined].map((mode) => judgeEksAuthenticationMode(cluster, mode).level), ['ok', 'ok', 'error', 'warning']);
  });
  it('names the access entry a cluster in another account needs, which the stack does not create', () => {
    const result = judgeEksAuthenticationMode({ ...cluster, roleArn: 'arn:aws:iam::210987654321:role/access' }, 'CONFIG_MAP');
    assert.match(result.message, /the access entry of arn:aws:iam::210987654321:role\/access \(made in the cluster's account\) maps nothing/);
    assert.match(result.fix ?? '', /--access-config authenticationMode=API_AND_CONFIG_MAP/);
  });
});
