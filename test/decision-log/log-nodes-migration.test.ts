import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appendBatch } from '../../src/decision-log/append.js';
import { readNodes } from '../../src/decision-log/nodes.js';
import { fromHex, nodeKey, readStoredNodes } from '../../src/decision-log/repository.js';
import { consistency } from '../../src/decision-log/service.js';
import { type Db, isPostgres } from '../../src/platform/db.js';
import { newId } from '../../src/platform/ids.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import {
  assembleProof,
  consistencyPlan,
  inclusionPlan,
  leafHash,
  parseSignerKey,
  rootOf,
  verifyConsistency,
  verifyInclusion,
} from '../../src/proof/index.js';
import { testDataKey, testLogKeys } from '../helpers/app.js';
import { migrateBefore } from '../helpers/schema-history.js';
import { stores, useBareStore } from '../helpers/stores.js';

const signer = (() => {
  const key = parseSignerKey(testLogKeys.signerKey);
  if (!key.ok) throw new Error(key.reason);
  return key.value;
})();

/**
 * Writes the hash of every complete subtree of these levels, as an earlier release kept them,
 * from the RFC's own recursion over the leaves' hashes.
 */
async function writeSubtrees(
  db: Db,
  logId: string,
  hashes: readonly Uint8Array[],
  levels: readonly number[],
): Promise<void> {
  for (const level of levels) {
    const width = 2 ** level;
    for (let index = 0; (index + 1) * width <= hashes.length; index += 1) {
      const hash = rootOf(hashes.slice(index * width, (index + 1) * width));
      await db
        .insertInto('tlog_nodes')
        .values({ log_id: logId, level, idx: index, hash: Buffer.from(hash).toString('hex') })
        .execute();
    }
  }
}

