// Blob texts by SHA, least recently used first out, bounded in bytes. Blobs are immutable, so a warm process (a warm
// Lambda container) keeps what it read for the next pass; the bound keeps what a pull request adds from staying: its
// files are read once, then pushed out by the files every pass reads again.

export class BlobCache {
  /** Insertion order is use order: a hit is moved to the end, the first entry is the least recently used. */
  private readonly entries = new Map<string, { text: string; bytes: number }>();
  private held = 0;

  constructor(readonly maxBytes: number) {}

  /** The blob's text, now the most recently used; undefined when not held. */
  get(sha: string): string | undefined {
    const entry = this.entries.get(sha);
    if (entry === undefined) return undefined;
    this.entries.delete(sha);
    this.entries.set(sha, entry);
    return entry.text;
  }

  /** Keeps a blob of `bytes` bytes (its size in Git), dropping the least recently used until all fit. */
  set(sha: string, text: string, bytes: number): void {
    const previous = this.entries.get(sha);
    if (previous !== undefined) {
      this.entries.delete(sha);
      this.held -= previous.bytes;
    }
    if (bytes > this.maxBytes) return;
    this.entries.set(sha, { text, bytes });
    this.held += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.held -= entry.bytes;
    }
  }

  /** Bytes held (the blobs' sizes in Git; V8 keeps text at one or two bytes a character). */
  get bytes(): number {
    return this.held;
  }

  clear(): void {
    this.entries.clear();
    this.held = 0;
  }
}
