import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { type Static, type TObject, Type } from 'typebox';
import { Value } from 'typebox/value';
import { isPostgresUrl } from './postgres.js';
import { sqlitePath } from './sqlite.js';
import { parseSubnets, type Subnet } from './subnets.js';

/** What a public base URL looks like, from the environment or the store (`settings`). */
export const publicBaseUrlPattern = /^https?:\/\/[^\s]+$/;

/** A public base URL as the service uses it: without a trailing slash. */
export function publicBaseUrlOf(text: string): string {
  return text.replace(/\/+$/, '');
}

/**
 * Every setting the service reads from the environment. This is the only module that touches
 * `process.env`; the rest receive the frozen `Config`.
 */
const EnvSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  DATABASE_URL: Type.String({ minLength: 1, default: 'data/consent.db' }),
  PUBLIC_BASE_URL: Type.Optional(Type.String({ pattern: publicBaseUrlPattern.source })),
  LOG_LEVEL: Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
  }),
  RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 6000 }),
  AUTH_FAILURES_PER_MINUTE: Type.Integer({ minimum: 0, default: 30 }),
  COOKIE_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 120 }),
  TRUST_PROXY: Type.String({ default: 'false' }),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 10_000 }),
  WORKERS: Type.String({ pattern: '^(auto|[1-9][0-9]{0,2})$', default: '1' }),
  SQLITE_BUSY_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 5_000 }),
  SQLITE_READER_THREADS: Type.Integer({ minimum: 0, maximum: 64, default: 2 }),
  MIGRATION_FREE_DISK_MARGIN_MB: Type.Integer({ minimum: 0, default: 64 }),
  DATABASE_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
  DATABASE_WRITE_BATCHES: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
  DATABASE_STATEMENT_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 5_000 }),
  DATABASE_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 0, default: 2_000 }),
  // PostgreSQL's streaming replicas for the reads that may go to one (platform/replicas.ts).
  DATABASE_READ_URL: Type.Optional(Type.String({ minLength: 1 })),
  DATABASE_READ_MAX_WAIT_MS: Type.Integer({ minimum: 0, maximum: 10_000, default: 50 }),
  OPERATOR_EMAIL: Type.String({
    pattern: '^[^\\s@]+@[^\\s@]+$',
    maxLength: 254,
    default: 'operator@localhost',
  }),
  OPERATOR_PASSWORD: Type.Optional(Type.String({ minLength: 10, maxLength: 256 })),
  BACKOFFICE_SECURE_COOKIES: Type.Enum(['auto', 'true', 'false'], { default: 'auto' }),
  BACKOFFICE_SESSION_IDLE_MINUTES: Type.Integer({ minimum: 1, default: 30 }),
  BACKOFFICE_SESSION_MAX_HOURS: Type.Integer({ minimum: 1, default: 12 }),
  SIGN_IN_FAILURES_PER_ACCOUNT: Type.Integer({ minimum: 0, default: 5 }),
  SIGN_IN_FAILURES_PER_ADDRESS: Type.Integer({ minimum: 0, default: 20 }),
  PASSWORD_HASH_COST: Type.Integer({ minimum: 10, maximum: 20, default: 17 }),
  LOG_SIGNING_KEY: Type.Optional(Type.String({ pattern: '^PRIVATE\\+KEY\\+' })),
  LOG_SIGNING_KEY_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LOG_CHECKPOINTS_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LOG_INTEGRATE_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 250 }),
  // Witnesses (docs/witnesses.md): none unless a file lists them.
  LOG_WITNESSES_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LOG_WITNESS_QUORUM: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  LOG_WITNESS_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 600_000, default: 1_000 }),
  LOG_WITNESS_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  // RFC 3161 time-stamping authorities (docs/witnesses.md, "Timestamps"): none unless listed.
  LOG_TSA_URLS: Type.Optional(Type.String({ pattern: '^https?://[^\\s,]+(,https?://[^\\s,]+)*$' })),
  LOG_TSA_CA_FILE: Type.Optional(Type.String({ minLength: 1 })),
  LOG_TIMESTAMP_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 60_000 }),
  LOG_TSA_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  DATA_ENCRYPTION_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9+/]{43}=$' })),
  DATA_ENCRYPTION_KEY_FILE: Type.Optional(Type.String({ minLength: 1 })),
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://[^\\s]+$' })),
  // How often each instance looks for data-subject requests to remind of (docs/requests.md).
  REQUEST_REMINDER_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 86_400_000,
    default: 900_000,
  }),
  // The cookie scanner's browser and bounds (docs/cookie-scans.md).
  CHROMIUM_PATH: Type.Optional(Type.String({ minLength: 1 })),
  COOKIE_SCAN_PAGE_TIMEOUT_MS: Type.Integer({ minimum: 1_000, maximum: 120_000, default: 15_000 }),
  COOKIE_SCAN_TIME_LIMIT_MS: Type.Integer({
    minimum: 5_000,
    maximum: 3_600_000,
    default: 300_000,
  }),
  COOKIE_SCAN_HOST_RULES: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  COOKIE_SCAN_SCHEDULE_INTERVAL_MS: Type.Integer({
    minimum: 10,
    maximum: 86_400_000,
    default: 300_000,
  }),
  // Where a website visitor is (docs/cookies.md, "Rules by region"): a header a trusted proxy
  // sets, or a MaxMind-format database file; none unless named.
  VISITOR_COUNTRY_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' })),
  VISITOR_SUBDIVISION_HEADER: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9-]{1,64}$' })),
  VISITOR_REGION_DATABASE: Type.Optional(Type.String({ minLength: 1 })),
  MAIL_FROM: Type.String({
    minLength: 3,
    maxLength: 320,
    default: 'Consent back-office <no-reply@localhost>',
  }),
  // Metrics and traces (docs/metrics.md): /metrics exists only with one of the two
  // METRICS_ settings; the SDK reads the rest of OTEL_* itself once tracing is on.
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, maxLength: 256, pattern: '^\\S+$' })),
  METRICS_ALLOW: Type.Optional(Type.String({ minLength: 1 })),
  OTEL_SDK_DISABLED: Type.Optional(Type.String()),
  OTEL_SERVICE_NAME: Type.Optional(Type.String({ minLength: 1 })),
  OTEL_TRACES_EXPORTER: Type.Optional(Type.String({ minLength: 1 })),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
  // Webhooks (docs/webhooks.md).
  WEBHOOK_DISPATCH_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 1_000 }),
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  WEBHOOK_RETRY_BASE_MS: Type.Integer({ minimum: 1, default: 5_000 }),
  WEBHOOK_GIVE_UP_AFTER_MS: Type.Integer({ minimum: 1, default: 24 * 60 * 60 * 1000 }),
  WEBHOOK_SECRET_OVERLAP_MS: Type.Integer({ minimum: 0, default: 24 * 60 * 60 * 1000 }),
  WEBHOOK_ALLOW_HTTP_LOOPBACK: Type.Enum(['true', 'false'], { default: 'false' }),
  WEBHOOK_ALLOWED_NETWORKS: Type.String({ default: '' }),
});

