// What the Lambdas write while `act` runs: Powertools writes its logs and EMF blobs to stdout and stderr as JSON lines,
// one string each; anything else (the test runner's own reports) passes through.
export async function captureLambdaOutput<T>(act: () => Promise<T>): Promise<{ result: T; output: string; lines: string[] }> {
  const chunks: string[] = [];
  const [stdout, stderr] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
  const capture = (write: typeof stdout) => (chunk: string | Uint8Array): boolean => {
    if (typeof chunk !== 'string' || !chunk.startsWith('{')) return write(chunk);
    chunks.push(chunk);
    return true;
  };
  process.stdout.write = capture(stdout);
  process.stderr.write = capture(stderr);
  try {
    const result = await act();
    const output = chunks.join('');
    return { result, output, lines: output.split('\n').filter((l) => l !== '') };
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
}
