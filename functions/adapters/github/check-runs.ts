// Check runs of this tool's GitHub App (Octokit only): one per name and commit, created once and updated in place,
// annotations sent 50 a request as the Checks API requires, texts fitted to its limits. A hash of what was sent rides
// in `external_id`, so an unchanged verdict costs one read and no write, unless someone asked for the run again. Every
// text is made printable here too, the last guard (its renderers already quote outside text printable): titles on one
// line, a message or summary by lines.
import { createHash } from 'node:crypto';
import type { CheckAnnotation, CommitCheck, WriteOutcome } from '../../engine/ports.ts';
import type { GitHubClient, RepoRef } from './octokit.ts';
import { count } from '../../domain/spelling.ts';
import { printable, printableLines } from '../../domain/printable.ts';

/** The Checks API's limits: annotations per request, characters of summary and text (its OpenAPI `maxLength`). */
export const maxAnnotationsPerRequest = 50;
export const maxOutputCharacters = 65_535;
/** An annotation's title and message: 255 characters and 64 KB (bytes, not characters) are GitHub's documented limits. */
const maxAnnotationTitle = 255;
const maxAnnotationMessageBytes = 64 * 1024;
const maxTitle = 1_000;

type Conclusion = 'success' | 'failure' | 'neutral';

/** GitHub's refusal when the App may not write check runs: the caller falls back to a commit status. */
export class CheckRunsRefused extends Error {
  constructor(readonly status: number, message: string) {
    super(`check runs refused (${status}: ${message}); this needs the App permission checks: write`);
    this.name = 'CheckRunsRefused';
  }
}

/** Text cut to `limit` characters, saying so at its end. */
export function fitText(text: string, limit: number, note = '…'): string {
  return text.length <= limit ? text : `${text.slice(0, limit - note.length)}${note}`;
}

/** Text cut to `maxBytes` of UTF-8, saying so at its end (a character is one to four bytes). */
export function fitBytes(text: string, maxBytes: number, note = '…'): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let cut = text.slice(0, maxBytes);
  for (let excess = Buffer.byteLength(cut + note) - maxBytes; excess > 0; excess = Buffer.byteLength(cut + note) - maxBytes) {
    // A UTF-16 unit is at most three bytes of UTF-8: dropping a third of the excess never cuts far below the limit.
    cut = cut.slice(0, cut.length - Math.max(1, Math.floor(excess / 3)));
  }
  // Never end on half of a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}${note}`;
}

export function fitAnnotation(a: CheckAnnotation): { path: string; start_line: number; end_line: number; annotation_level: CheckAnnotation['level']; title: string; message: string } {
  const line = Math.max(1, Math.floor(a.line));
  return { path: a.path, start_line: line, end_line: line, annotation_level: a.level, title: fitText(printable(a.title), maxAnnotationTitle), message: fitBytes(printableLines(a.message), maxAnnotationMessageBytes) || printable(a.title) };
}

function fitOutput(check: CommitCheck): { title: string; summary: string } {
  const note = '\n\n_…cut to stay within GitHub\'s check run size limit; `npx sts-volume-gitops plan` prints it all._';
  return { title: fitText(printable(check.title), maxTitle), summary: fitText(printableLines(check.summary), maxOutputCharacters, note) };
}

function hash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);
}

/** `in_progress` while pending; a status's `error` is a check's `failure`; a `neutral` success is `neutral`. */
function progressOf(check: Pick<CommitCheck, 'state' | 'neutral'>): { status: 'in_progress' } | { conclusion: Conclusion } {
  if (check.state === 'pending') return { status: 'in_progress' };
  return { conclusion: check.state === 'success' ? (check.neutral === true ? 'neutral' : 'success') : 'failure' };
}

function conclusionWord(check: Pick<CommitCheck, 'state' | 'neutral'>): string {
  return check.state === 'success' && check.neutral === true ? 'neutral' : check.state;
}

export class CheckRuns {
  /** The runs asked for again that this host has answered: each once. */
  private readonly answered = new Set<string>();