/**
 * The settings of `consent-service witness serve`, a witness of other logs (src/witness/): a
 * process of its own, with its own key and store, that reads none of the service's settings.
 */
const WitnessEnvSchema = Type.Object({
  WITNESS_KEY_FILE: Type.String({ minLength: 1, default: 'data/witness.key' }),
  WITNESS_LOGS_FILE: Type.String({ minLength: 1, default: 'data/witness-logs.txt' }),
  WITNESS_STORE: Type.String({ minLength: 1, default: 'data/witness.db' }),
  WITNESS_HOST: Type.String({ minLength: 1, default: '127.0.0.1' }),
  WITNESS_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3100 }),
  LOG_LEVEL: EnvSchema.properties.LOG_LEVEL,
  SQLITE_BUSY_TIMEOUT_MS: EnvSchema.properties.SQLITE_BUSY_TIMEOUT_MS,
});

export interface WitnessConfig {
  /** The witness's signer key (`PRIVATE+KEY+…`, a cosigner key of type 0x04). */
  readonly keyFile: string;
  /** The logs it witnesses: one log verifier key a line, with the origins it may sign. */
  readonly logsFile: string;
  /** Its SQLite file: the latest checkpoint cosigned per log, and the conflicts refused. */
  readonly storePath: string;
  readonly host: string;
  readonly port: number;
  readonly logLevel: Env['LOG_LEVEL'];
  readonly sqliteBusyTimeoutMs: number;
}

