import { describe, expect, it } from 'vitest';
import { batchedReads } from '../../src/platform/read-batches.js';

/** A batch reader that keeps every batch it was asked and answers when told. */
function heldReader() {
  const batches: Array<{ queries: readonly number[]; release: (error?: Error) => void }> = [];
  const read = (queries: readonly number[]) =>
    new Promise<number[]>((resolve, reject) => {
      batches.push({
        queries,
        release: (error) => (error ? reject(error) : resolve(queries.map((q) => q * 10))),
      });
    });
  return { read, batches };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('batchedReads', () => {
  it('answers the look-ups of one turn in one batch, each with its own answer', async () => {
    const { read, batches } = heldReader();
    const ask = batchedReads(read, 2);
    const answers = Promise.all([1, 2, 3].map(ask));
    await turn();
    expect(batches.map((b) => b.queries)).toEqual([[1, 2, 3]]);
    batches[0]?.release();
    expect(await answers).toEqual([10, 20, 30]);
  });

  it('runs at most inFlight batches, and what arrives meanwhile goes as the next one', async () => {
    const { read, batches } = heldReader();
    const ask = batchedReads(read, 1);
    const first = ask(1);
    await turn();
    const later = Promise.all([2, 3, 4].map(ask));
    await turn();
    expect(batches.map((b) => b.queries)).toEqual([[1]]);
    batches[0]?.release();
    expect(await first).toBe(10);
    await turn();
    await turn();
    expect(batches.map((b) => b.queries)).toEqual([[1], [2, 3, 4]]);
    batches[1]?.release();
    expect(await later).toEqual([20, 30, 40]);
  });

  it('a batch that fails fails each of its look-ups with its error, and the next batch runs', async () => {
    const { read, batches } = heldReader();
    const ask = batchedReads(read, 1);
    const failing = [ask(1), ask(2)].map((p) => p.catch((error: Error) => error.message));
    await turn();
    const next = ask(3);
    batches[0]?.release(new Error('store down'));
    expect(await Promise.all(failing)).toEqual(['store down', 'store down']);
    await turn();
    await turn();
    batches[1]?.release();
    expect(await next).toBe(30);
  });

  it('splits a turn of more than 512 look-ups into batches of 512', async () => {
    const { read, batches } = heldReader();
    const ask = batchedReads(read, 4);
    const answers = Promise.all(Array.from({ length: 1100 }, (_, i) => ask(i)));
    await turn();
    expect(batches.map((b) => b.queries.length)).toEqual([512, 512, 76]);
    for (const batch of batches) batch.release();
    expect((await answers)[1099]).toBe(10990);
  });
});
