// GitHub's own recordings (@octokit/fixtures: real api.github.com exchanges, normalised) of the operations this tool
// uses, replayed against the sandbox: same status, same media type, the headers a client reads (ETag, Location, Link,
// rate limits) and the same body shape (keys and value types, recursively). Every difference must be named in
// fixture-allowlist.json with why it does not matter; an entry that no longer matches a difference fails too.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';

interface Recorded {
  scope: string;
  method: string;
  path: string;
  body: unknown;
  status: number;
  response: unknown;
  reqheaders: Record<string, string>;
  headers: Record<string, string | number>;
}

const require = createRequire(import.meta.url);
const recording = (scenario: string): Recorded[] => require(`@octokit/fixtures/scenarios/api.github.com/${scenario}/normalized-fixture.json`) as Recorded[];
const allowlist = JSON.parse(await readFile(new URL('./fixture-allowlist.json', import.meta.url), 'utf8')) as Record<string, string>;

/** The scenarios of operations the product calls (statuses, contents, archives, refs, labels, the repository). */
const scenarios = ['get-repository', 'get-content', 'create-status', 'get-archive', 'git-refs', 'add-labels-to-issue'];
/** The headers a client reads: present in the recording means present in the sandbox's answer. */
const readHeaders = ['etag', 'location', 'link', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** Where the sandbox's body differs in shape from the recorded one: missing or extra keys, other value types. */
function shapeDifferences(recorded: unknown, served: unknown, at = 'body'): string[] {
  if (typeOf(recorded) !== typeOf(served)) return [`${at}: ${typeOf(recorded)} recorded, ${typeOf(served)} served`];
  if (Array.isArray(recorded) && Array.isArray(served)) {
    return recorded.length > 0 && served.length > 0 ? shapeDifferences(recorded[0], served[0], `${at}[0]`) : [];
  }
  if (typeOf(recorded) !== 'object') return [];
  const a = recorded as Record<string, unknown>;
  const b = served as Record<string, unknown>;
  const differences: string[] = [];
  for (const key of Object.keys(a)) {
    if (!(key in b)) differences.push(`${at}.${key}: missing`);
    else differences.push(...shapeDifferences(a[key], b[key], `${at}.${key}`));
  }
  for (const key of Object.keys(b)) if (!(key in a)) differences.push(`${at}.${key}: extra`);
  return differences;
}

const placeholder = (n: number): string => n.toString().padStart(40, '0');

async function replay(scenario: string): Promise<string[]> {
  const exchanges = recording(scenario);
  const repo = /^\/repos\/[^/]+\/([^/]+)/.exec(exchanges[0]?.path ?? '')?.[1] ?? scenario;
  const dir = await mkdtemp(join(tmpdir(), `sts-fixture-${scenario}-`));
  await writeFile(join(dir, 'README.md'), '# hello-world');
  let gh: GitHubSandbox | undefined;
  try {
    gh = await startGitHubSandbox({ owner: 'octokit-fixture-org', repo, seedDir: dir, workDir: join(dir, 'sandbox') });
    // The recordings' SHAs are normalised: 0...01 is the default branch's head, 0...02 its parent (git-refs moves a
    // branch from 0...02 to 0...01 without force).
    const shas = new Map([[placeholder(2), await gh.state.git.resolve('refs/heads/main') ?? '']]);
    shas.set(placeholder(1), await gh.commitFiles({ branch: 'main', message: 'second', files: { 'second.txt': 'x' } }));
    // Issues are pull requests in the sandbox: issue #1 is a pull request opened first.
    await gh.commitFiles({ branch: 'feature', message: 'feature', files: { 'feature.txt': 'x' } });
    await gh.openPullRequest({ head: 'feature', title: 'Issue without a label' });
    const mapShas = (text: string): string => text.replace(/0{39}[12]/g, (sha) => shas.get(sha) ?? sha);
    const differences: string[] = [];
    let location: string | undefined;
    for (const [index, exchange] of exchanges.entries()) {
      const name = `${scenario} #${index} ${exchange.method.toUpperCase()} ${exchange.path}`;
      // codeload is another host on github.com; the sandbox serves it where its redirect points.
      const url = exchange.scope.includes('codeload') && location ? location : `${gh.url}${mapShas(exchange.path)}`;
      const body = typeof exchange.body === 'object' && exchange.body !== null ? mapShas(JSON.stringify(exchange.body)) : undefined;
      const response = await fetch(url, {
        method: exchange.method.toUpperCase(), redirect: 'manual',
        headers: { accept: exchange.reqheaders.accept ?? 'application/vnd.github.v3+json', authorization: `token ${gh.token}`, ...(body ? { 'content-type': 'application/json; charset=utf-8' } : {}) },
        ...(body ? { body } : {}),
      });
      location = response.headers.get('location') ?? location;
      const text = Buffer.from(await response.arrayBuffer());
      if (response.status !== exchange.status) {
        differences.push(`${name}: status ${exchange.status} recorded, ${response.status} served`);
        continue;
      }
      const mediaType = (value: string | number | null | undefined): string => String(value ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
      if (mediaType(exchange.headers['content-type']) !== mediaType(response.headers.get('content-type'))) {
        differences.push(`${name}: content-type ${mediaType(exchange.headers['content-type'])} recorded, ${mediaType(response.headers.get('content-type'))} served`);
      }
      for (const header of readHeaders) {
        if (exchange.headers[header] !== undefined && !response.headers.has(header)) differences.push(`${name}: header ${header} missing`);
      }
      if (mediaType(exchange.headers['content-type']) === 'application/json' && exchange.status !== 204) {
        differences.push(...shapeDifferences(exchange.response, JSON.parse(text.toString('utf8')) as unknown).map((d) => `${name}: ${d}`));
      }
    }
    return differences;
  } finally {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('@octokit/fixtures replayed against the GitHub sandbox', () => {
  const seen = new Set<string>();
  for (const scenario of scenarios) {
    it(`answers ${scenario} as api.github.com did, but for the allowlisted differences`, async () => {
      const differences = await replay(scenario);
      differences.forEach((d) => seen.add(d));
      const unexplained = differences.filter((d) => allowlist[d] === undefined);
      assert.deepEqual(unexplained, [], `differences from GitHub's recording not in fixture-allowlist.json:\n${unexplained.join('\n')}`);
    });
  }

  it('has no allowlist entry that no longer matches a difference', () => {
    const stale = Object.keys(allowlist).filter((entry) => !seen.has(entry));
    assert.deepEqual(stale, []);
  });

  it('finds a difference it is shown (the comparison can fail)', () => {
    assert.deepEqual(shapeDifferences({ a: 1, b: { c: 'x' } }, { a: '1', b: {}, d: null }), ['body.a: number recorded, string served', 'body.b.c: missing', 'body.d: extra']);
  });
});
