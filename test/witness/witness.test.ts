import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWitness } from '../../src/app/witness.js';
import { loadWitnessConfig, type WitnessConfig } from '../../src/platform/config.js';
import {
  consistencyProof,
  emptyRoot,
  formatAddCheckpoint,
  generateCosignerKeys,
  generateNoteKeys,
  leafHash,
  type NoteSigner,
  openWitnessedCheckpoint,
  parseCosignerVerifierKey,
  parseSignerKey,
  parseVerifierKey,
  rootOf,
  signCheckpoint,
} from '../../src/proof/index.js';
import { listConflicts, openWitnessStore } from '../../src/witness/index.js';
import { must } from '../proof/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'witness-'));
const logKeys = generateNoteKeys('log.example');
const logSigner = must(parseSignerKey(logKeys.signerKey));
const logVerifier = must(parseVerifierKey(logKeys.verifierKey));
const strangerSigner = must(parseSignerKey(generateNoteKeys('log.example').signerKey));
const witnessKeys = generateCosignerKeys('witness.example/w1');
const witnessVerifier = must(parseCosignerVerifierKey(witnessKeys.verifierKey));
const origin = 'log.example/tenant-1';

/** The log's leaves: the tree the checkpoints are of. */
const leaves = Array.from({ length: 20 }, (_, i) => leafHash(Buffer.from(`leaf ${i}`)));
/** A second tree, rebuilt from other leaves: a split view of the same log. */
const rebuilt = leaves.map((_, i) => leafHash(Buffer.from(`other ${i}`)));

function checkpointOf(size: number, tree = leaves, signer: NoteSigner = logSigner): string {
  const rootHash = size === 0 ? emptyRoot() : rootOf(tree.slice(0, size));
  return signCheckpoint({ origin, size, rootHash, extensions: [] }, [signer]);
}

function addBody(oldSize: number, size: number, tree = leaves): string {
  const proof =
    oldSize === 0 || oldSize === size ? [] : consistencyProof(tree.slice(0, size), oldSize);
  return formatAddCheckpoint({ oldSize, proof, checkpoint: checkpointOf(size, tree) });
}

let config: WitnessConfig;
let app: FastifyInstance;
let url: string;

