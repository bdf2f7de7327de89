import { parseArgs } from 'node:util';
import { serviceVersion } from '../platform/version.js';
import type { Registry } from '../record-kinds/index.js';
import { type Commands, type Options, required, UsageError } from './command.js';

const usage = `Usage: consent-service <command> [options]

  serve                                   run the HTTP server (applies pending migrations first)
  migrate                                 bring the store's schema up to date
  demo [--alias demo]                     create a demo tenant, template, version and API key
  tenant create --alias A --email E (--password P | --name N)
                                          with --name, the first admin is invited: the
                                          command prints the link to set their password
  tenant list                             every tenant: alias, e-mail, created
  product create --tenant A --code C --name N [--description D]
  product list --tenant A
  template list --tenant A                each template, its latest version and drafts
  apikey list --tenant A                  each key's prefix and last four; never its secret
  partner create --tenant A --code C --name N [--purpose P] [--country CC] [--policy-url URL]
                                          a partner customer data may be shared with
  partner list --tenant A
  channel create --tenant A --code C --name N
                                          a contact channel of the tenant's own, beside
                                          email, sms, push, phone and post
  channel list --tenant A
  preference-centre show --tenant A       the preference centre's settings
  preference-centre origins --tenant A [--origin URL ...]
                                          the origins a preference link may return to (and
                                          that may frame the page); none clears them
  template create --tenant A --code C --name N [--description D] [--product P] [--locale L]
                  [--validity-months M]   a consent given lapses M calendar months later
                                          (1 to 120); none when absent
  template update --tenant A --code C [--validity-months (M | none)]
                  [--data-categories (C,C… | none)]
                                          change the validity (none: consent never lapses),
                                          or the sensitive data it covers (PDPA s.26: race,
                                          ethnicity, political-opinions, beliefs,
                                          sexual-behaviour, criminal-records, health,
                                          disability, trade-union, genetic, biometric, other):
                                          a given then needs explicit consent
                  [--representation (BASIS=WHO,… | none)]
                                          who may decide for whom (PDPA s.20): BASIS under-10,
                                          10-19, adult or court-order; WHO subject,
                                          representative, subject-with-representative or anyone
  version publish --tenant A --template C --tag T (--content-file F | --content HTML)
                  [--file-url U] [--allow-reconsent true|false]
                  [--effective-at T]      T: ISO 8601 with a zone; live from then
                                          (scheduled), at once when absent or past
                  [--locale L]            the content's locale (BCP 47); the template's default
                  [--variant L=FILE ...]  another locale's content of the same release
                  [--partners P1,P2]      the codes of the partners its text allows
  apikey create --tenant A --name N
  apikey revoke --tenant A --id ID
  customer erase --tenant A --customer C  erase the customer's personal data for good (their
                                          key is destroyed); their decisions stay provable
  audit --tenant A                        recompute the tenant's decision log from the store and
                                          report every changed, removed or reordered record,
                                          leaf, node or checkpoint; exits 1 when it finds any
  log new-epoch --tenant A                start the tenant's log again under a new origin after
                                          a restore behind signed checkpoints, with a signed
                                          statement linking the two (docs/proof.md)
  verify-epoch FILE --key VKEY            check an epoch statement offline
  monitor --url URL --api-key KEY --state FILE [--key VKEY] [--witness-url W ...]
                                          follow a tenant's log from outside: its newest
                                          checkpoint against the last one seen and what each
                                          witness cosigned; exits 3 on a split view or a log
                                          that went back (evidence kept beside FILE)
  witness key --name N                    make the witness's key (WITNESS_KEY_FILE) unless
                                          it exists; print its verifier key
  witness serve                           witness other logs (C2SP tlog-witness) on
                                          WITNESS_HOST:WITNESS_PORT, with its own store
  witness conflicts [--origin O]          the checkpoints refused as a split view, one JSON
                                          line each
  backup --to FILE                        copy the SQLite store while the service runs, then
                                          audit every tenant's log in the copy (PostgreSQL:
                                          pg_dump, docs/operations.md)
  restore --from FILE                     put a backup in place of the SQLite store (the
                                          service stopped; the old file is kept beside it),
                                          then audit every tenant's log
  webhook create --tenant A --url U --events E1,E2 [--description D]
                                          register an endpoint; its secret is shown once
  webhook list --tenant A
  webhook (enable|disable|delete|rotate-secret) --tenant A --id ID
  webhook replay --tenant A --id ID --from POSITION
                                          send every event from POSITION on again, in order
  webhook deliveries --tenant A --id ID [--limit N]
  store partition --interval (month|year)
                                          PostgreSQL: split the tables that grow without
                                          bound (records, the log's leaves) into partitions
                                          by time; the service stopped (docs/postgresql.md)
  store partitions                        each such table's partitions, rows and bytes
  settings public-base-url [--url URL]    the address clients reach the service at, kept
                                          with the store: what commands print their URLs on
                                          when PUBLIC_BASE_URL is not set where they run
                                          (serve records its own); without --url, prints it
  cookie system create --tenant A --name N --origin URL [--origin URL ...]
                                          a website; prints its scope and script tag
  cookie system list --tenant A
  cookie create --tenant A --system SCOPE --name N [--categories C1,C2]
                [--effective-date YYYY-MM-DD] [--content-file F]
                                          a draft banner configuration (default texts in
                                          English and Thai, or F's JSON content)
  cookie publish --tenant A --system SCOPE
                                          publish the system's newest configuration outside
                                          review; prints {"script_tag": …}
  cookie unpublish --tenant A --system SCOPE
  cookie visitor erase --tenant A --visitor V
                                          erase a website visitor's personal data for good
                                          (V: the id their browser kept); their choices stay
  cookie decisions --tenant A --system SCOPE
                                          the visitors' choices, one JSON object per line
  cookie scan --tenant A --system SCOPE [--url URL ...] [--pages N] [--fail-on-violation]
              [--json]                    crawl the system's site (or URL) in Chromium before
                                          any choice, after Accept all and after Reject all;
                                          prints the cookies, hosts and violations found; with
                                          --fail-on-violation, exits 3 when there is one
  cookie scans --tenant A --system SCOPE  the system's scans, newest first
  cookie override set --tenant A (--cookie NAME | --host HOST) --category C [--provider P]
                      [--purpose T] [--retention T]
                                          classify a cookie (a prefix ends in *) or a host
                                          and its subdomains in every later scan, over the
                                          Open Cookie Database and the host list
  cookie override list --tenant A         the tenant's overrides
  cookie override remove --tenant A (--cookie NAME | --host HOST)
  cookie database show                    the Open Cookie Database copy in use
  cookie database refresh --file F [--source S]
                                          use F (the database's CSV) from now on, on every
                                          instance, in place of the copy pinned with the release
  verify-receipt FILE --key VKEY [--origin O] [--witness WKEY ...] [--quorum N]
                 [--tsa-ca ROOTS.pem]
                  check a decision receipt offline (VKEY: the verifier key, or a file
                  holding it); with --witness, its cosigned checkpoint must carry N of
                  those witnesses' cosignatures (N: every one given when no --quorum);
                  with --tsa-ca, its RFC 3161 time-stamp must chain to those roots; it
                  prints the time the record is proven to exist by; exits 0 when it
                  verifies, 1 when not
  verify-receipt --pack FILE.zip --key VKEY [--witness WKEY ...] [--quorum N]
                 [--tsa-ca ROOTS.pem]
                  check a customer's evidence pack offline: the signed manifest, every
                  file's SHA-256, every receipt under the pack's checkpoint, every text
                  shown, and with --witness / --tsa-ca the checkpoint's cosignatures and
                  time-stamp; exits 1 naming each file that fails

Management commands print one JSON object on stdout. The store is DATABASE_URL's
(default: an SQLite file under ./data/); pending migrations are applied first. The URLs
they print are on PUBLIC_BASE_URL when set, else on the store's (settings public-base-url).`;