/** Reads and validates the witness's settings; throws `ConfigError` naming the bad variable. */
export function loadWitnessConfig(env: NodeJS.ProcessEnv = process.env): WitnessConfig {
  const parsed = parseEnv(WitnessEnvSchema, env);
  return Object.freeze({
    keyFile: parsed.WITNESS_KEY_FILE,
    logsFile: parsed.WITNESS_LOGS_FILE,
    storePath: parsed.WITNESS_STORE,
    host: parsed.WITNESS_HOST,
    port: parsed.WITNESS_PORT,
    logLevel: parsed.LOG_LEVEL,
    sqliteBusyTimeoutMs: parsed.SQLITE_BUSY_TIMEOUT_MS,
  });
}

/** Every environment variable the service reads (the README's configuration table lists them). */
export const settingNames: readonly string[] = [
  ...new Set([...Object.keys(EnvSchema.properties), ...Object.keys(WitnessEnvSchema.properties)]),
];

export type Env = Static<typeof EnvSchema>;

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  /** Base of the service's own content-file URLs, without a trailing slash. */
  readonly publicBaseUrl: string;
  /**
   * Whether `PUBLIC_BASE_URL` set `publicBaseUrl`; else it is `http://localhost:$PORT`, and the
   * command line prints its URLs on the one kept with the store (src/platform/public-base-url.ts).
   */
  readonly publicBaseUrlGiven: boolean;
  readonly logLevel: string;
  /** Requests per API key per minute; 0 turns the limit off. */
  readonly rateLimitPerMinute: number;
  /** Requests per address and system per minute on the public cookie endpoints; 0: no limit. */
  readonly cookieRateLimitPerMinute: number;
  /** Failed key checks an address may make per minute before it is refused for the minute. */
  readonly authFailuresPerMinute: number;
  /** Fastify's `trustProxy`: false, true, a hop count, or addresses/subnets (comma-separated). */
  readonly trustProxy: boolean | string | ((address: string, hop: number) => boolean);
  readonly shutdownTimeoutMs: number;
  /** Processes serving the port (`WORKERS`; `auto` is one per core). */
  readonly workers: number;
  readonly sqliteBusyTimeoutMs: number;
  /** An SQLite file: threads that read for `pending` off the event loop (0: the main thread). */
  readonly sqliteReaderThreads: number;
  /**
   * An SQLite file: free disk wanted beside it, beyond its size, before migrations are applied
   * (a migration may rewrite the whole file inside its transaction).
   */
  readonly migrationFreeDiskMarginMb: number;
  /** PostgreSQL: connections per instance. */
  readonly databasePoolSize: number;
  /** PostgreSQL: batches of records written at once by an instance (the group commit). */
  readonly databaseWriteBatches: number;
  /** PostgreSQL: the server cancels a statement running longer (0: no limit). */
  readonly databaseStatementTimeoutMs: number;
  /** PostgreSQL: how long to wait for a new connection before answering 503. */
  readonly databaseConnectTimeoutMs: number;
  /** PostgreSQL: streaming replicas for `pending`, history and as-of (none: the primary). */
  readonly databaseReadUrls: readonly string[];
  /** How long a read waits for a replica to replay up to the primary's position. */
  readonly databaseReadMaxWaitMs: number;
  /** The back-office operator's e-mail (the service's super-administrator). */
  readonly operatorEmail: string;
  /** When set, the operator's password is this one at every start; else made once at random. */
  readonly operatorPassword: string | undefined;
  /** Back-office cookies carry `Secure` (and the `__Host-` prefix). */
  readonly secureCookies: boolean;
  readonly sessionIdleMinutes: number;
  readonly sessionMaxHours: number;
  /** Failed back-office sign-ins before each further attempt waits longer (0: no slowdown). */
  readonly signInFailuresPerAccount: number;
  readonly signInFailuresPerAddress: number;
  /**
   * log2 of scrypt's N for the password hashes made from now on (17, OWASP's floor, unless
   * lowered for tests); a stored hash keeps the parameters it was made with.
   */
  readonly passwordHashCost: number;
  /** The decision log's signing key as C2SP signer key text, when given directly. */
  readonly logSigningKey: string | undefined;
  /** Else the file that holds it; made on first start when missing. */
  readonly logSigningKeyFile: string;
  /**
   * Where the largest checkpoint signed for each log is kept, outside the store (beside the
   * signing key by default), so that a store restored from an earlier backup is not signed on
   * behind it (docs/proof.md, "Restores and log epochs").
   */
  readonly logCheckpointsFile: string;
  /** base64 of the 32-byte key every customer's own key is sealed under (see src/subjects). */
  readonly dataEncryptionKey: string | undefined;
  /** Where the data key is kept when `dataEncryptionKey` is unset; created on first start. */
  readonly dataEncryptionKeyFile: string;
  /** How often each instance looks for queued leaves to append to the decision log. */
  readonly logIntegrateIntervalMs: number;
  readonly witnesses: WitnessSettings;
  readonly timestamps: TimestampSettings;
  /** Where the back-office's e-mails go out (`smtp://` or `smtps://`); none: links are shown. */
  readonly smtpUrl: string | undefined;
  /** The sender of the back-office's e-mails. */
  readonly mailFrom: string;
  /** How often each instance looks for data-subject requests due soon, to remind of them. */
  readonly requestReminderIntervalMs: number;
  readonly cookieScans: CookieScanSettings;
  readonly visitorRegion: VisitorRegionSettings;
  /** `/metrics` answers a request bearing this token (`Authorization: Bearer`). */
  readonly metricsToken: string | undefined;
  /** `/metrics` answers a request from these addresses or CIDR subnets; none: any address. */
  readonly metricsAllow: readonly Subnet[] | undefined;
  /** Traces are exported (OpenTelemetry); the SDK is loaded only then. */
  readonly tracing: boolean;
  readonly webhooks: WebhookSettings;
}

