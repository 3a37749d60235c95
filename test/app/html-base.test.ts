// Links in statuses and comments point where people read the repository: github.com, or a GitHub Enterprise Server's
// own host when the config's apiUrl is that server's `/api/v3`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { htmlBaseOf } from '../../functions/app/open-target.ts';

describe('the web address links are made from', () => {
  const cases: Array<[string | undefined, string]> = [
    [undefined, 'https://github.com'],
    ['https://api.github.com', 'https://github.com'],
    ['https://ghe.example.com/api/v3', 'https://ghe.example.com'],
    ['https://ghe.example.com:8443/api/v3/', 'https://ghe.example.com:8443'],
    ['http://127.0.0.1:41234', 'https://github.com'],
  ];
  for (const [apiUrl, expected] of cases) {
    it(`${apiUrl ?? 'no apiUrl'} -> ${expected}`, () => assert.equal(htmlBaseOf(apiUrl), expected));
  }
});
