// A large file for tests, stored in seconds: a text repeated to any size, written as git writes a loose object (zlib of
// `blob <size>\0` and the bytes, named by their SHA-1) while it is generated, never held whole. Repeated text deflates
// to about 1% (a 1 GiB file is some 14 MB on disk), git reads it as any other blob (`cat-file`, `ls-tree -l` give its
// real size), and `git hash-object` of the same bytes gives the same name: only the writing is quicker (git's own
// hash-object takes 10 s for 1 GiB, mostly its collision-detecting SHA-1).
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { createDeflate } from 'node:zlib';

/** A file's content given as `repeat` written over and over to `bytes` bytes (the last copy cut short). */
export interface RepeatedText {
  repeat: string;
  bytes: number;
}

/** Writes the blob into the bare repository at `gitDir`; returns its SHA. */
export async function writeRepeatedBlob(gitDir: string, content: RepeatedText): Promise<string> {
  const unit = Buffer.from(content.repeat);
  if (unit.length === 0 || !Number.isSafeInteger(content.bytes) || content.bytes < 0) throw new Error('a repeated blob needs a text and a size');
  // About 1 MiB of whole copies, so that consecutive chunks continue the repetition.
  const chunk = Buffer.alloc(Math.max(1, Math.floor((1024 * 1024) / unit.length)) * unit.length);
  for (let at = 0; at < chunk.length; at += unit.length) unit.copy(chunk, at);
  const header = Buffer.from(`blob ${content.bytes}\0`);
  const hash = createHash('sha1').update(header);
  const temporary = join(gitDir, 'objects', `tmp_repeated_${randomBytes(6).toString('hex')}`);
  const deflate = createDeflate({ level: 1 });
  const file = createWriteStream(temporary);
  deflate.pipe(file);
  const write = async (bytes: Buffer): Promise<void> => {
    if (!deflate.write(bytes)) await once(deflate, 'drain');
  };
  try {
    await write(header);
    for (let left = content.bytes; left > 0; left -= chunk.length) {
      const bytes = left >= chunk.length ? chunk : chunk.subarray(0, left);
      hash.update(bytes);
      await write(bytes);
    }
    deflate.end();
    await once(file, 'close');
    const sha = hash.digest('hex');
    const directory = join(gitDir, 'objects', sha.slice(0, 2));
    await mkdir(directory, { recursive: true });
    const target = join(directory, sha.slice(2));
    if (await stat(target).then(() => true, () => false)) await rm(temporary);
    else await rename(temporary, target);
    return sha;
  } catch (error) {
    deflate.destroy();
    file.destroy();
    await rm(temporary, { force: true });
    throw error;
  }
}