/** Where a website visitor's region comes from (src/platform/visitor-region.ts). */
export interface VisitorRegionSettings {
  /** A header a trusted proxy sets to the visitor's country (`CF-IPCountry`), lower-case. */
  countryHeader: string | undefined;
  /** A header with the code of the country's subdivision (`CloudFront-Viewer-Country-Region`). */
  subdivisionHeader: string | undefined;
  /** A MaxMind-format database (GeoIP2 / GeoLite2 Country or City), asked when no header says. */
  database: string | undefined;
}

/** How the cookie scanner runs its browser, and for how long (docs/cookie-scans.md). */
export interface CookieScanSettings {
  /** A Chromium to run, or `packaged`; none: the system's /usr/bin/chromium, else the packaged one. */
  readonly chromiumPath: string | undefined;
  /** How long one page may take to load and settle in one phase. */
  readonly pageTimeoutMs: number;
  /** How long a whole scan may take; the pages not reached by then are reported, not scanned. */
  readonly timeLimitMs: number;
  /** Chromium's `--host-resolver-rules`: a staging host scanned under its real name. */
  readonly hostRules: string | undefined;
  /** How often each instance looks for systems whose scheduled scan is due. */
  readonly scheduleIntervalMs: number;
}

/** How webhooks are delivered (docs/webhooks.md). */
/** The witnesses the log's checkpoints are sent to for cosigning (docs/witnesses.md). */
export interface WitnessSettings {
  /** `LOG_WITNESSES_FILE`: one witness a line, `<name> <verifier key> <URL>`; none when unset. */
  readonly file: string | undefined;
  /** How many cosignatures make a checkpoint witnessed; every witness listed when unset. */
  readonly quorum: number | undefined;
  /** How often each instance submits the newest checkpoints (start to start). */
  readonly intervalMs: number;
  /** How long one request to a witness may take before it counts as failed. */
  readonly timeoutMs: number;
}

