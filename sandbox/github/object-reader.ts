// Reads git objects through one long-lived `git cat-file --batch` process instead of one process per request: on a
// small machine, spawning git for every blob GET (1,000 of them on a fresh container's first read) bounded the
// sandbox's answer time, not the latency it injects. Requests may come in parallel: git answers them in the order they
// were written, so a FIFO of waiting callers pairs each answer with its request, and the size in each header frames
// the (binary) content.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

export interface GitObject {
  type: string;
  content: Buffer;
}

interface Waiting {
  sha: string;
  resolve: (object: GitObject | undefined) => void;
  reject: (error: Error) => void;
}

/** A full object name: the only input sent to the batch process (see `read`). */
const fullSha = /^[0-9a-f]{40}$/;

export class GitObjectReader {
  private child: ChildProcessWithoutNullStreams | undefined;
  private waiting: Waiting[] = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes the next answer needs before it is worth looking at again (a large blob arrives in many chunks). */
  private needed = 0;
  private closed = false;

  constructor(private readonly gitDir: string) {}

  /**
   * The object named by a full 40-hex SHA, or undefined when the repository has none. Short or other names are
   * refused here (the caller asks git directly): git caches a directory's loose-object names for abbreviated lookups,
   * so a long-lived process could miss an object written after it started; a full name is looked up afresh each time.
   */
  read(sha: string): Promise<GitObject | undefined> {
    if (!fullSha.test(sha)) return Promise.reject(new Error(`not a full object name: ${JSON.stringify(sha)}`));
    if (this.closed) return Promise.reject(new Error('the object reader is closed'));
    const child = this.child ?? this.start();
    return new Promise<GitObject | undefined>((resolve, reject) => {
      if (this.waiting.length === 0) this.holdOpen(child, true);
      this.waiting.push({ sha, resolve, reject });
      child.stdin.write(`${sha}\n`);
    });
  }

  /** Ends the batch process; reads still waiting fail. */
  close(): void {
    this.closed = true;
    this.stop(new Error('the object reader is closed'));
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn('git', ['--git-dir', this.gitDir, 'cat-file', '--batch'], {
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
    });
    this.child = child;
    this.holdOpen(child, false);
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => { stderr = (stderr + text).slice(-2000); });
    child.stdout.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      if (this.buffered >= this.needed) this.answer();
    });
    // A write after git died fails here; the exit handler below rejects the waiting reads.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => { if (this.child === child) this.stop(error); });
    child.on('exit', (code, signal) => {
      if (this.child === child) this.stop(new Error(`git cat-file --batch exited (${signal ?? code ?? '?'}): ${stderr.trim()}`));
    });
    return child;
  }

  /** Hands out every complete answer buffered so far, in request order. */
  private answer(): void {
    for (;;) {
      const waiting = this.waiting[0];
      if (!waiting) {
        if (this.child) this.holdOpen(this.child, false);
        return;
      }
      const data = this.chunks.length === 1 ? this.chunks[0] as Buffer : Buffer.concat(this.chunks, this.buffered);
      this.chunks = [data];
      const newline = data.indexOf(0x0a);
      if (newline < 0) {
        this.needed = data.length + 1;
        return;
      }
      const header = data.subarray(0, newline).toString('utf8');
      const parts = header.split(' ');
      if (parts[1] === 'missing' || parts[1] === 'ambiguous') {
        this.consume(data, newline + 1);
        this.waiting.shift();
        waiting.resolve(undefined);
        continue;
      }
      const [sha = '', type = '', sizeText = ''] = parts;
      const size = Number(sizeText);
      if (sha !== waiting.sha || !Number.isInteger(size) || size < 0) {
        this.stop(new Error(`git cat-file --batch answered ${JSON.stringify(header)} to ${waiting.sha}`));
        return;
      }
      // The content, then one newline.
      const end = newline + 1 + size;
      if (data.length < end + 1) {
        this.needed = end + 1;
        return;
      }
      const content = Buffer.from(data.subarray(newline + 1, end));
      this.consume(data, end + 1);
      this.waiting.shift();
      waiting.resolve({ type, content });
    }
  }

  /** Only a reader with reads waiting keeps the process alive; an idle one must not (a test, the bench's host). */
  private holdOpen(child: ChildProcessWithoutNullStreams, hold: boolean): void {
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref?: () => void; unref?: () => void }>) {
      if (hold) handle.ref?.();
      else handle.unref?.();
    }
  }

  private consume(data: Buffer, bytes: number): void {
    const rest = data.subarray(bytes);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    this.needed = 0;
  }

  private stop(error: Error): void {
    const child = this.child;
    this.child = undefined;
    const waiting = this.waiting;
    this.waiting = [];
    this.chunks = [];
    this.buffered = 0;
    this.needed = 0;
    if (child && child.exitCode === null && child.signalCode === null) child.kill();
    for (const w of waiting) w.reject(error);
  }
}