async function start(): Promise<void> {
  app = await buildWitness(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

async function add(body: string) {
  const response = await fetch(`${url}/add-checkpoint`, { method: 'POST', body });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
}

beforeAll(async () => {
  writeFileSync(join(dir, 'witness.key'), `${witnessKeys.signerKey}\n`);
  writeFileSync(
    join(dir, 'logs.txt'),
    `# the logs this witness follows\n${logKeys.verifierKey}\n\n${generateNoteKeys('pinned').verifierKey} pinned/one\n`,
  );
  config = loadWitnessConfig({
    WITNESS_KEY_FILE: join(dir, 'witness.key'),
    WITNESS_LOGS_FILE: join(dir, 'logs.txt'),
    WITNESS_STORE: join(dir, 'witness.db'),
    LOG_LEVEL: 'silent',
  });
  await start();
});

afterAll(async () => {
  await app.close();
});

describe('witness serve (C2SP tlog-witness, the witness side)', () => {
  it('refuses what it cannot cosign, each with the status the spec names', async () => {
    // Unknown origin: 404.
    const other = signCheckpoint(
      { origin: 'elsewhere.example/x', size: 1, rootHash: leaves[0] as Uint8Array, extensions: [] },
      [logSigner],
    );
    expect(
      (await add(formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: other }))).status,
    ).toBe(404);
    // Signed by another key of the same name: 403.
    const stranger = formatAddCheckpoint({
      oldSize: 0,
      proof: [],
      checkpoint: checkpointOf(3, leaves, strangerSigner),
    });
    expect((await add(stranger)).status).toBe(403);
    // A trusted key's line whose signature fails: 403.
    const good = checkpointOf(3);
    const broken = `${good.slice(0, -6)}${good.slice(-6, -5) === 'A' ? 'B' : 'A'}${good.slice(-5)}`;
    expect(
      (await add(formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: broken }))).status,
    ).toBe(403);
    // Old size above the checkpoint's, or a body that is not the format: 400.
    expect(
      (await add(formatAddCheckpoint({ oldSize: 5, proof: [], checkpoint: checkpointOf(3) })))
        .status,
    ).toBe(400);
    expect((await add('old 0\n')).status).toBe(400);
    expect((await add('garbage')).status).toBe(400);
    // A proof from size 0, or an empty tree with another root: 422.
    const proofFromZero = formatAddCheckpoint({
      oldSize: 0,
      proof: [leaves[0] as Uint8Array],
      checkpoint: checkpointOf(3),
    });
    expect((await add(proofFromZero)).status).toBe(422);
    const notEmpty = signCheckpoint(
      { origin, size: 0, rootHash: leaves[0] as Uint8Array, extensions: [] },
      [logSigner],
    );
    expect(
      (await add(formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: notEmpty }))).status,
    ).toBe(422);
    // None of it moved the log.
    expect((await fetch(`${url}/${hashOf(origin)}/checkpoint`)).status).toBe(404);
  });

  it('cosigns a consistent checkpoint, answers 409 with its size, and never goes back', async () => {
    const before = Math.floor(Date.now() / 1000);
    const first = await add(addBody(0, 5));
    const after = Math.ceil(Date.now() / 1000);
    expect(first.status).toBe(200);
    expect(first.text).toMatch(/^\u2014 witness\.example\/w1 [A-Za-z0-9+/=]+\n$/);
    const cosigned = must(
      openWitnessedCheckpoint(checkpointOf(5) + first.text, [logVerifier], [witnessVerifier], 1),
    );
    expect(cosigned.checkpoint.size).toBe(5);
    const time = cosigned.witnesses[0]?.time as number;
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);

    // A client that does not know the witness's size learns it: 409, text/x.tlog.size.
    const stale = await add(addBody(0, 9));
    expect(stale).toEqual({ status: 409, type: 'text/x.tlog.size', text: '5\n' });
    // Then retries from it, with the proof from 5 to 9.
    expect((await add(addBody(5, 9))).status).toBe(200);
    // A wrong proof: refused, the log stays at 9.
    const wrong = formatAddCheckpoint({
      oldSize: 9,
      proof: consistencyProof(leaves.slice(0, 12), 8),
      checkpoint: checkpointOf(12),
    });
    expect((await add(wrong)).status).toBe(422);
    // Resubmitting the same checkpoint is consistent (same size, same root).
    expect((await add(addBody(9, 9))).status).toBe(200);
    // Back to 5: the old size is not the witness's.
    expect((await add(addBody(5, 5))).text).toBe('9\n');

    const monitored = await fetch(`${url}/${hashOf(origin)}/checkpoint`);
    const note = await monitored.text();
    const seen = must(openWitnessedCheckpoint(note, [logVerifier], [witnessVerifier], 1));
    expect(seen.checkpoint.size).toBe(9);
  });

  it('refuses a second tree at a size it cosigned and keeps it as evidence of a split view', async () => {
    const split = addBody(9, 9, rebuilt);
    const answer = await add(split);
    expect(answer.status).toBe(422);
    expect(answer.text).toBe('another root hash at the size already cosigned\n');
    // The rebuilt tree grown further cannot be proven consistent with the cosigned one either.
    expect((await add(addBody(9, 14, rebuilt))).status).toBe(422);

    const db = await openWitnessStore(config.storePath, 1000);
    const conflicts = await listConflicts(db, origin);
    await db.destroy();
    expect(conflicts.map((c) => [c.known_size, c.reason])).toEqual([
      [9, 'the consistency proof does not verify'],
      [9, 'another root hash at the size already cosigned'],
      [9, 'the consistency proof does not verify'],
    ]);
    expect(conflicts[1]?.request).toBe(split);
    expect(conflicts[1]?.known_checkpoint.startsWith(`${origin}\n9\n`)).toBe(true);
  });

  it('of two submissions from one size, cosigns one and answers the other 409', async () => {
    const answers = await Promise.all([add(addBody(9, 11)), add(addBody(9, 13))]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const won = answers.find((a) => a.status === 200) === answers[0] ? 11 : 13;
    expect(answers.find((a) => a.status === 409)?.text).toBe(`${won}\n`);
  });

  it('keeps what it cosigned across a restart', async () => {
    const size = Number((await add(addBody(0, 1))).text.trim());
    await app.close();
    await start();
    expect((await add(addBody(0, 1))).text).toBe(`${size}\n`);
    expect((await add(addBody(size, 20))).status).toBe(200);
  });
});

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
