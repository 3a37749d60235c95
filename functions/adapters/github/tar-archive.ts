// The regular files of a gzipped tar, as GitHub's tarball (git archive) writes it: ustar headers, pax extended headers
// for long paths, the leading `{owner}-{repo}-{sha}/` directory dropped. Only what reading a repository needs; any
// other entry (directories, links, pax globals) is skipped, and a malformed archive is an error, never a partial read.
import { gunzipSync } from 'node:zlib';

export interface ArchivedFile {
  /** The path in the repository (the archive's top directory removed). */
  path: string;
  content: Buffer;
}

const block = 512;

export class TarArchiveError extends Error {
  constructor(reason: string) {
    super(`not a readable tar archive: ${reason}`);
    this.name = 'TarArchiveError';
  }
}

/** The files of `gzipped`, at most `maxBytes` once unpacked (an archive is read whole, in memory). */
export function readTarball(gzipped: Buffer, maxBytes: number): ArchivedFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gzipped, { maxOutputLength: maxBytes });
  } catch (error) {
    throw new TarArchiveError(error instanceof Error ? error.message : String(error));
  }
  return tarFiles(tar).map((file) => ({ ...file, path: file.path.slice(file.path.indexOf('/') + 1) }))
    .filter((file) => file.path !== '');
}

/** The regular files of an uncompressed tar, with their full paths in the archive. */
export function tarFiles(tar: Buffer): ArchivedFile[] {
  const files: ArchivedFile[] = [];
  let offset = 0;
  let paxPath: string | undefined;
  let longName: string | undefined;
  while (offset + block <= tar.length) {
    const header = tar.subarray(offset, offset + block);
    if (header.every((byte) => byte === 0)) return files;
    checkChecksum(header, offset);
    const size = octal(header.subarray(124, 136), offset);
    const type = String.fromCharCode(header[156] ?? 0);
    const dataStart = offset + block;
    const dataEnd = dataStart + size;
    if (dataEnd > tar.length) throw new TarArchiveError(`entry at byte ${offset} runs past the end`);
    const data = tar.subarray(dataStart, dataEnd);
    offset = dataStart + Math.ceil(size / block) * block;
    if (type === 'x') {
      paxPath = paxRecords(data).get('path') ?? paxPath;
      continue;
    }
    if (type === 'L') {
      longName = cString(data);
      continue;
    }
    const name = paxPath ?? longName ?? ustarName(header);
    paxPath = undefined;
    longName = undefined;
    // '0' and NUL are regular files; everything else (directories, links, the pax global header) is not a file.
    // A view of the archive, not a copy: a caller keeps what it needs.
    if (type === '0' || type === '\0') files.push({ path: name, content: data });
  }
  throw new TarArchiveError('no end-of-archive marker');
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