/** How many nodes of the log are kept below (`<`) or from (`>=`) a level. */
async function countNodes(db: Db, logId: string, op: '<' | '>=', level: number): Promise<number> {
  const { n } = await db
    .selectFrom('tlog_nodes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('log_id', '=', logId)
    .where('level', op, level)
    .executeTakeFirstOrThrow();
  return Number(n);
}

describe.each(stores)('a log kept by release 0.3.0, upgraded on $name', (store) => {
  const bare = useBareStore(store);

  it('keeps the nodes of 16 leaves and more, removes the rest, and every proof is the one the full table gave', async () => {
    const { db } = bare;
    // The schema of 0.3.0: every migration before 0048.
    await migrateBefore(db, '0048');

    // 100 leaves appended in three batches, so three checkpoints (37, 77, 100).
    const logId = randomUUID();
    const leaves = Array.from({ length: 100 }, (_, i) => `leaf ${i} of ${logId}\n`);
    const hashes = leaves.map((leaf) => leafHash(Buffer.from(leaf, 'utf8')));
    const sizes = [37, 77, 100];
    let queued = 0;
    for (const size of sizes) {
      for (; queued < size; queued += 1) {
        await db
          .insertInto('tlog_pending')
          .values({
            log_id: logId,
            record_id: `r${String(queued).padStart(6, '0')}`,
            leaf: leaves[queued] as string,
            queued_at: '2026-01-01T00:00:00.000Z',
          })
          .execute();
      }
      await appendBatch(db, logId, signer);
    }
    // As 0.3.0 kept the table: the hash of every complete subtree, here from the RFC's own
    // recursion over its leaves (the rows this release no longer writes are added).
    await writeSubtrees(db, logId, hashes, [0, 1, 2, 3, 4, 5]);
    const count = (op: '<' | '>=') => countNodes(db, logId, op, 4);
    // 100 + 50 + 25 + 12 below level 4; 6 + 3 + 1 from level 4 up.
    expect([await count('<'), await count('>=')]).toEqual([187, 10]);

    // Every proof a customer or a witness could have been given, from the full table.
    const proofs = async (read: typeof readNodes) => {
      const all: Uint8Array[][] = [];
      for (const size of sizes) {
        for (let index = 0; index < size; index += 1) {
          const plan = inclusionPlan(index, size);
          const nodes = await read(db, logId, plan.nodes);
          all.push(assembleProof(plan, (n) => nodes.get(nodeKey(n))));
        }
      }
      for (const [i, from] of sizes.entries()) {
        for (const to of sizes.slice(i + 1)) {
          const plan = consistencyPlan(from, to);
          const nodes = await read(db, logId, plan.nodes);
          all.push(assembleProof(plan, (n) => nodes.get(nodeKey(n))));
        }
      }
      return all;
    };
    const kept = await proofs(readStoredNodes);

    // 0048 first, then the ones made since.
    expect((await migrateToLatest(db, testDataKey))[0]).toBe('0048-log-nodes-from-level-4');
    // 0068 then keeps those from level 6 up: the first 64 leaves.
    expect([await count('<'), await count('>=')]).toEqual([0, 1]);
    // 0048 raised it to 0.3.0, 0052 (the leaves' texts) to 0.4.0, 0053 (queued hashes) to 0.5.0,
    // 0058 (PostgreSQL's uuid ids) to 0.6.0, 0059 (the decisions' copy of the text's hash) to 0.7.0,
    // 0060 (the cookie choices') to 0.8.0, 0061 (PostgreSQL's decision times) to 0.9.0, 0062
    // (PostgreSQL's log leaves and times) to 0.10.0, 0063 (its subjects' look-ups) to 0.11.0,
    // 0064 (its states' keys) to 0.12.0, 0065 (its control states' keys) to 0.13.0, 0066 (its
    // sealed columns) to 0.14.0, 0068 (the nodes of levels 4 and 5) to 0.15.0,
    // 0069 (the log's entries by number) to 0.16.0, 0070 (the subjects' times) to 0.17.0,
    // 0071 (the states without their tenant) to 0.18.0, 0073 (SQLite's) to 0.19.0.
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
    expect(await proofs(readNodes)).toEqual(kept);
    // And they verify against the roots of the RFC.
    let at = 0;
    for (const size of sizes) {
      for (let index = 0; index < size; index += 1) {
        const proof = kept[at++] as Uint8Array[];
        expect(
          verifyInclusion(
            hashes[index] as Uint8Array,
            index,
            size,
            proof,
            rootOf(hashes.slice(0, size)),
          ),
        ).toBe(true);
      }
    }

    // The log goes on: 20 more leaves, with only their nodes from level 6 up kept.
    for (; queued < 120; queued += 1) {
      const leaf = `leaf ${queued} of ${logId}\n`;
      leaves.push(leaf);
      hashes.push(leafHash(Buffer.from(leaf, 'utf8')));
      await db
        .insertInto('tlog_pending')
        .values({
          log_id: logId,
          record_id: `r${String(queued).padStart(6, '0')}`,
          leaf,
          queued_at: '2026-01-02T00:00:00.000Z',
        })
        .execute();
    }
    const appended = await appendBatch(db, logId, signer);
    expect(appended).toMatchObject({ appended: 20, size: 120 });
    expect(fromHex('root' in appended ? appended.root : '')).toEqual(rootOf(hashes));
    // 1 node of level 6 (leaves 0 to 63): 120 leaves complete no other from level 6 up.
    expect([await count('<'), await count('>=')]).toEqual([0, 1]);
    const { proof } = await consistency(db, logId, 100, 120);
    expect(
      verifyConsistency(
        100,
        120,
        proof.map((p) => new Uint8Array(Buffer.from(p, 'base64'))),
        rootOf(hashes.slice(0, 100)),
        rootOf(hashes),
      ),
    ).toBe(true);
  });
});

describe.each(stores)('a log kept by release 0.15.0, upgraded on $name', (store) => {
  const bare = useBareStore(store);

  it('keeps the nodes of 64 leaves and more, removes those of 16 and 32, gives their space back, and every proof still verifies', async () => {
    const { db } = bare;
    // The schema of 0.15.0: every migration before 0068.
    await migrateBefore(db, '0068');

    // 1,024 leaves appended in three batches, so three checkpoints.
    const logId = newId();
    const leaves = Array.from({ length: 1024 }, (_, i) => `leaf ${i} of ${logId}\n`);
    const hashes = leaves.map((leaf) => leafHash(Buffer.from(leaf, 'utf8')));
    const sizes = [300, 700, 1024];
    let queued = 0;
    for (const size of sizes) {
      const rows = [];
      // Queue order is by time, then id: ids in the order made keep the leaves in order.
      for (; queued < size; queued += 1) {
        rows.push({
          log_id: logId,
          record_id: newId(),
          leaf: leaves[queued] as string,
          queued_at: '2026-01-01T00:00:00.000Z',
        });
      }
      for (let at = 0; at < rows.length; at += 100) {
        await db
          .insertInto('tlog_pending')
          .values(rows.slice(at, at + 100))
          .execute();
      }
      expect(await appendBatch(db, logId, signer)).toMatchObject({ size });
    }
    // As 0.15.0 kept the table: the subtrees of 16 and 32 leaves too, here from the RFC's own
    // recursion over the leaves.
    await writeSubtrees(db, logId, hashes, [4, 5]);
    const count = (op: '<' | '>=') => countNodes(db, logId, op, 6);
    // 64 + 32 of levels 4 and 5; 16 + 8 + 4 + 2 + 1 from level 6 up.
    expect([await count('<'), await count('>=')]).toEqual([96, 31]);
    const tableBytes = async () =>
      isPostgres(db)
        ? Number(
            (await sql<{ b: string }>`select pg_relation_size('tlog_nodes') as b`.execute(db))
              .rows[0]?.b,
          )
        : 0;
    const before = await tableBytes();

    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    expect([await count('<'), await count('>=')]).toEqual([0, 31]);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
    // PostgreSQL gives the rows' space back at once: the table is written again, not left with
    // dead rows for a VACUUM FULL.
    if (isPostgres(db)) expect(await tableBytes()).toBeLessThan(before);

    // Every inclusion and consistency proof of every signed size verifies against the RFC's roots.
    for (const size of sizes) {
      const root = rootOf(hashes.slice(0, size));
      for (let index = 0; index < size; index += 37) {
        const plan = inclusionPlan(index, size);
        const nodes = await readNodes(db, logId, plan.nodes);
        const proof = assembleProof(plan, (n) => nodes.get(nodeKey(n)));
        expect(verifyInclusion(hashes[index] as Uint8Array, index, size, proof, root)).toBe(true);
      }
    }
    for (const [i, from] of sizes.entries()) {
      for (const to of sizes.slice(i + 1)) {
        const { proof } = await consistency(db, logId, from, to);
        expect(
          verifyConsistency(
            from,
            to,
            proof.map((p) => new Uint8Array(Buffer.from(p, 'base64'))),
            rootOf(hashes.slice(0, from)),
            rootOf(hashes.slice(0, to)),
          ),
        ).toBe(true);
      }
    }
  });
});
