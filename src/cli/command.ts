import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import type { Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';

/** A command's options as `parseArgs` reads them. */
export type Options = Record<string, string | undefined>;

/** A management command: reads its options, calls the same services as the HTTP routes. */
export type Command = (
  db: Db,
  options: Options,
  config: Config,
  vault: SubjectVault,
  /** The kinds of record the service keeps (src/app/kinds.ts). */
  registry: Registry,
) => Promise<unknown>;

/** A command as the command line's table holds it: its options and what it runs. */
export interface CommandEntry {
  options: string[];
  /** It applies the migrations itself (`migrate`): the store is opened without applying them. */
  migratesItself?: boolean;
  /**
   * It reads a whole log or store (`audit`): its statements are not bound by
   * `DATABASE_STATEMENT_TIMEOUT_MS`, which bounds a request's wait, not an operator's command
   * (on PostgreSQL, the audit of a million records reads longer than 5 s).
   */
  unbounded?: boolean;
  run: Command;
  /**
   * What makes its result a failure, said on stderr with exit 1 (the JSON result still goes to
   * stdout, for a program to read); undefined when it succeeded.
   */
  failure?: (result: unknown, options: Options) => string | undefined;
  /** The exit code a failure is said with (1 unless said). */
  failureCode?: number;
  /** Options that take no value (`--json`): given, they read `'true'`. */
  flags?: string[];
  /** Its options that may be given more than once (`--url` of `cookie scan`). */
  repeatable?: string[];
  /** Its result is a sequence, printed as JSON lines (one object per line). */
  lines?: boolean;
}

/** A group of commands (those of one feature), by their full name (`partner create`). */
export type Commands = Record<string, CommandEntry>;

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

/** Every value of a repeatable option, each also split at commas (none when not given). */
export function values(options: Options, name: string): string[] {
  const given = options[name] as string | string[] | undefined;
  return [given ?? []]
    .flat()
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value.length > 0);
}
