/**
 * The sealed columns (`SealedType`, src/platform/id-type.ts) for a test that reads or writes
 * rows itself: base64 text on SQLite and on a PostgreSQL store before migration 0066, `bytea`
 * after it, which a raw read gives as lowercase hex (src/platform/postgres.ts). These convert
 * here, in Node, independently of the service's own statements.
 */
import { sql } from 'kysely';
import type { Executor } from '../../src/platform/db.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';

/** The columns sealed by name, in every table that has them. */
const sealedFields = ['personal', 'evidence_salt', 'wrapped_key', 'salt', 'commitment'];

async function sealedAreBytes(db: Executor): Promise<boolean> {
  await resolveIdType(db);
  return knownTypes(db)?.sealed === 'bytea';
}

function mapSealed<T extends object>(row: T, change: (value: string) => unknown): T {
  const out = { ...row } as Record<string, unknown>;
  for (const field of sealedFields) {
    const value = out[field];
    if (typeof value === 'string') out[field] = change(value);
  }
  return out as T;
}

/** One row or several, each changed alike, on a store whose sealed columns are `bytea`. */
function onBytes(change: (value: string) => unknown) {
  async function each<T extends object>(db: Executor, rows: T[]): Promise<T[]>;
  async function each<T extends object>(db: Executor, row: T): Promise<T>;
  async function each<T extends object>(db: Executor, rows: T | T[]): Promise<T | T[]> {
    if (!(await sealedAreBytes(db))) return rows;
    return Array.isArray(rows)
      ? rows.map((row) => mapSealed(row, change))
      : mapSealed(rows, change);
  }
  return each;
}

/** Rows read raw, their sealed fields as the service reads them: base64. */
export const sealedAsBase64 = onBytes((hex) => Buffer.from(hex, 'hex').toString('base64'));

/**
 * Rows read raw, to be written back as they were (a test that takes a row out and puts it
 * back): their sealed fields as the bytes a `bytea` column takes.
 */
export const sealedAsRead = onBytes((hex) => Buffer.from(hex, 'hex'));

/** Rows a test writes, their sealed fields given as base64, as the store's columns take them. */
export const sealedToStore = onBytes((base64) => Buffer.from(base64, 'base64'));

/**
 * Every row of a table as kept, in the order of its tenant and id, its sealed fields as base64:
 * what a migration test compares before and after.
 */
export async function rowsByTenantAndId(db: Executor, table: string) {
  const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}
    order by tenant_id, id`.execute(db);
  return sealedAsBase64(db, rows);
}
