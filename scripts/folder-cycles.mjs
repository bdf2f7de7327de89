#!/usr/bin/env node
/**
 * `npm run lint:folders`: the folders of src/ stand on each other in one direction, and the top
 * of src/ holds folders (and at most one file). Each folder
 * (src/decisions, src/backoffice, …) is one node and each file at the top of src/ another; an
 * import from a file of one into a file of another is an edge. Any cycle among them fails the
 * lint, with the imports that make it. Type-only imports are erased at build time and make no
 * cycle at run time, so they do not count. dependency-cruiser reads the imports (with the
 * project's configuration, so they resolve as in `lint:deps`); its own folder-scoped rules count
 * type-only imports, and its `collapse` option does not recompute cycles, hence this check.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const cruised = JSON.parse(
  execFileSync(
    'npx',
    ['depcruise', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
  ),
);

/** The node a file belongs to: its folder under src/, or the file itself at the top. */
function nodeOf(path) {
  const match = /^src\/([^/]+)(\/)?/.exec(path);
  if (!match) return undefined;
  return match[2] ? `src/${match[1]}/` : path;
}

/** Edges between nodes, each with the imports that make it. */
const edges = new Map();
for (const module of cruised.modules) {
  const from = nodeOf(module.source);
  if (!from) continue;
  for (const dependency of module.dependencies) {
    if (dependency.dependencyTypes.includes('type-only')) continue;
    const to = nodeOf(dependency.resolved);
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    const targets = edges.get(from);
    if (!targets.has(to)) targets.set(to, []);
    targets.get(to).push(`${module.source} -> ${dependency.resolved}`);
  }
}

/** Tarjan's strongly connected components: every group of nodes that reach each other. */
function components() {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of edges.get(node)?.keys() ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node), low.get(target)));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node), index.get(target)));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

const cycles = components();
for (const cycle of cycles) {
  console.error(`folder cycle: ${cycle.join(', ')}`);
  for (const from of cycle) {
    for (const [to, imports] of edges.get(from) ?? []) {
      if (!cycle.includes(to)) continue;
      console.error(`  ${from} -> ${to}`);
      for (const line of imports) console.error(`    ${line}`);
    }
  }
}
// The top of src/ holds folders, and at most one file: the tree shows the architecture.
const topFiles = readdirSync('src', { withFileTypes: true }).filter((entry) => entry.isFile());
if (topFiles.length > 1) {
  console.error(
    `src/ holds ${topFiles.length} files at its top: ${topFiles.map((f) => f.name).join(', ')}`,
  );
}
if (cycles.length > 0 || topFiles.length > 1) process.exit(1);
console.log(`no folder cycle among ${new Set([...edges.keys()]).size} folders and files of src/`);
