// The outside parties of the `decisions-witnessed` run: two witnesses, each a real
// `consent-service witness serve` process of its own, and a time-stamping authority made of
// `openssl ts -reply` (the tests' own, test/helpers/tsa.ts). They run on the load generator's
// core, off the measured server's: an outside party's CPU is not the service's.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCosignerKeys } from '../src/proof/index.js';
import { freePort } from '../test/helpers/postgres-server.js';
import { startTestTsa } from '../test/helpers/tsa.js';
import { benchLogKeys } from './log-key.js';
import { loadCore, spawnPinned, stopProcess } from './processes.js';

export interface OutsideParties {
  /** The service's settings that send its checkpoints to them. */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startOutsideParties(): Promise<OutsideParties> {
  const dir = mkdtempSync(join(tmpdir(), 'consent-bench-outside-'));
  const witnesses = await Promise.all(['w1', 'w2'].map((name) => startWitness(dir, name)));
  const tsa = await startTestTsa();
  const list = join(dir, 'witnesses.txt');
  writeFileSync(list, `${witnesses.map((w) => w.line).join('\n')}\n`);
  return {
    env: {
      LOG_WITNESSES_FILE: list,
      LOG_WITNESS_QUORUM: '2',
      LOG_TSA_URLS: tsa.url,
      LOG_TSA_CA_FILE: tsa.rootFile,
      // One token a second, not the default one a minute: the run's worst case.
      LOG_TIMESTAMP_INTERVAL_MS: '1000',
    },
    stop: async () => {
      await Promise.all([...witnesses.map((w) => w.stop()), tsa.close()]);
    },
  };
}

async function startWitness(dir: string, name: string) {
  const keys = generateCosignerKeys(`bench.witness/${name}`);
  const keyFile = join(dir, `${name}.key`);
  const logsFile = join(dir, `${name}-logs.txt`);
  writeFileSync(keyFile, `${keys.signerKey}\n`, { mode: 0o600 });
  writeFileSync(logsFile, `${benchLogKeys.verifierKey}\n`);
  const port = await freePort();
  const child = spawnPinned(
    loadCore,
    process.execPath,
    ['bin/consent-service', 'witness', 'serve'],
    {
      env: {
        ...process.env,
        WITNESS_KEY_FILE: keyFile,
        WITNESS_LOGS_FILE: logsFile,
        WITNESS_STORE: join(dir, `${name}.db`),
        WITNESS_PORT: String(port),
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/${'0'.repeat(64)}/checkpoint`)).status === 404) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`witness ${name} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { line: `${name} ${keys.verifierKey} ${url}`, stop: () => stopProcess(child) };
}