/** The time-stamping authorities checkpoints are sent to (RFC 3161; docs/witnesses.md). */
export interface TimestampSettings {
  /** `LOG_TSA_URLS`: where time-stamp queries are posted; none when unset. */
  readonly urls: readonly string[];
  /** `LOG_TSA_CA_FILE`: the PEM roots every token is verified against before it is kept. */
  readonly caFile: string | undefined;
  /** At most one token per log and authority this often. */
  readonly intervalMs: number;
  readonly timeoutMs: number;
}

export interface WebhookSettings {
  /** How often each instance looks for events to send (start to start). */
  readonly dispatchIntervalMs: number;
  /** One attempt's bound, connection to last byte. */
  readonly timeoutMs: number;
  /** The first retry's delay; later ones grow from it (5 s, 30 s, 2 min, … at 5 000). */
  readonly retryBaseMs: number;
  /** After failing this long from the first failure, the endpoint is disabled. */
  readonly giveUpAfterMs: number;
  /** How long after a rotation the old secret still signs beside the new one (0: not at all). */
  readonly secretOverlapMs: number;
  /** Development: `http://` to loopback addresses only. */
  readonly allowHttpLoopback: boolean;
  /** CIDR ranges the operator allows although private, loopback or reserved. */
  readonly allowedNetworks: readonly Subnet[];
}

export class ConfigError extends Error {}

/** `DATABASE_READ_URL`: PostgreSQL URLs, comma-separated, for a PostgreSQL `DATABASE_URL` only. */
function readUrlsOf(text: string | undefined, databaseUrl: string): string[] {
  if (text === undefined) return [];
  const urls = text
    .split(',')
    .map((url) => url.trim())
    .filter(Boolean);
  if (!isPostgresUrl(databaseUrl)) {
    throw new ConfigError(
      'Invalid configuration: DATABASE_READ_URL needs a PostgreSQL DATABASE_URL (an SQLite file reads on its own threads)',
    );
  }
  if (urls.length === 0 || urls.some((url) => !isPostgresUrl(url))) {
    throw new ConfigError(
      'Invalid configuration: DATABASE_READ_URL must be PostgreSQL URLs (postgres://…), comma-separated',
    );
  }
  return urls;
}