/**
 * The management commands' modules, by a command's first word. Each process runs one command,
 * so a module (and the features it imports) is loaded only when one of its commands runs:
 * `--help`, `--version` or a mistyped command load none of them (src/cli/README.md).
 */
const groups = new Map<string, () => Promise<Commands>>([
  ['tenant', async () => (await import('./tenants.js')).tenantCommands],
  ['product', async () => (await import('./products.js')).productCommands],
  ['template', async () => (await import('./templates.js')).templateCommands],
  ['version', async () => (await import('./templates.js')).templateCommands],
  ['apikey', async () => (await import('./api-keys.js')).apiKeyCommands],
  ['customer', async () => (await import('./erasure.js')).erasureCommands],
  ['audit', async () => (await import('./audit.js')).auditCommands],
  ['migrate', async () => (await import('./store.js')).storeCommands],
  ['webhook', async () => (await import('./webhooks.js')).webhookCommands],
  ['cookie', async () => (await import('./cookies.js')).cookieCommands],
  ['partner', async () => (await import('./partners.js')).partnerCommands],
  ['channel', async () => (await import('./channels.js')).channelCommands],
  ['settings', async () => (await import('./settings.js')).settingsCommands],
  ['store', async () => (await import('./partitions.js')).partitionCommands],
  ['log', async () => (await import('./log.js')).logCommands],
  [
    'preference-centre',
    async () => (await import('./preference-centre.js')).preferenceCentreCommands,
  ],
]);

