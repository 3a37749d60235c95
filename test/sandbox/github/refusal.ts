// The error Octokit throws for a refused request (its RequestError), read structurally.
import assert from 'node:assert/strict';

export interface Refusal {
  status: number;
  message: string;
  headers: Record<string, string | undefined>;
  data: unknown;
}

/** Awaits a request that must fail with an HTTP answer, and returns what Octokit reports of it. */
export async function refusal(request: Promise<unknown>): Promise<Refusal> {
  try {
    await request;
  } catch (error) {
    const e = error as { name?: string; status?: number; message?: string; response?: { headers?: Record<string, string | undefined>; data?: unknown } };
    assert.equal(e.name, 'HttpError', `expected Octokit's RequestError, got ${String(error)}`);
    assert.ok(e.response, `expected an HTTP answer, got ${String(error)}`);
    return { status: e.status ?? 0, message: e.message ?? '', headers: e.response.headers ?? {}, data: e.response.data };
  }
  assert.fail('expected the request to be refused');
}
