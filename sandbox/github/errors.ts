// GitHub's error answers: `{ message, errors?, documentation_url, status }` with the status code.
import type { Json } from './json.ts';

export class GitHubError extends Error {
  constructor(readonly status: number, message: string, readonly errors?: Json[], readonly headers: Record<string, string> = {}, readonly documentationUrl = 'https://docs.github.com/rest') {
    super(message);
  }
}

export function notFound(): GitHubError {
  return new GitHubError(404, 'Not Found');
}

export function validationFailed(errors: Json[], message = 'Validation Failed'): GitHubError {
  return new GitHubError(422, message, errors);
}