  /**
   * `rerun`: the commit (and run) someone asked for again. GitHub then resets the suite to queued and leaves the run
   * as it was, for the App to answer: that run is written anew even when its verdict has not changed.
   */
  constructor(
    private readonly octokit: GitHubClient, private readonly repo: RepoRef, private readonly appId: number, private readonly writes: string[],
    private readonly rerun?: { sha: string; check?: string },
  ) {}

  private askedAgain(sha: string, name: string): boolean {
    if (this.rerun === undefined || this.rerun.sha !== sha || (this.rerun.check !== undefined && this.rerun.check !== name)) return false;
    if (this.answered.has(name)) return false;
    this.answered.add(name);
    return true;
  }

  /**
   * GitHub appends annotations on every update and never replaces them: a run whose annotations would change is
   * replaced by a new run of the same name (the pull request shows the latest); anything else is updated in place.
   */
  async ensure(sha: string, check: CommitCheck): Promise<WriteOutcome> {
    const output = fitOutput(check);
    const annotations = check.annotations.map(fitAnnotation);
    // A neutral run hashes apart from a success; every other run's hash is the one earlier versions wrote.
    const outputHash = hash([check.neutral === true ? 'neutral' : check.state, check.description, check.targetUrl ?? null, output]);
    const annotationsHash = hash(annotations);
    const externalId = `sts-volume-gitops:${outputHash}:${annotationsHash}`;
    const existing = await this.refusedAs403(() => this.latest(sha, check.context));
    // A run whose annotations are not all there (a batch was lost) is not ours to build on.
    const sameAnnotations = existing !== undefined && existing.external_id?.endsWith(`:${annotationsHash}`) === true
      && existing.output.annotations_count === annotations.length;
    const again = this.askedAgain(sha, check.context);
    if (existing && sameAnnotations && existing.external_id === externalId && !again) return 'unchanged';
    const fields = { ...progressOf(check), external_id: externalId, ...(check.targetUrl ? { details_url: check.targetUrl } : {}) };
    // A run asked for again gets a new run of its name (the page shows the latest), so the Re-run is seen answered.
    if (existing && sameAnnotations && !again) {
      await this.refusedAs403(() => this.octokit.rest.checks.update({ ...this.repo, check_run_id: existing.id, ...fields, output }));
      this.writes.push(`check ${check.context} on ${sha.slice(0, 7)}: ${conclusionWord(check)} "${check.description}"`);
      return 'updated';
    }
    const [first = [], ...rest] = batches(annotations, maxAnnotationsPerRequest);
    const created = await this.refusedAs403(() => this.octokit.rest.checks.create({
      ...this.repo, name: check.context, head_sha: sha, ...fields, output: { ...output, annotations: first },
    }));
    for (const batch of rest) {
      await this.octokit.rest.checks.update({ ...this.repo, check_run_id: created.data.id, output: { ...output, annotations: batch } });
    }
    this.writes.push(`check ${check.context} on ${sha.slice(0, 7)}: ${conclusionWord(check)} "${check.description}"${annotations.length > 0 ? ` (${count(annotations.length, 'annotation')})` : ''}${again ? ' (re-run)' : ''}`);
    return existing ? 'updated' : 'created';
  }

  /** The latest run of `name` on `sha` made by this App (another App's run of that name is not ours to edit). */
  private async latest(sha: string, name: string): Promise<{ id: number; external_id: string | null; output: { annotations_count: number } } | undefined> {
    const runs = await this.octokit.rest.checks.listForRef({ ...this.repo, ref: sha, check_name: name, filter: 'latest', app_id: this.appId, per_page: 100 });
    return runs.data.check_runs.filter((run) => run.app?.id === this.appId).sort((a, b) => b.id - a.id)[0];
  }

  private async refusedAs403<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown };
      if (status === 403 && typeof message === 'string' && !/rate limit/i.test(message)) throw new CheckRunsRefused(status, message);
      throw error;
    }
  }
}

function batches<T>(items: readonly T[], size: number): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}
