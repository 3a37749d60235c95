// No module of the product, the sandboxes, the stack or the bench imports itself back through others: a circle makes
// load order matter and hides which side owns a type (three small ones were broken: marked-comments/review-host,
// run-pass/records/resume, the GitHub sandbox's errors/state/rate-limit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const roots = ['functions', 'sandbox', 'infra', 'bench'];
const relativeImport = /(?:import|export)[^'";]*?from\s+'(\.{1,2}\/[^']+)'/g;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return full.endsWith('.ts') ? [full] : [];
  });
}

function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    graph.set(file, [...text.matchAll(relativeImport)].map((match) => path.normalize(path.join(path.dirname(file), match[1]!))));
  }
  return graph;
}

/** Tarjan's strongly connected components with more than one module (or a module importing itself). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (module: string): void => {
    index.set(module, next); low.set(module, next); next++;
    stack.push(module); onStack.add(module);
    for (const dependency of graph.get(module) ?? []) {
      if (!graph.has(dependency)) continue;
      if (!index.has(dependency)) {
        visit(dependency);
        low.set(module, Math.min(low.get(module)!, low.get(dependency)!));
      } else if (onStack.has(dependency)) {
        low.set(module, Math.min(low.get(module)!, index.get(dependency)!));
      }
    }
    if (low.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do { member = stack.pop()!; onStack.delete(member); component.push(member); } while (member !== module);
    if (component.length > 1 || (graph.get(module) ?? []).includes(module)) found.push(component.sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

test('no import circles among the product, sandbox, infra and bench modules', () => {
  const graph = importGraph(roots.flatMap(sourceFiles));
  assert.ok(graph.size > 100, 'the walk found the sources');
  assert.deepEqual(circles(graph), []);
});

test('the circle finder finds a circle', () => {
  const graph = new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']], ['d.ts', ['a.ts']]]);
  assert.deepEqual(circles(graph), [['a.ts', 'b.ts', 'c.ts']]);
});
