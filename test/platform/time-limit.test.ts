import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { timeLimit } from '../../src/platform/time-limit.js';
import { sendOnce } from '../../src/webhooks/send.js';
import { collectingGarbage } from '../helpers/gc.js';
import { budget } from '../helpers/time.js';

/** A server that takes every request and never answers. */
let silent: Server;
let url: string;

beforeAll(async () => {
  silent = createServer(() => {});
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  silent.closeAllConnections();
  silent.close();
  await once(silent, 'close');
});

/** What a request under `signal` to the silent server ended with, by `fetch` or `http`. */
async function outcome(client: 'fetch' | 'http', signal: AbortSignal): Promise<string> {
  try {
    if (client === 'fetch') {
      await fetch(url, { method: 'POST', body: 'x', signal });
    } else {
      await new Promise((resolve, reject) => {
        const req = request(url, { method: 'POST', signal }, resolve);
        req.on('error', reject);
        req.end('x');
      });
    }
    return 'answered';
  } catch (error) {
    const { name, cause } = error as Error;
    return `${name}${cause instanceof Error ? ` (${cause.name})` : ''}`;
  }
}

describe.each(['fetch', 'http'] as const)('a time limit on a request by %s', (client) => {
  it('ends a request never answered, though garbage is collected while it waits', async () => {
    // With a stop signal, as the service makes them: the time and the stop, combined.
    const stop = new AbortController();
    const limit = timeLimit(budget(100), stop.signal);
    try {
      const ended = await collectingGarbage(outcome(client, limit.signal));
      expect(ended).toBe(client === 'fetch' ? 'TimeoutError' : 'AbortError (TimeoutError)');
      expect((limit.signal.reason as Error).name).toBe('TimeoutError');
    } finally {
      limit.clear();
    }
  });

  it('ends it at once when the stop signal aborts, with the stop reason', async () => {
    const stop = new AbortController();
    const limit = timeLimit(budget(60_000), stop.signal);
    try {
      const ended = collectingGarbage(outcome(client, limit.signal));
      stop.abort(new Error('stopping'));
      expect(await ended).toBe(client === 'fetch' ? 'Error' : 'AbortError (Error)');
      expect(limit.signal.reason).toEqual(new Error('stopping'));
    } finally {
      limit.clear();
    }
  });
});

describe('a time limit', () => {
  it('is aborted at once when made with a stop signal already aborted', () => {
    const limit = timeLimit(budget(60_000), AbortSignal.abort('gone'));
    limit.clear();
    expect(limit.signal.reason).toBe('gone');
  });

  it('once cleared, aborts neither by time nor by the stop signal', async () => {
    const stop = new AbortController();
    const limit = timeLimit(1, stop.signal);
    limit.clear();
    // Timers fire in the order they fall due: had the 1 ms limit still run, it would have fired
    // before this wait's, however busy the machine.
    await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    expect(limit.signal.aborted).toBe(false);
  });
});

describe('a webhook attempt', () => {
  it('to a receiver that never answers fails on time, though garbage is collected meanwhile', async () => {
    const result = await collectingGarbage(
      sendOnce(
        url,
        [`whsec_${Buffer.alloc(32, 7).toString('base64')}`],
        { id: 'msg_1', body: '{}', position: 1 },
        { allowHttpLoopback: true, allowedNetworks: [] },
        300,
        new AbortController().signal,
      ),
    );
    expect(result).toMatchObject({
      ok: false,
      responseCode: null,
      error: 'no answer within 300 ms',
    });
  });
});
