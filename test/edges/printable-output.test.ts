// No control character from Git, the cluster or GitHub reaches a terminal or a log line raw (issue 34 item 2): a
// StorageClass name that sets the clipboard (OSC 52) and rewrites the line above (cursor up, erase, carriage return,
// CSI in 7 and 8 bits), a bidi override, a StatefulSet name and a manifest path of the same kind, and a GitHub login,
// through plan, reconcile and check as a person runs them (child processes, real clients, both sandboxes) and through
// the worker's Powertools logs. Each is shown escaped (`\x1b`, `\r`, `\u202e`); under --json only as JSON's escapes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorker } from '../../functions/lambda/worker.ts';
import { lambdaContext } from '../lambda/lambda-context.ts';
import { sqsRecord } from '../lambda/local-sqs.ts';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';
import { captureLambdaOutput } from '../support/lambda-output.ts';

/** Sets the clipboard, goes up a line, erases it, rewrites it as converged, colours by 8-bit CSI, reverses the rest, breaks the line. */
const storageClass = 'fast\x1b]52;c;aGVsbG8=\x07\x1b[1A\x1b[2K\r  = db/pg (OrderedReady, 3 replicas): converged\x9b31m\u202eevil\u2066\nnext';
const storageClassYaml = '"fast\\e]52;c;aGVsbG8=\\a\\e[1A\\e[2K\\r  = db/pg (OrderedReady, 3 replicas): converged\\x9b31m\\u202Eevil\\u2066\\nnext"';
/** A manifest whose path and StatefulSet name carry the same (the name is refused in an error that quotes it). */
const evilPath = 'k8s/db/evil\x1b[2K\r\x9b1m.yaml';
const evilName = '"pg\\e]0;owned\\a\\u202Egnp"';
const login = 'bot\x1b[2K\r\u202eadmin';

/** What must never be written raw: Unicode's controls (but the line feeds of the tool's own layout), format characters (bidi), separators. */
const raw = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

function assertNoRaw(text: string, where: string): void {
  const found = raw.exec(text);
  assert.ok(found === null, `${where} holds a raw U+${found?.[0].codePointAt(0)?.toString(16).padStart(4, '0') ?? ''}: ${JSON.stringify(text.slice(Math.max(0, (found?.index ?? 0) - 60), (found?.index ?? 0) + 60))}`);
}

/** The escaped forms a person sees of the hostile texts. */
function assertShownEscaped(text: string, where: string): void {
  assert.ok(text.includes('fast\\x1b]52;c;aGVsbG8=\\x07\\x1b[1A\\x1b[2K\\r  = db/pg (OrderedReady, 3 replicas): converged\\x9b31m\\u202eevil\\u2066\\nnext'), `${where} shows the StorageClass escaped`);
}

