// The regular files of a gzipped tar, as GitHub's tarball (git archive) writes it: ustar headers, pax extended headers
// for long paths, the leading `{owner}-{repo}-{sha}/` directory dropped. Read as it streams in: only the files the
// caller keeps are held, every other entry's bytes pass through (inflated, counted, never buffered), so a large file
// in the archive costs time, not memory. Any other entry (directories, links, pax globals) is skipped, and a
// malformed archive is an error, never a partial read.
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';

export interface ArchivedFile {
  /** The path in the repository (the archive's top directory removed). */
  path: string;
  content: Buffer;
}

const block = 512;
/** A pax header or GNU long name is a path: anything longer is not an archive git wrote. */
const maxMetadataBytes = 64 * 1024;

export class TarArchiveError extends Error {
  constructor(reason: string) {
    super(`not a readable tar archive: ${reason}`);
    this.name = 'TarArchiveError';
  }
}

/**
 * The files of the gzipped tar `gzipped` that `keep` wants (asked with the repository path and the entry's size), the
 * archive being at most `maxBytes` once unpacked. The files are whole copies: nothing else of the archive is held.
 */
export async function readTarball(gzipped: Readable, keep: (path: string, bytes: number) => boolean, maxBytes: number): Promise<ArchivedFile[]> {
  const reader = new TarReader((name, bytes) => {
    const path = name.slice(name.indexOf('/') + 1);
    return path !== '' && keep(path, bytes);
  });
  let unpacked = 0;
  // The pipeline rejects with the abort of the streams it tears down; what stopped the reading is the reason.
  let stopped: unknown;
  try {
    await pipeline(gzipped, createGunzip(), async (tar: AsyncIterable<Buffer>) => {
      try {
        for await (const chunk of tar) {
          unpacked += chunk.length;
          if (unpacked > maxBytes) throw new TarArchiveError(`it unpacks to more than ${maxBytes} bytes`);
          reader.write(chunk);
        }
      } catch (error) {
        stopped = error;
        throw error;
      }
    });
  } catch (error) {
    const reason = stopped ?? error;
    throw reason instanceof TarArchiveError ? reason : new TarArchiveError(reason instanceof Error ? reason.message : String(reason));
  }
  return reader.end().map((file) => ({ ...file, path: file.path.slice(file.path.indexOf('/') + 1) }));
}

interface EntryData {
  /** What the bytes are: a kept file's content, a pax header, a GNU long name, or bytes to pass over. */
  kind: 'file' | 'pax' | 'long-name' | 'skip';
  name: string;
  remaining: number;
  parts: Buffer[];
  /** Zero bytes after the data, to the next 512-byte block. */
  padding: number;
}

/** A tar read chunk by chunk: `write` each uncompressed chunk, then `end` for the kept files (full archive paths). */
export class TarReader {
  private readonly files: ArchivedFile[] = [];
  private header = Buffer.alloc(0);
  private entry: EntryData | undefined;
  private padding = 0;
  private offset = 0;
  private ended = false;
  private paxPath: string | undefined;
  private longName: string | undefined;

  constructor(private readonly keep: (name: string, bytes: number) => boolean) {}

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.ended) {
      let n: number;
      if (this.padding > 0) {
        n = Math.min(this.padding, chunk.length - at);
        this.padding -= n;
      } else if (this.entry) {
        const entry = this.entry;
        n = Math.min(entry.remaining, chunk.length - at);
        if (entry.kind !== 'skip') entry.parts.push(chunk.subarray(at, at + n));
        entry.remaining -= n;
        if (entry.remaining === 0) this.finish(entry);
      } else {
        n = Math.min(block - this.header.length, chunk.length - at);
        this.header = Buffer.concat([this.header, chunk.subarray(at, at + n)]);
        if (this.header.length === block) {
          const header = this.header;
          this.header = Buffer.alloc(0);
          this.start(header, this.offset + n - block);
        }
      }
      at += n;
      this.offset += n;
    }
  }

  /** The kept files; an error when the archive stopped short of its end-of-archive marker. */
  end(): ArchivedFile[] {
    if (this.entry) throw new TarArchiveError(`entry ${JSON.stringify(this.entry.name)} runs past the end at byte ${this.offset}`);
    if (!this.ended) throw new TarArchiveError('no end-of-archive marker');
    return this.files;
  }

  /** A header block read at byte `offset` of the archive. */
  private start(header: Buffer, offset: number): void {
    if (header.every((byte) => byte === 0)) {
      this.ended = true;
      return;
    }
    checkChecksum(header, offset);
    const size = octal(header.subarray(124, 136), offset);
    const type = String.fromCharCode(header[156] ?? 0);
    let kind: EntryData['kind'] = 'skip';
    let name = '';
    if (type === 'x' || type === 'L') {
      if (size > maxMetadataBytes) throw new TarArchiveError(`entry at byte ${offset} has a ${size}-byte ${type === 'x' ? 'pax header' : 'long name'}`);
      kind = type === 'x' ? 'pax' : 'long-name';
    } else if (type !== 'g') {
      name = this.paxPath ?? this.longName ?? ustarName(header);
      this.paxPath = undefined;
      this.longName = undefined;
      // '0' and NUL are regular files; everything else (directories, links, the pax global header) is not a file.
      if ((type === '0' || type === '\0') && this.keep(name, size)) kind = 'file';
    }
    const entry: EntryData = { kind, name, remaining: size, parts: [], padding: Math.ceil(size / block) * block - size };
    if (size === 0) this.finish(entry);
    else this.entry = entry;
  }

  private finish(entry: EntryData): void {
    this.entry = undefined;
    this.padding = entry.padding;
    const data = Buffer.concat(entry.parts);
    if (entry.kind === 'file') this.files.push({ path: entry.name, content: data });
    else if (entry.kind === 'pax') this.paxPath = paxRecords(data).get('path') ?? this.paxPath;
    else if (entry.kind === 'long-name') this.longName = cString(data);
  }
}

function ustarName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const isUstar = header.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = isUstar ? cString(header.subarray(345, 500)) : '';
  return prefix ? `${prefix}/${name}` : name;
}

function cString(bytes: Buffer): string {
  const end = bytes.indexOf(0);
  return bytes.subarray(0, end < 0 ? bytes.length : end).toString('utf8');
}

function octal(field: Buffer, offset: number): number {
  const text = cString(field).trim();
  if (!/^[0-7]+$/.test(text)) throw new TarArchiveError(`entry at byte ${offset} has no octal size`);
  return parseInt(text, 8);
}

function checkChecksum(header: Buffer, offset: number): void {
  const stored = octal(header.subarray(148, 156), offset);
  let sum = 0;
  // The checksum field itself counts as eight spaces.
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i] ?? 0;
  if (sum !== stored) throw new TarArchiveError(`entry at byte ${offset} fails its header checksum`);
}

/** Pax records: `<length> <key>=<value>\n`, the length counting the whole record. */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length = Number(data.subarray(at, space).toString('latin1'));
    if (space < 0 || !Number.isInteger(length) || length <= 0 || at + length > data.length) throw new TarArchiveError('malformed pax header');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}
