// `namespaces.allow: ["*"]` grants the tool's workload verbs cluster-wide, `list` on ConfigMaps included (issue 28
// item 6): `rbac` says so on stderr and in the manifest's header, and `check` as a warning, each with the fix; a list
// of namespaces gets no such word.
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkCommand } from '../../functions/cli/check-command.ts';
import { rbacCommand } from '../../functions/cli/rbac-command.ts';
import type { CheckReport } from '../../functions/cli/render-check.ts';

const expected = /^target prod has namespaces\.allow "\*": the RBAC manifest grants the tool's workload verbs in every namespace \(ClusterRole sts-volume-gitops-workloads, bound cluster-wide\), delete and create of StatefulSets included, and list on ConfigMaps, so its identity may read every ConfigMap in the cluster \(kube-system's too\).*"\*" never covers the state namespace \(sts-volume-gitops\)/;

describe('allow: ["*"] said plainly', () => {
  let dir: string;
  const config = async (allow: string): Promise<string> => {
    const path = join(dir, `config-${allow.length}.yaml`);
    await writeFile(path, `targets:
  - name: prod
    source: { local: { directory: ./repo, paths: ["**/*.yaml"] } }
    cluster: { kubeconfig: { path: ./no-such-kubeconfig } }
    namespaces: { allow: ${allow} }
`);
    return path;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-allow-all-'));
    await mkdir(join(dir, 'repo'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** What `rbac` prints and what it writes to stderr. */
  async function rbac(path: string): Promise<{ manifest: string; stderr: string }> {
    let manifest = '';
    const chunks: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string | Uint8Array): boolean => { chunks.push(String(chunk)); return true; };
    try {
      assert.equal(await rbacCommand(['--config', path], (text) => { manifest += text; }), 0);
    } finally {
      process.stderr.write = write;
    }
    return { manifest, stderr: chunks.join('') };
  }

  it('rbac warns on stderr and in the manifest, with the fix; not for a list of namespaces', async () => {
    const all = await rbac(await config('["*"]'));
    assert.match(all.stderr.replace(/^warning: /, ''), expected);
    assert.match(all.stderr, /; list the namespaces the tool is meant to resize in namespaces\.allow instead of "\*", and apply the regenerated manifest\n$/);
    assert.match(all.manifest, /^# WARNING: target prod has namespaces\.allow "\*": /m);
    assert.match(all.manifest, /^ {2}name: sts-volume-gitops-workloads$/m, 'the grant it warns about is there');
    const listed = await rbac(await config('[db, cache]'));
    assert.equal(listed.stderr, '');
    assert.doesNotMatch(listed.manifest, /WARNING/);
  });

  it('check warns the same way', async () => {
    let json = '';
    await checkCommand(['--config', await config('["*"]'), '--json'], { env: {}, readSecret: () => Promise.reject(new Error('none')), readSecretText: () => Promise.reject(new Error('none')) }, (t) => { json += t; });
    const results = (JSON.parse(json) as CheckReport).targets.flatMap((t) => t.results).filter((r) => r.id === 'config.allow-all');
    assert.deepEqual(results.map((r) => [r.level, r.subject]), [['warning', 'namespaces.allow']]);
    assert.match(results[0]?.message ?? '', expected);
  });
});
