#!/usr/bin/env node
/**
 * `npm run lint:tables`: each folder of src/ queries only the tables it owns (those its
 * `table.ts` adds to the store's `Database`), and the other folders' tables its `table.ts` names
 * in `Reads` (to read) and `Writes` (to write); for anything else it asks the folder's service. Queries are found by the table names they pass to
 * Kysely (`selectFrom('decisions as d')`, joins, `insertInto`, …) and those raw SQL names after
 * `from`, `join`, `into` and `update`; migrations (history, frozen) are not checked. A table a
 * query gets by name from a kind's declaration (the write path's generic parts) is the kind's.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('../src/', import.meta.url).pathname;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'migrations' ? [] : files(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

const folders = readdirSync(root).filter((name) => statSync(join(root, name)).isDirectory());
const owners = new Map();
const reads = new Map();
const writes = new Map();
for (const folder of folders) {
  const tableFile = join(root, folder, 'table.ts');
  let text;
  try {
    text = readFileSync(tableFile, 'utf8');
  } catch {
    continue;
  }
  const declared = /interface Database \{([^}]*)\}/.exec(text)?.[1] ?? '';
  for (const match of declared.matchAll(/^\s*(\w+):/gm)) owners.set(match[1], folder);
  const listed = (name) =>
    new Set(
      [
        ...(new RegExp(`export type ${name} =([^;]*);`).exec(text)?.[1] ?? '').matchAll(/'(\w+)'/g),
      ].map((m) => m[1]),
    );
  reads.set(folder, listed('Reads'));
  writes.set(folder, listed('Writes'));
}
// The platform's own tables (platform/database.ts).
const platformTables = /interface Database \{([^}]*)\}/.exec(
  readFileSync(join(root, 'platform', 'database.ts'), 'utf8'),
)?.[1];
for (const match of (platformTables ?? '').matchAll(/^\s*(\w+):/gm))
  owners.set(match[1], 'platform');

const builderWrite = /\b(insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*['"`](\w+)/g;
const builderRead = /\b(selectFrom|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*['"`](\w+)/g;
const rawWrite = /\b(?:insert\s+into|update|delete\s+from)\s+(\w+)/gi;
const rawRead = /\b(?:from|join)\s+(\w+)/gi;

const problems = [];
for (const file of files(root)) {
  const folder = relative(root, file).split('/')[0];
  if (!folders.includes(folder)) continue;
  const text = readFileSync(file, 'utf8');
  const raw = [...text.matchAll(/sql(?:<[^`]*?>)?`([^`]*)`/g)].map((m) => m[1]).join('\n');
  const used = [
    ...[...text.matchAll(builderWrite)].map((m) => ({ table: m[2], write: true })),
    ...[...text.matchAll(builderRead)].map((m) => ({ table: m[2], write: false })),
    ...[...raw.matchAll(rawWrite)].map((m) => ({ table: m[1], write: true })),
    ...[...raw.matchAll(rawRead)].map((m) => ({ table: m[1], write: false })),
  ].filter(({ table }) => owners.has(table));
  for (const { table, write } of used) {
    const owner = owners.get(table);
    if (owner === folder) continue;
    const declared = write ? writes.get(folder) : reads.get(folder);
    if (declared?.has(table) || (!write && writes.get(folder)?.has(table))) continue;
    const list = write ? 'Writes' : 'Reads';
    problems.push(
      `${relative(process.cwd(), file)}: ${write ? 'writes' : 'reads'} ${table}, a table of ` +
        `${owner}/, not in ${folder}/table.ts's ${list}`,
    );
  }
}
const unique = [...new Set(problems)];
if (unique.length > 0) {
  console.error(
    `${unique.length} quer${unique.length === 1 ? 'y' : 'ies'} on another folder's tables:`,
  );
  for (const problem of unique) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(
  `every folder of src/ queries its own tables (${owners.size} tables, ${folders.length} folders)`,
);
