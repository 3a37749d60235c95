// Hostile and mistaken configurations: typos, wrong types, secrets pasted into the wrong field, files that are not a
// configuration at all. Each is a ConfigError whose problems name the field and what to do, in a few readable lines,
// and never echo a value that looks like a credential.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configProblems } from '../support/config-text.ts';

const token = 'ghp_Zq8X2mN4vB7cL1kJ9hG3fD5sA6pO0iU2yT4r';
const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n-----END RSA PRIVATE KEY-----';
const secrets = [token, awsSecret, 'MIIEowIBAAKCAQEA', 'PRIVATE KEY'];

const good = `targets:
  - name: prod
    source:
      github: { owner: acme, repo: gitops, branch: main, paths: ["k8s/**/*.yaml"], token: { env: GH_TOKEN } }
    cluster:
      eks: { name: prod, region: eu-west-1 }
    namespaces: { default: apps, allow: [db] }
`;

const cases: Array<[name: string, text: string, expected: RegExp]> = [
  ['a typo in the top-level key', good.replace('targets:', 'targts:'), /unknown field "targts"|targets is required/],
  ['a typo in branch', good.replace('branch: main', 'brnch: main'), /source\.github(\.branch is required| has an unknown field "brnch")/],
  ['a typo in pullRequests', `${good}    pullRequest: { validate: false }\n`, /target "prod" has an unknown field "pullRequest"/],
  ['namespace instead of namespaces', good.replace('namespaces:', 'namespace:'), /unknown field "namespace"|namespaces is required/],
  ['allow as a string', good.replace('allow: [db]', 'allow: db'), /target "prod": namespaces\.allow must be array/],
  ['paths as a string', good.replace('paths: ["k8s/**/*.yaml"]', 'paths: "k8s/**/*.yaml"'), /source\.github\.paths must be array/],
  ['validate: yes (a string in YAML 1.2)', `${good}    pullRequests: { validate: yes }\n`, /pullRequests\.validate must be boolean, not string "yes"/],
  ['a token pasted into token.env', good.replace('env: GH_TOKEN', `env: ${token}`), /token\.env must name where the credential is kept.*\(not shown\)/],
  ['a private key pasted into privateKey.secret', good.replace('token: { env: GH_TOKEN }', `app: { appId: 1, installationId: 2, privateKey: { secret: ${JSON.stringify(pem)} } }`), /privateKey\.secret/],
  ['a token pasted into the owner field', good.replace('owner: acme', `owner: ${token}`), /^target "prod": source\.github\.owner \(a value that looks like a credential, not shown\) does not have the expected form/],
  ['an AWS secret key as the cluster name', good.replace('name: prod, region', `name: "${awsSecret}", region`), /^target "prod": cluster\.eks\.name \(a value that looks like a credential, not shown\) does not have the expected form/],
  ['a token in the target name', good.replace('name: prod\n', `name: ${token}\n`), /targets\[0\]\.name/],
  ['a private key file passed as the configuration', `${pem}\n`, /\(top level\) must be object/],
  ['a YAML error on a line holding a token', good.replace('env: GH_TOKEN }', `env: GH_TOKEN }\n      password: ${token}\n     bad: [`), /^not valid YAML or JSON at line \d+, column \d+/],
  ['tabs for indentation', good.replace('    source:', '\tsource:'), /^not valid YAML or JSON at line 3, column 1: tab characters must not be used in indentation$/],
  ['JSON with a trailing comma', '{"targets": [],}', /^not valid YAML or JSON|targets must list at least 1 item/],
  ['duplicate keys', good.replace('branch: main', 'branch: main, branch: dev'), /^not valid YAML or JSON at line \d+, column \d+: duplicated mapping key/],
  ['an empty file', '', /^not valid YAML or JSON: expected a document, but the input is empty$/],
  ['binary garbage', Buffer.from([0x00, 0xff, 0xfe, 0x13, 0x37, 0x00, 0x0a]).toString('utf8'), /not valid YAML or JSON|must be object/],
  ['an alias bomb', `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n`, /unknown field|targets is required/],
];

const problemsOf = (text: string): string[] => configProblems(text, 'hostile.yaml');

describe('hostile configurations', () => {
  for (const [name, text, expected] of cases) {
    it(`explains ${name} without echoing secrets`, () => {
      const problems = problemsOf(text);
      assert.ok(problems.length > 0 && problems.length <= 20, `${problems.length} problems`);
      assert.ok(problems.some((p) => expected.test(p)), `got: ${JSON.stringify(problems)}`);
      for (const problem of problems) {
        assert.ok(problem.length <= 300, `a problem of ${problem.length} characters`);
        for (const secret of secrets) assert.ok(!problem.includes(secret), `leaked ${secret.slice(0, 8)}… in: ${problem}`);
      }
    });
  }
});
