import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildWitness } from '../../src/app/witness.js';
import { loadWitnessConfig } from '../../src/platform/config.js';
import { generateCosignerKeys, type NoteKeyPair } from '../../src/proof/index.js';

/** A witness as `consent-service witness serve` runs it, in process, on a loopback port. */
export interface TestWitness {
  readonly name: string;
  readonly url: string;
  readonly keys: NoteKeyPair;
  /** Its line in `LOG_WITNESSES_FILE`. */
  readonly line: string;
  readonly storePath: string;
  close(): Promise<void>;
}

/** A real witness (src/witness) of the logs signed by `logVerifierKey`, with its own store. */
export async function startTestWitness(name: string, logVerifierKey: string): Promise<TestWitness> {
  const dir = mkdtempSync(join(tmpdir(), 'test-witness-'));
  const keys = generateCosignerKeys(`witness.test/${name}`);
  writeFileSync(join(dir, 'witness.key'), `${keys.signerKey}\n`);
  writeFileSync(join(dir, 'logs.txt'), `${logVerifierKey}\n`);
  const storePath = join(dir, 'witness.db');
  const app: FastifyInstance = await buildWitness(
    loadWitnessConfig({
      WITNESS_KEY_FILE: join(dir, 'witness.key'),
      WITNESS_LOGS_FILE: join(dir, 'logs.txt'),
      WITNESS_STORE: storePath,
      LOG_LEVEL: 'silent',
    }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    name,
    url,
    keys,
    line: `${name} ${keys.verifierKey} ${url}`,
    storePath,
    close: () => app.close(),
  };
}

/**
 * A witness that misbehaves, listed under a key of its own: `garbage` answers 200 with text
 * that is no signature line; `hang` never answers; `down` is a port nothing listens on.
 */
export async function startBadWitness(
  name: string,
  mode: 'garbage' | 'hang' | 'down',
): Promise<{ line: string; close(): Promise<void> }> {
  const keys = generateCosignerKeys(`witness.test/${name}`);
  const server: Server = createServer((request, response) => {
    request.resume();
    if (mode === 'garbage') response.end('this is not a cosignature\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  if (mode === 'down') await close();
  return {
    line: `${name} ${keys.verifierKey} http://127.0.0.1:${port}`,
    close: mode === 'down' ? async () => {} : close,
  };
}

/** Writes a `LOG_WITNESSES_FILE` of the given lines; answers its path. */
export function witnessesFile(lines: readonly string[]): string {
  const file = join(mkdtempSync(join(tmpdir(), 'witnesses-')), 'witnesses.txt');
  writeFileSync(file, `# name, verifier key, URL\n${lines.join('\n')}\n`);
  return file;
}
