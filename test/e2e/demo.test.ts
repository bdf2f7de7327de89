import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  makeTempStore,
  runCli,
  type ServerProcess,
  showResult,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

interface CurlCall {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Splits a shell line into words: whitespace separates, single and double quotes group. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: string | undefined;
  for (const char of line) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      else current += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += char;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new Error(`unbalanced quote in: ${line}`);
  if (inWord) words.push(current);
  return words;
}

/** The request a `curl` line shows (the options the demo uses: -s, -X, -H, -d). */
function parseCurl(line: string): CurlCall {
  const words = shellWords(line);
  if (words[0] !== 'curl') throw new Error(`not a curl line: ${line}`);
  const call: CurlCall = { method: 'GET', url: '', headers: {}, body: undefined };
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i] ?? '';
    if (word === '-s' || word === '--silent') continue;
    if (word === '-X' || word === '--request') {
      call.method = words[++i] ?? '';
    } else if (word === '-H' || word === '--header') {
      const header = words[++i] ?? '';
      const colon = header.indexOf(':');
      if (colon < 1) throw new Error(`bad header ${header} in: ${line}`);
      call.headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim();
    } else if (word === '-d' || word === '--data' || word === '--data-raw') {
      call.body = words[++i] ?? '';
      if (!words.includes('-X') && !words.includes('--request')) call.method = 'POST';
    } else if (/^https?:\/\//.test(word)) {
      call.url = word;
    } else {
      throw new Error(`unexpected curl word ${word} in: ${line}`);
    }
  }
  if (call.url === '') throw new Error(`no URL in: ${line}`);
  return call;
}

async function perform(call: CurlCall): Promise<{ status: number; body: any }> {
  const response = await fetch(call.url, {
    method: call.method,
    headers: call.headers,
    ...(call.body === undefined ? {} : { body: call.body }),
    signal: AbortSignal.timeout(budget(5_000)),
  });
  return { status: response.status, body: await response.json() };
}

// The two stores' suites run at the same time, each on its own store and server.
describe.concurrent.each(stores)('on $name', (testStore) => {
  describe.sequential('the demo command', () => {
    let store: TempStore;
    let server: ServerProcess;
    let demo: CliResult;

    beforeAll(async () => {
      store = await makeTempStore(testStore);
      server = await startServer({ store });
      demo = await runCli(['demo'], server.env, { cwd: store.dir });
    });

    afterAll(async () => {
      try {
        await server?.stop(budget(10_000));
      } finally {
        await store?.remove();
      }
    });

    it('exits 0 and prints the API key, the version id and four curl lines against PUBLIC_BASE_URL', () => {
      expect(demo.code, showResult(demo)).toBe(0);
      expect(demo.stdout).toMatch(/csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/);
      expect(demo.stdout).toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
      const curls = demo.stdout.split('\n').filter((line) => line.trim().startsWith('curl '));
      expect(curls).toHaveLength(4);
      for (const line of curls)
        expect(parseCurl(line.trim()).url.startsWith(server.baseUrl)).toBe(true);
    });

    it('its version is in the audit log as published by the command line, outside review', async () => {
      const versionId = /published as ([0-9a-f-]{36})/i.exec(demo.stdout)?.[1];
      const entries = await withStore(store, (db) =>
        db
          .selectFrom('audit_log')
          .select(['actor_kind', 'actor', 'target', 'details'])
          .where('action', '=', 'version.published')
          .execute(),
      );
      expect(entries.map((e) => [e.actor_kind, e.actor, e.target])).toEqual([
        ['operator', 'command line', 'privacy_policy 1.0'],
      ]);
      expect(JSON.parse(entries[0]?.details ?? '{}')).toEqual({
        version_id: versionId,
        version: 1,
        customers_made_pending: 0,
        review: 'bypassed',
      });
    });

    it('the four calls it shows succeed against the running server (run with fetch)', async () => {
      const stdout = demo.stdout;
      const key = /csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/.exec(stdout)?.[0];
      const versionId = /published as ([0-9a-f-]{36})/i.exec(stdout)?.[1];
      expect(key, stdout).toBeDefined();
      expect(versionId, stdout).toBeDefined();
      const calls = stdout
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.startsWith('curl '))
        .map(parseCurl);
      const [health, latest, pending, decision] = calls;
      if (!health || !latest || !pending || !decision)
        throw new Error(`four curl lines: ${stdout}`);

      expect(new URL(health.url).pathname).toBe('/api/health');
      const healthAnswer = await perform(health);
      expect(healthAnswer).toEqual({ status: 200, body: { status: 'ok', success: true } });

      expect(latest.headers['x-system-api-key']).toBe(key);
      const latestAnswer = await perform(latest);
      expect(latestAnswer.status, JSON.stringify(latestAnswer.body)).toBe(200);
      expect(latestAnswer.body.data.consent_version_id).toBe(versionId);
      expect(latestAnswer.body.data.version).toBe(1);

      expect(pending.headers['x-system-api-key']).toBe(key);
      const pendingAnswer = await perform(pending);
      expect(pendingAnswer.status, JSON.stringify(pendingAnswer.body)).toBe(200);
      expect(pendingAnswer.body.data.accepted).toBe(false);
      expect(pendingAnswer.body.data.consent_version.consent_version_id).toBe(versionId);

      expect(decision.method).toBe('POST');
      expect(decision.headers['x-system-api-key']).toBe(key);
      expect(JSON.parse(decision.body ?? '')).toEqual({
        consent_version_id: versionId,
        decision: 'given',
      });
      const decisionAnswer = await perform(decision);
      expect(decisionAnswer.status, JSON.stringify(decisionAnswer.body)).toBe(201);
      expect(decisionAnswer.body.data.decision).toBe('given');
      expect(decisionAnswer.body.data.consent_version_id).toBe(versionId);

      // The pending call shows the same customer as the decision: now accepted.
      const again = await perform(pending);
      expect(again.status).toBe(200);
      expect(again.body.data.accepted).toBe(true);
      expect(again.body.data.decision).toBe('given');
    });
  });
});