describe('text from Git, the cluster and GitHub reaches terminals and logs printable', () => {
  let sandboxes: CheckSandboxes;
  let config: string;

  before(async () => {
    sandboxes = await startCheckSandboxes();
    const pg = await sandboxes.github.readFile('refs/heads/main', 'k8s/db/pg.yaml');
    assert.ok(pg && pg.includes('storageClassName: standard'));
    await sandboxes.github.commitFiles({
      branch: 'main', message: 'hostile texts', files: {
        'k8s/db/pg.yaml': pg.replace('storageClassName: standard', `storageClassName: ${storageClassYaml}`),
        [evilPath]: `apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: ${evilName}\n  namespace: db\nspec: {}\n`,
      },
    });
    config = await sandboxes.configFile('printable');
  });
  after(() => sandboxes.close());

  it('plan shows every hostile text escaped, on the lines the tool wrote', async () => {
    const { code, stdout, stderr } = await sandboxes.cli(['plan', '--config', config]);
    assert.equal(code, 1, stderr);
    assertNoRaw(stdout, 'plan stdout');
    assertNoRaw(stderr, 'plan stderr');
    assertShownEscaped(stdout, 'plan');
    assert.match(stdout, /^ {2}! k8s\/db\/evil\\x1b\[2K\\r\\x9b1m\.yaml:4:\d+: StatefulSet db\/pg\\x1b\]0;owned\\x07\\u202egnp: /m, 'the path and the name in the error, escaped');
    // The blocked set keeps its own line: nothing the class says starts one.
    assert.match(stdout, /^ {2}x db\/pg \(OrderedReady, 3 replicas\): blocked$/m);
    assert.doesNotMatch(stdout, /^next/m);
  });

  it('plan --json carries the texts exactly, in JSON escapes only', async () => {
    const { stdout } = await sandboxes.cli(['plan', '--config', config, '--json']);
    assertNoRaw(stdout, 'plan --json');
    assert.doesNotMatch(stdout, /\\\\x1b|\\\\u202e/i, 'nothing escaped twice');
    const [run] = JSON.parse(stdout) as Array<{ report: { statefulSets: Array<{ name: string; templates: Array<{ storageClassName?: string }> }>; manifestErrors: Array<{ path: string }> } }>;
    const pg = run?.report.statefulSets.find((s) => s.name === 'pg');
    assert.equal(pg?.templates[0]?.storageClassName, storageClass, 'the class as Git has it');
    assert.ok(run?.report.manifestErrors.some((e) => e.path === evilPath), 'the path as Git has it');
  });

  it('check shows the cluster\'s, Git\'s and GitHub\'s texts escaped, and --json as JSON escapes', async () => {
    const token = sandboxes.github.addPerson(login, 'write');
    const text = await sandboxes.cli(['check', '--config', config], { CHECK_GITHUB_TOKEN: token });
    assertNoRaw(text.stdout, 'check stdout');
    assertNoRaw(text.stderr, 'check stderr');
    assertShownEscaped(text.stdout, 'check');
    assert.match(text.stdout, /github\.role +bot\\x1b\[2K\\r\\u202eadmin: /, 'the login GitHub answered, escaped');
    const json = await sandboxes.cli(['check', '--config', config, '--json'], { CHECK_GITHUB_TOKEN: token });
    assertNoRaw(json.stdout, 'check --json');
    assert.ok((JSON.parse(json.stdout) as { targets: Array<{ results: Array<{ subject: string }> }> }).targets[0]?.results.some((r) => r.subject === storageClass));
  });

  it('reconcile\'s report and progress lines show them escaped', async () => {
    const { stdout, stderr } = await sandboxes.cli(['reconcile', '--config', config]);
    assertNoRaw(stdout, 'reconcile stdout');
    assertNoRaw(stderr, 'reconcile stderr');
    assertShownEscaped(stdout, 'reconcile');
    assert.match(stderr, /^\[demo\] /m, 'progress lines were written');
  });

  it('the worker\'s log lines hold them printable', async () => {
    const record = sqsRecord({ messageId: 'm-1', body: JSON.stringify({ target: 'demo', action: 'pass', trigger: 'schedule' }), groupId: 'g', deduplicationId: 'd-1' }, 'arn:aws:sqs:eu-west-1:123456789012:targets.fifo');
    const { result: answer, output: written, lines: logLines } = await captureLambdaOutput(
      () => createWorker({ env: { ...sandboxes.env, STS_VOLUME_GITOPS_CONFIG: config } })({ Records: [record] }, lambdaContext('worker')));
    assert.deepEqual(answer, { batchItemFailures: [] });
    assertNoRaw(written, 'the worker\'s logs');
    const lines = logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const needsAction = lines.filter((l) => l.message === 'needs action').map((l) => String(l.detail));
    assert.ok(needsAction.some((detail) => detail.includes('StorageClass fast\\x1b]52;c;aGVsbG8=\\x07')), `a log line quotes the class printable: ${needsAction.join(' | ')}`);
  });
});
