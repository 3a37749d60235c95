// What the configuration tests share: the text of a config with one local target, and the problems parseConfig
// reports for a text (one helper, so each test states only the fields it is about).
import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../functions/domain/config.ts';

/** The problems parseConfig reports for `text`; a text it accepts, or another error, fails the test. */
export function configProblems(text: string, file = 'test.yaml'): string[] {
  try {
    parseConfig(text, file, '/etc/sts');
  } catch (error) {
    assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`);
    return error.problems;
  }
  assert.fail('expected a ConfigError, but the configuration was accepted');
}

/**
 * A config with one target `prod` reading ./repo's k8s/**\/*.yaml with ./kubeconfig; `fields` are more of the
 * target's fields, indented four spaces. `allow` writes its namespaces line; without it, `fields` give their own.
 */
export function localTargetConfig(fields: string, allow?: readonly string[]): string {
  const namespaces = allow === undefined ? '' : `    namespaces: { allow: [${allow.join(', ')}] }\n`;
  return `
targets:
  - name: prod
    source:
      local: { directory: ./repo, paths: ["k8s/**/*.yaml"] }
    cluster:
      kubeconfig: { path: ./kubeconfig }
${namespaces}${fields}`;
}