/** Reads, validates and freezes the configuration; throws `ConfigError` naming the bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed: Env = parseEnv(EnvSchema, env);
  const publicBaseUrl = publicBaseUrlOf(
    parsed.PUBLIC_BASE_URL ?? `http://localhost:${parsed.PORT}`,
  );
  return Object.freeze({
    port: parsed.PORT,
    host: parsed.HOST,
    databaseUrl: parsed.DATABASE_URL,
    publicBaseUrl,
    publicBaseUrlGiven: parsed.PUBLIC_BASE_URL !== undefined,
    logLevel: parsed.LOG_LEVEL,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    cookieRateLimitPerMinute: parsed.COOKIE_RATE_LIMIT_PER_MINUTE,
    authFailuresPerMinute: parsed.AUTH_FAILURES_PER_MINUTE,
    trustProxy: parseTrustProxy(parsed.TRUST_PROXY),
    shutdownTimeoutMs: parsed.SHUTDOWN_TIMEOUT_MS,
    workers: parsed.WORKERS === 'auto' ? availableParallelism() : Number(parsed.WORKERS),
    sqliteBusyTimeoutMs: parsed.SQLITE_BUSY_TIMEOUT_MS,
    sqliteReaderThreads: parsed.SQLITE_READER_THREADS,
    migrationFreeDiskMarginMb: parsed.MIGRATION_FREE_DISK_MARGIN_MB,
    databasePoolSize: parsed.DATABASE_POOL_SIZE,
    databaseWriteBatches: parsed.DATABASE_WRITE_BATCHES,
    databaseStatementTimeoutMs: parsed.DATABASE_STATEMENT_TIMEOUT_MS,
    databaseConnectTimeoutMs: parsed.DATABASE_CONNECT_TIMEOUT_MS,
    databaseReadUrls: readUrlsOf(parsed.DATABASE_READ_URL, parsed.DATABASE_URL),
    databaseReadMaxWaitMs: parsed.DATABASE_READ_MAX_WAIT_MS,
    operatorEmail: parsed.OPERATOR_EMAIL.toLowerCase(),
    operatorPassword: parsed.OPERATOR_PASSWORD,
    secureCookies:
      parsed.BACKOFFICE_SECURE_COOKIES === 'auto'
        ? publicBaseUrl.startsWith('https://')
        : parsed.BACKOFFICE_SECURE_COOKIES === 'true',
    sessionIdleMinutes: parsed.BACKOFFICE_SESSION_IDLE_MINUTES,
    sessionMaxHours: parsed.BACKOFFICE_SESSION_MAX_HOURS,
    signInFailuresPerAccount: parsed.SIGN_IN_FAILURES_PER_ACCOUNT,
    signInFailuresPerAddress: parsed.SIGN_IN_FAILURES_PER_ADDRESS,
    passwordHashCost: parsed.PASSWORD_HASH_COST,
    logSigningKey: parsed.LOG_SIGNING_KEY,
    logSigningKeyFile:
      parsed.LOG_SIGNING_KEY_FILE ?? defaultKeyFile(parsed.DATABASE_URL, 'log-signing.key'),
    logCheckpointsFile:
      parsed.LOG_CHECKPOINTS_FILE ??
      join(
        dirname(
          parsed.LOG_SIGNING_KEY_FILE ?? defaultKeyFile(parsed.DATABASE_URL, 'log-signing.key'),
        ),
        'log-checkpoints.json',
      ),
    dataEncryptionKey: parsed.DATA_ENCRYPTION_KEY,
    dataEncryptionKeyFile:
      parsed.DATA_ENCRYPTION_KEY_FILE ?? defaultKeyFile(parsed.DATABASE_URL, 'data-encryption.key'),
    logIntegrateIntervalMs: parsed.LOG_INTEGRATE_INTERVAL_MS,
    timestamps: Object.freeze({
      urls: Object.freeze(parsed.LOG_TSA_URLS?.split(',') ?? []),
      caFile: parsed.LOG_TSA_CA_FILE,
      intervalMs: parsed.LOG_TIMESTAMP_INTERVAL_MS,
      timeoutMs: parsed.LOG_TSA_TIMEOUT_MS,
    }),
    witnesses: Object.freeze({
      file: parsed.LOG_WITNESSES_FILE,
      quorum: parsed.LOG_WITNESS_QUORUM,
      intervalMs: parsed.LOG_WITNESS_INTERVAL_MS,
      timeoutMs: parsed.LOG_WITNESS_TIMEOUT_MS,
    }),
    smtpUrl: parsed.SMTP_URL,
    mailFrom: parsed.MAIL_FROM,
    requestReminderIntervalMs: parsed.REQUEST_REMINDER_INTERVAL_MS,
    cookieScans: Object.freeze({
      chromiumPath: parsed.CHROMIUM_PATH,
      pageTimeoutMs: parsed.COOKIE_SCAN_PAGE_TIMEOUT_MS,
      timeLimitMs: parsed.COOKIE_SCAN_TIME_LIMIT_MS,
      hostRules: parsed.COOKIE_SCAN_HOST_RULES,
      scheduleIntervalMs: parsed.COOKIE_SCAN_SCHEDULE_INTERVAL_MS,
    }),
    visitorRegion: Object.freeze({
      countryHeader: parsed.VISITOR_COUNTRY_HEADER?.toLowerCase(),
      subdivisionHeader: parsed.VISITOR_SUBDIVISION_HEADER?.toLowerCase(),
      database: parsed.VISITOR_REGION_DATABASE,
    }),
    metricsToken: parsed.METRICS_TOKEN,
    metricsAllow:
      parsed.METRICS_ALLOW === undefined
        ? undefined
        : subnetsSetting('METRICS_ALLOW', parsed.METRICS_ALLOW),
    tracing: tracingWanted(parsed),
    webhooks: Object.freeze({
      dispatchIntervalMs: parsed.WEBHOOK_DISPATCH_INTERVAL_MS,
      timeoutMs: parsed.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: parsed.WEBHOOK_RETRY_BASE_MS,
      giveUpAfterMs: parsed.WEBHOOK_GIVE_UP_AFTER_MS,
      secretOverlapMs: parsed.WEBHOOK_SECRET_OVERLAP_MS,
      allowHttpLoopback: parsed.WEBHOOK_ALLOW_HTTP_LOOPBACK === 'true',
      allowedNetworks:
        parsed.WEBHOOK_ALLOWED_NETWORKS.trim() === ''
          ? Object.freeze([])
          : subnetsSetting('WEBHOOK_ALLOWED_NETWORKS', parsed.WEBHOOK_ALLOWED_NETWORKS),
    }),
  });
}

/** The schema's variables from the environment, defaulted, converted and checked. */
function parseEnv<Schema extends TObject>(schema: Schema, env: NodeJS.ProcessEnv): Static<Schema> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const candidate = Value.Convert(schema, Value.Default(schema, raw));
  if (!Value.Check(schema, candidate)) {
    const problems = Value.Errors(schema, candidate)
      .map((e) => `${e.instancePath.replace(/^\//, '') || 'environment'} ${e.message}`)
      .join('; ');
    throw new ConfigError(`Invalid configuration: ${problems}`);
  }
  return candidate;
}

