import { parseArgs } from 'node:util';
import { buildWitness } from '../app/witness.js';
import { loadWitnessConfig } from '../platform/config.js';
import { readOrCreateSecret } from '../platform/secret-file.js';
import { generateCosignerKeys, parseCosignerKey } from '../proof/index.js';
import { listConflicts, openWitnessStore } from '../witness/index.js';
import { UsageError } from './command.js';
import type { CliIo } from './main.js';

/**
 * `consent-service witness …`: a witness of other logs (C2SP tlog-witness), with its own key and
 * store and none of the service's settings (docs/witnesses.md).
 *   witness key --name N        make WITNESS_KEY_FILE unless it exists; print the verifier key
 *   witness serve               answer add-checkpoint on WITNESS_HOST:WITNESS_PORT
 *   witness conflicts [--origin O]
 *                               the checkpoints refused as inconsistent, one JSON line each
 */
export async function witnessCommand(args: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = args;
  const config = loadWitnessConfig(io.env);
  if (command === 'key') {
    const name = options(rest, ['name']).name;
    if (name === undefined) throw new UsageError('Missing --name.');
    let created = false;
    const text = readOrCreateSecret(
      config.keyFile,
      () => generateCosignerKeys(name).signerKey,
      () => {
        created = true;
      },
    );
    const key = parseCosignerKey(text.trim());
    if (!key.ok) throw new Error(`WITNESS_KEY_FILE ${config.keyFile}: ${key.reason}`);
    io.stdout(
      `${JSON.stringify({ verifier_key: key.value.verifierKey, key_file: config.keyFile, created })}\n`,
    );
    return 0;
  }
  if (command === 'serve') {
    options(rest, []);
    const app = await buildWitness(config);
    await app.listen({ host: config.host, port: config.port });
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGTERM', stop);
        process.off('SIGINT', stop);
        void app.close().then(() => resolve());
      };
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
    });
    return 0;
  }
  if (command === 'conflicts') {
    const { origin } = options(rest, ['origin']);
    const db = await openWitnessStore(config.storePath, config.sqliteBusyTimeoutMs);
    try {
      for (const row of await listConflicts(db, origin)) io.stdout(`${JSON.stringify(row)}\n`);
    } finally {
      await db.destroy();
    }
    return 0;
  }
  throw new UsageError(`Unknown command "witness ${command ?? ''}".`);
}

function options(args: string[], names: string[]): Record<string, string | undefined> {
  try {
    const { values } = parseArgs({
      args,
      options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    });
    return values as Record<string, string | undefined>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
