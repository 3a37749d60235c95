// Types of bin/node-version.js (plain JavaScript, so that Nodes too old for the CLI can run it).
export declare const minimumNodeVersion: string;
export declare function nodeVersionProblem(version: string, executable?: string): string | undefined;