/**
 * Whether the entry point starts the OpenTelemetry SDK, and under which service name: read
 * before anything else loads (so before `loadConfig`, whose errors the command line reports).
 */
export function tracingSettings(
  env: NodeJS.ProcessEnv = process.env,
): { serviceName: string } | undefined {
  const settings = {
    OTEL_SDK_DISABLED: env.OTEL_SDK_DISABLED,
    OTEL_TRACES_EXPORTER: env.OTEL_TRACES_EXPORTER || undefined,
    OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined,
  };
  if (!tracingWanted(settings)) return undefined;
  return { serviceName: env.OTEL_SERVICE_NAME || 'consent-service' };
}

/**
 * An allow-list setting (`METRICS_ALLOW`, `WEBHOOK_ALLOWED_NETWORKS`): comma-separated addresses
 * and CIDR subnets, each checked now; a bad entry is a `ConfigError` naming the setting.
 */
function subnetsSetting(name: string, value: string): readonly Subnet[] {
  try {
    return Object.freeze(parseSubnets(value));
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${name} ${(error as Error).message}`);
  }
}

/**
 * Traces are on when an exporter or an OTLP endpoint is named, as the OpenTelemetry
 * specification's variables say; `OTEL_SDK_DISABLED=true` turns them off whatever else is set.
 */
function tracingWanted(
  env: Pick<
    Env,
    | 'OTEL_SDK_DISABLED'
    | 'OTEL_TRACES_EXPORTER'
    | 'OTEL_EXPORTER_OTLP_ENDPOINT'
    | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  >,
): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER;
  if (exporter !== undefined) return exporter.split(',').some((e) => e.trim() !== 'none');
  return (
    env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined
  );
}

/** Beside an SQLite file; in `data/` for PostgreSQL and in-memory stores. */
function defaultKeyFile(databaseUrl: string, name: string): string {
  const path = isPostgresUrl(databaseUrl) ? ':memory:' : sqlitePath(databaseUrl);
  return path === ':memory:' ? join('data', name) : join(dirname(path), name);
}

function parseTrustProxy(value: string): Config['trustProxy'] {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return (_address, hop) => hop < hops;
  }
  return value;
}