/**
 * Where a command reads its settings and writes its output: the process's own by default; a
 * caller that runs commands in its own process (the tests) passes its own, so that a command's
 * output and settings stay its own.
 */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The settings (`DATABASE_URL`, …), as the process environment has them. */
  env: NodeJS.ProcessEnv;
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
};

/** Runs one command and answers its exit code; it never exits the process itself. */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [first, second, ...rest] = argv;
  if (!first || first === 'help' || first === '--help' || first === '-h') {
    io.stdout(`${usage}\n`);
    return first ? 0 : 2;
  }
  if (first === '--version') {
    io.stdout(`${serviceVersion}\n`);
    return 0;
  }
  try {
    if (first === 'verify-receipt' && [second, ...rest].some((a) => a?.startsWith('--pack'))) {
      const values = parseArgsOf(
        [second, ...rest].filter((a) => a !== undefined),
        ['pack', 'key', 'witness', 'quorum', 'tsa-ca'],
        ['witness'],
      );
      const [{ verifyPackFile }, { formats }] = await Promise.all([
        import('./verify-receipt.js'),
        kinds(),
      ]);
      const verdict = verifyPackFile(
        required(values as Options, 'pack'),
        required(values as Options, 'key'),
        formats,
        witnessOptionsOf(values),
      );
      io.stdout(`${JSON.stringify(verdict)}\n`);
      if (verdict.valid) return 0;
      const lines = verdict.failures.map(({ file, reason }) => `  ${file}: ${reason}\n`);
      io.stderr(`The pack does not verify:\n${lines.join('')}`);
      return 1;
    }
    if (first === 'monitor') {
      const values = parseArgsOf(
        [second, ...rest].filter((a) => a !== undefined),
        ['url', 'api-key', 'state', 'key', 'witness-url'],
        ['witness-url'],
      );
      const { monitorCommand } = await import('./monitor.js');
      return await monitorCommand(values, io);
    }
    if (first === 'witness') {
      const { witnessCommand } = await import('./witness.js');
      return await witnessCommand(
        [second, ...rest].filter((a) => a !== undefined),
        io,
      );
    }
    if (first === 'verify-epoch') {
      const { values, positionals } = parseWithFile([second, ...rest], ['key']);
      const [{ existsSync, readFileSync }, { verifyEpochStatement }] = await Promise.all([
        import('node:fs'),
        import('../decision-log/index.js'),
      ]);
      const key = required(values, 'key');
      const verdict = verifyEpochStatement(
        readFileSync(positionals[0] as string, 'utf8'),
        existsSync(key) ? readFileSync(key, 'utf8') : key,
      );
      io.stdout(`${JSON.stringify(verdict)}\n`);
      if (verdict.valid) return 0;
      io.stderr(`The epoch statement does not verify: ${verdict.reason}\n`);
      return 1;
    }
    if (first === 'verify-receipt') {
      const { values, positionals } = parseWithFile(
        [second, ...rest],
        ['key', 'origin', 'witness', 'quorum', 'tsa-ca'],
        ['witness'],
      );
      const [{ verifyReceiptFile }, { formats }] = await Promise.all([
        import('./verify-receipt.js'),
        kinds(),
      ]);
      const verdict = verifyReceiptFile(
        positionals[0] as string,
        required(values, 'key'),
        formats,
        values.origin,
        witnessOptionsOf(values),
      );
      io.stdout(`${JSON.stringify(verdict)}\n`);
      if (verdict.valid) return 0;
      io.stderr(`The receipt does not verify: ${verdict.reason}\n`);
      return 1;
    }
    const { loadConfig } = await import('../platform/config.js');
    const config = loadConfig(io.env);
    if (first === 'serve') {
      parse(
        [second, ...rest].filter((a) => a !== undefined),
        [],
      );
      const { serveOnWorkers } = await import('../app/cluster.js');
      await serveOnWorkers(config);
      return 0;
    }
    if (first === 'demo') {
      const options = parse(
        [second, ...rest].filter((a) => a !== undefined),
        ['alias'],
      );
      const [{ createDemo }, { withDb }, { withStoredBaseUrl }] = await Promise.all([
        import('./demo.js'),
        import('./store.js'),
        import('../platform/public-base-url.js'),
      ]);
      await withDb(config, io.stderr, async (db) => {
        const used = await withStoredBaseUrl(db, config);
        io.stdout(await createDemo(db, used, options.alias ?? 'demo'));
      });
      return 0;
    }
    if (first === 'backup' || first === 'restore') {
      const option = first === 'backup' ? 'to' : 'from';
      const file = required(
        parse(
          [second, ...rest].filter((a) => a !== undefined),
          [option],
        ),
        option,
      );
      const { backupStore, restoreStore } = await import('./backup.js');
      const done = first === 'backup' ? backupStore : restoreStore;
      const result = await done(config, file, await kinds());
      io.stdout(`${JSON.stringify(result)}\n`);
      if (result.ok) return 0;
      const failing = result.tenants.filter((t) => !t.ok).map((t) => t.alias);
      io.stderr(
        `The audit of the ${first === 'backup' ? 'copy' : 'restored store'} found problems in the log of: ${failing.join(', ')}.\n`,
      );
      return 1;
    }
    const group = groups.get(first);
    const commands: Commands = group === undefined ? {} : await group();
    const single = first === 'migrate' || first === 'audit';
    // Three words (`cookie system create`) when such a command exists, else two.
    const three = `${first} ${second ?? ''} ${rest[0] ?? ''}`;
    const threeWords = !single && commands[three] !== undefined;
    const name = single ? first : threeWords ? three : `${first} ${second ?? ''}`;
    const command = commands[name];
    if (!command) throw new UsageError(`Unknown command "${name.trim()}".`);
    const options = parse(
      single ? [second, ...rest].filter((a) => a !== undefined) : threeWords ? rest.slice(1) : rest,
      command.options,
      command.flags,
      command.repeatable,
    );
    // Every command that takes --tenant acts in that tenant: a missing one is a usage error, said
    // before the store (or its data key) is touched, whatever else is wrong.
    if (command.options.includes('tenant')) required(options, 'tenant');
    let failure: string | undefined;
    const [{ withDb }, { withStoredBaseUrl }] = await Promise.all([
      import('./store.js'),
      import('../platform/public-base-url.js'),
    ]);
    await withDb(
      command.unbounded ? { ...config, databaseStatementTimeoutMs: 0 } : config,
      io.stderr,
      async (db, vault) => {
        // A command that migrates itself may find a store from before the setting was kept.
        const used = command.migratesItself ? config : await withStoredBaseUrl(db, config);
        const result = await command.run(db, options, used, vault, await kinds());
        if (command.lines) {
          for await (const line of result as AsyncIterable<unknown>) {
            io.stdout(`${JSON.stringify(line)}\n`);
          }
          return;
        }
        io.stdout(`${JSON.stringify(result)}\n`);
        failure = command.failure?.(result, options);
      },
      !command.migratesItself,
    );
    if (failure === undefined) return 0;
    io.stderr(`${failure}\n`);
    return command.failureCode ?? 1;
  } catch (error) {
    io.stderr(`${await describe(error)}\n`);
    if (error instanceof UsageError) io.stderr(`\n${usage}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/** The kinds of record the service keeps (the registry), loaded with the first command that needs it. */
async function kinds(): Promise<Registry> {
  return (await import('../app/kinds.js')).registry;
}

/** Options that may be given more than once: each is kept, in order. */
const repeatable = new Set(['variant', 'origin']);

function parse(
  args: string[],
  names: string[],
  flags: string[] = [],
  /** The command's own options that may be given more than once, beside those above. */
  more: string[] = [],
): Options {
  try {
    const { values } = parseArgs({
      args,
      options: Object.fromEntries([
        ...names.map((n) => [
          n,
          { type: 'string' as const, multiple: repeatable.has(n) || more.includes(n) },
        ]),
        ...flags.map((n) => [n, { type: 'boolean' as const }]),
      ]),
      strict: true,
      allowPositionals: false,
    });
    return Object.fromEntries(
      Object.entries(values).map(([k, v]) => [k, v === true ? 'true' : v]),
    ) as Options;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--witness` (repeated), `--quorum` and `--tsa-ca` of `verify-receipt`. */
function witnessOptionsOf(values: Record<string, string | string[] | undefined>) {
  const quorum = values.quorum === undefined ? undefined : Number(values.quorum);
  if (quorum !== undefined && !(Number.isInteger(quorum) && quorum >= 1)) {
    throw new UsageError('--quorum is a whole number, 1 or more.');
  }
  const tsaCaFile = values['tsa-ca'];
  return {
    keys: [values.witness ?? []].flat(),
    quorum,
    tsaCaFile: typeof tsaCaFile === 'string' ? tsaCaFile : undefined,
  };
}

/** Options alone, some of which may be given more than once. */
function parseArgsOf(
  args: string[],
  names: string[],
  multiple: string[],
): Record<string, string | string[] | undefined> {
  try {
    return parseArgs({
      args,
      options: Object.fromEntries(
        names.map((n) => [n, { type: 'string' as const, multiple: multiple.includes(n) }]),
      ),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Options and exactly one file name. */
function parseWithFile(
  args: (string | undefined)[],
  names: string[],
  /** Options that may be given more than once. */
  multiple: string[] = [],
): { values: Options; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: args.filter((a) => a !== undefined),
      options: Object.fromEntries(
        names.map((n) => [n, { type: 'string' as const, multiple: multiple.includes(n) }]),
      ),
      strict: true,
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new Error('Give exactly one file.');
    return { values: values as Options, positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function describe(error: unknown): Promise<string> {
  if (error instanceof UsageError) return error.message;
  const [{ ConfigError }, { toAppError }] = await Promise.all([
    import('../platform/config.js'),
    import('../platform/error-handler.js'),
  ]);
  if (error instanceof ConfigError) return error.message;
  const appError = toAppError(error);
  // An operator at the command line is better served by the store's own words than by 1000.
  if (appError.code === '1000') return `Error: ${(error as Error).message ?? String(error)}`;
  const details = (appError.details ?? []).map((d) => `  ${d.field}: ${d.issue}`);
  return [`Error ${appError.code}: ${appError.message}`, ...details].join('\n');
}
