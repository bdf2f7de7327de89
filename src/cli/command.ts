import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import type { SubjectVault } from '../subjects/index.js';

/** A command's options as `parseArgs` reads them. */
export type Options = Record<string, string | undefined>;

/** A management command: reads its options, calls the same services as the HTTP routes. */
export type Command = (
  db: Db,
  options: Options,
  config: Config,
  vault: SubjectVault,
) => Promise<unknown>;

/** A mistake in how the command was written: the usage is printed, exit 2. */
export class UsageError extends Error {}

/** Who acts on the command line, as the audit log names it: the operator, on this machine. */
export const commandLine = {
  actorKind: 'operator',
  actor: 'command line',
  ip: 'local',
  userAgent: null,
} as const;

/** The option's value; a usage error naming it when it was not given. */
export function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined) throw new UsageError(`Missing --${name}.`);
  return value;
}
