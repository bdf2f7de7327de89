import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import type { WitnessConfig } from '../platform/config.js';
import { parseCosignerKey } from '../proof/index.js';
import { openWitnessStore, parseLogsFile } from '../witness/index.js';
import { witnessRoutes } from '../witness/routes.js';

export class WitnessSetupError extends Error {}

/**
 * Builds the witness's HTTP server over its store, key and list of logs, all read now: a key
 * or a list that cannot be read stops the start with a sentence naming the file.
 */
export async function buildWitness(config: WitnessConfig): Promise<FastifyInstance> {
  const cosigner = parseCosignerKey(readSetting(config.keyFile, 'WITNESS_KEY_FILE').trim());
  if (!cosigner.ok) {
    throw new WitnessSetupError(`WITNESS_KEY_FILE ${config.keyFile}: ${cosigner.reason}`);
  }
  const logs = parseLogsFile(readSetting(config.logsFile, 'WITNESS_LOGS_FILE'));
  if (!logs.ok) throw new WitnessSetupError(`WITNESS_LOGS_FILE ${config.logsFile}: ${logs.reason}`);
  const db = await openWitnessStore(config.storePath, config.sqliteBusyTimeoutMs);
  const app = Fastify({ logger: { level: config.logLevel } });
  app.addHook('onClose', async () => db.destroy());
  app.setErrorHandler((error: Error & { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status < 500) {
      return reply.code(status).type('text/plain; charset=utf-8').send(`${error.message}\n`);
    }
    request.log.error({ err: error }, 'the witness could not answer');
    return reply
      .code(503)
      .type('text/plain; charset=utf-8')
      .send('the witness store is unavailable\n');
  });
  await app.register(witnessRoutes, { db, cosigner: cosigner.value, logs: logs.value });
  app.log.info(
    { key: cosigner.value.verifierKey, logs: logs.value.length },
    'witness ready: its verifier key is the one logs and clients are given',
  );
  return app;
}

function readSetting(file: string, name: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new WitnessSetupError(`${name} ${file} cannot be read: ${(error as Error).message}`);
  }
}
