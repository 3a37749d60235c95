// The Node.js the CLI needs, checked by the bin before it imports anything that needs it (client-node's undici fails
// on Node 20 with a TypeError that names nothing useful). Plain JavaScript that old Nodes parse, loaded before tsx.
// package.json's `engines.node` says the same (a test holds them together).
export const minimumNodeVersion = '22.19.0';

/** Why this Node cannot run the CLI, or undefined when it can. `version` is like process.versions.node ("20.20.2"). */
export function nodeVersionProblem(version, executable) {
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  // A version this check cannot read is not refused: the CLI's own errors will tell.
  if (!have) return undefined;
  const need = minimumNodeVersion.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const part = Number(have[i + 1]);
    if (part > need[i]) return undefined;
    if (part < need[i]) {
      return `sts-volume-gitops needs Node.js ${minimumNodeVersion} or later (its Kubernetes client, @kubernetes/client-node 2, requires it); `
        + `this is Node.js ${version.replace(/^v/, '')}${executable ? ` (${executable})` : ''}.\n`
        + 'Install Node.js 22 (nvm install 22, or your package manager\'s nodejs 22), or run it from a clone of the repository '
        + 'with `npm run cli -- COMMAND`, which uses the Node.js 22 that `npm ci` installs.';
    }
  }
  return undefined;
}
