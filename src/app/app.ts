import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyInstance,
  type FastifyServerOptions,
  type RouteOptions,
} from 'fastify';
import {
  type AfterKeyCheck,
  createApiKeyGate,
  createAuthThrottle,
  createKeyCheck,
  refuseUnroutable,
} from '../api-keys/index.js';
import { backoffice } from '../backoffice/plugin.js';
import { type ChannelChangeOutcome, channelChanges } from '../channels/index.js';
import { channelRoutes } from '../channels/routes.js';
import { consentStatusRoutes } from '../consent-status/routes.js';
import { runDueScans, scanPageUrl, scanRunner } from '../cookie-scanner/index.js';
import { cookieCustomerTokenRoutes, cookieDecisionApiRoutes } from '../cookies/api-routes.js';
import {
  type CookieChoiceJob,
  type CookieChoiceOutcome,
  cookieChoices,
  countRefusedOrigins,
} from '../cookies/index.js';
import { cookieRoutes } from '../cookies/routes.js';
import { exportRoutes } from '../decision-log/export-routes.js';
import {
  idleTimestamping,
  idleWitnessing,
  loadSigningKey,
  loadTsaPolicy,
  loadWitnessPolicy,
  startTimestamping,
  startWitnessing,
  type Timestamping,
  type Witnessing,
} from '../decision-log/index.js';
import { logRoutes } from '../decision-log/routes.js';
import {
  type DecisionJob,
  type DecisionOutcome,
  type DecisionWriterHandle,
  decisions,
  heldActs,
  pendingReads,
  tellLapses,
} from '../decisions/index.js';
import { decisionRoutes } from '../decisions/routes.js';
import { evidenceRoutes } from '../evidence/routes.js';
import { healthRoutes } from '../health/routes.js';
import {
  createMetrics,
  type Metrics,
  metricsEnabled,
  metricsGatherer,
  observedDecisions,
  storeObserver,
} from '../metrics/index.js';
import { metricsRoutes } from '../metrics/routes.js';
import { type PartnerBlockOutcome, partnerBlocks } from '../partner-blocks/index.js';
import { partnerBlockRoutes } from '../partner-blocks/routes.js';
import type { Config } from '../platform/config.js';
import { loadDataKey } from '../platform/data-key.js';
import { type Db, isPostgres } from '../platform/db.js';
import { installErrorHandler, sendError } from '../platform/error-handler.js';
import { AppError, errorBody } from '../platform/errors.js';
import { installHttpMetrics } from '../platform/http-metrics.js';
import { installJsonBodyParser } from '../platform/json-body.js';
import { createMailer } from '../platform/mail.js';
import { trackRoutes } from '../platform/method-not-allowed.js';
import { registerOpenApi } from '../platform/openapi.js';
import { keepPartitionsAhead, partitionCheckIntervalMs } from '../platform/partitions.js';
import { type Periodic, startPeriodic } from '../platform/periodic.js';
import { createRateLimit } from '../platform/rate-limit.js';
import { readBatchesInFlight } from '../platform/read-batches.js';
import { readerDb } from '../platform/reader-db.js';
import { type ReaderThreads, readerThreadsFor } from '../platform/reader-threads.js';
import { createReplicas, readOnOf } from '../platform/replicas.js';
import { requestIdFor } from '../platform/request-id.js';
import { logEachRequest, logWhenSent, oneLinePerRequest } from '../platform/request-log.js';
import { sharedSchemaCompilers } from '../platform/schema-compilers.js';
import { setSecurityHeaders } from '../platform/security-headers.js';
import { serviceVersion } from '../platform/version.js';
import { openVisitorRegion } from '../platform/visitor-region.js';
import { preferenceSecrets } from '../preference-centre/index.js';
import {
  preferenceCentreSettingsRoutes,
  preferenceLinkRoutes,
} from '../preference-centre/routes.js';
import { preferencePage } from '../preference-page/plugin.js';
import type { ControlJob, Registry } from '../record-kinds/index.js';
import { consentRoutes } from '../records/routes.js';
import { remindDueRequests } from '../requests/index.js';
import { deliveryRoutes, requestRoutes } from '../requests/routes.js';
import { scimRoutes } from '../scim/routes.js';
import { createVault } from '../subjects/index.js';
import { contentRoutes, uploadedFileRoutes } from '../templates/content-routes.js';
import { createCatalog } from '../templates/index.js';
import { templateRoutes } from '../templates/routes.js';
import {
  type Dispatcher,
  idleDispatcher,
  startDispatcher,
  webhookPayloads,
} from '../webhooks/index.js';
import { createWriters, type Writers } from '../write-path/writers.js';
import { createHotReads, type HotReads, latestRoute, pendingRoute } from './hot-reads.js';
import { registry as serviceKinds } from './kinds.js';
import { timeTables } from './time-tables.js';

/** The contract's limit on request bodies. */
export const bodyLimit = 16 * 1024;

/** The service's logger settings (pino, through Fastify) at a level; tests add a stream. */
export function serviceLogger(level: string): FastifyServerOptions['logger'] & object {
  return { level, redact: ['req.headers["x-system-api-key"]', 'req.headers.authorization'] };
}

export interface AppOptions {
  /** Fastify's logger option; tests pass `false`. Defaults to JSON logs at `config.logLevel`. */
  logger?: FastifyServerOptions['logger'];
  /** Told of every route as it is registered (the route tests list them, with their options). */
  onRoute?: (route: RouteOptions) => void;
  /** Told of the SQLite file's reader threads once made (the tests give them slow reads). */
  onReaders?: (readers: ReaderThreads) => void;
  /** Told of the writer of decisions once made (the fault tests reach its connection). */
  onDecisionWriter?: (writer: DecisionWriterHandle) => void;
  /**
   * Told of the hot path's writers once made: tests record channel changes and partner blocks
   * through the service functions with what no route sets yet (a preference centre's `via`).
   */
  onWriters?: (writers: Writers) => void;
  /**
   * The app's metrics when `/metrics` is on, made with its store (so that it times the store's
   * statements: `storeObserver`); made here when not given.
   */
  metrics?: Metrics;
  /**
   * The kinds of record the service keeps (`kinds.ts`); a test adds a kind of its own to a
   * registry of its own.
   */
  registry?: Registry;
}

/** Builds the whole service, ready to `inject` or `listen`; never listens itself. */
export async function buildApp(
  config: Config,
  db: Db,
  options: AppOptions = {},
): Promise<FastifyInstance> {
  // Metrics and traces (src/metrics): nothing is counted unless /metrics is served.
  const metrics = metricsEnabled(config) ? (options.metrics ?? createMetrics()) : undefined;
  const keys = createKeyCheck(
    db,
    (details, message) => app.log.warn(details, message),
    metrics?.cache('api_keys'),
  );
  // The rate limit counts every request that passed the key check, routed or not (contract
  // section 2: key, then rate limit, then everything else).
  const rateLimit = createRateLimit(config.rateLimitPerMinute);
  const limitCaller: AfterKeyCheck = (request, reply) =>
    rateLimit && request.caller ? rateLimit(request.caller.apiKeyId, reply) : undefined;
  // `latest` and `pending` in the common case are answered before Fastify (hot-reads.ts); with
  // traces on, every request goes through Fastify, whose instrumentation makes the spans.
  let hotReads: HotReads | undefined;
  const app = Fastify({
    serverFactory: (handler, settings) =>
      serverWith(settings, (request, response) => {
        const fallback = () => handler(request, response);
        if (!hotReads?.(request, response, fallback)) fallback();
      }),
    logger: options.logger ?? serviceLogger(config.logLevel),
    bodyLimit,
    // One line per request (logEachRequest) instead of Fastify's two: the same facts, half the cost.
    logController: oneLinePerRequest,
    trustProxy: config.trustProxy,
    requestIdHeader: false,
    // customer_id may be 128 characters; longer parameters fail validation as 400 1001.
    routerOptions: { maxParamLength: 256 },
    genReqId: requestIdFor,
    // Our own onRequest check answers 503 1009 while closing, in the contract's shape.
    return503OnClosing: false,
    // Compiled once a process, whatever the number of apps built in it (the tests build many).
    schemaController: { compilersFactory: sharedSchemaCompilers },
    ajv: {
      // Unknown fields are refused and types are never coerced (`["given"]` is not `"given"`).
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: true },
    },
    // Malformed or over-long paths fail before any hook runs; the key check and the rate limit
    // still come first.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      logWhenSent(request, reply);
      void refuseUnroutable(keys, limitCaller, error, request, reply);
    },
    clientErrorHandler: (error, socket) => {
      if (!socket.writable) return socket.destroy(error);
      // As Node's own default handler does: a request already being answered (a 401 sent before
      // its malformed body was parsed) gets no second response, and its connection is closed.
      const inFlight = (socket as { _httpMessage?: { headersSent: boolean } | null })._httpMessage;
      if (inFlight?.headersSent) return socket.end();
      const body = JSON.stringify(errorBody(new AppError('invalidRequest')));
      socket.end(
        'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n' +
          `X-Request-Id: ${randomUUID()}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  if (options.onRoute) app.addHook('onRoute', options.onRoute);

  // Only JSON bodies are read: anything else is 415 before validation. A JSON body that names a
  // key twice is 400 1001.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);

  let closing = false;
  logEachRequest(app);
  const routeObservers = metrics ? installHttpMetrics(app, metrics.registry) : undefined;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A request in flight when shutdown began is answered, and its keep-alive connection closed
  // with it, or the server would wait for the client to hang up.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });

  installErrorHandler(app);
  const throttle = createAuthThrottle(config.authFailuresPerMinute);
  const checkKey = createApiKeyGate(app, keys, throttle);
  const unrouted = trackRoutes(app);
  // One hook for what every request goes through before its body is read, in the contract's
  // order: its id and the security headers, the shutdown gate, the key check, the rate limit,
  // and a request that matched no route refused. A callback, and no promise unless the key
  // must be read from the store: each hook and each promise costs every request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    setSecurityHeaders(reply);
    if (closing) return done(new AppError('unavailable'));
    checkKey(request, (refusal) => {
      if (refusal) return done(refusal);
      done(limitCaller(request, reply) ?? (request.is404 ? unrouted(request) : undefined));
    });
  });
  app.setNotFoundHandler(async (request, reply) => sendError(unrouted(request), request, reply));

  const catalog = createCatalog(db, config.publicBaseUrl, metrics?.cache('catalog'));
  // Every customer's personal data is sealed under their own key, itself under this one.
  const vault = createVault(
    loadDataKey(config, (details, message) => app.log.warn(details, message)),
  );
  // The hot path's writes (decisions, the decision log's appends) run beside the requests, from
  // the first `ready` to `close`: on an SQLite file, in a thread of their own (writers.ts).
  const signer = loadSigningKey(config, app.log);
  // Witnesses cosign the log's checkpoints (docs/witnesses.md), off the request path.
  const witnesses = loadWitnessPolicy(config.witnesses);
  let witnessing: Witnessing = idleWitnessing;
  app.addHook('onReady', async () => {
    witnessing = startWitnessing(db, witnesses, config.witnesses, app.log, metrics?.witnessFailed);
  });
  app.addHook('onClose', async () => witnessing.stop());
  // Time-stamping authorities time-stamp them (RFC 3161), off the request path too.
  const tsas = loadTsaPolicy(config.timestamps);
  let timestamping: Timestamping = idleTimestamping;
  app.addHook('onReady', async () => {
    timestamping = startTimestamping(db, tsas, app.log, metrics?.timestampFailed);
  });
  app.addHook('onClose', async () => timestamping.stop());
  const outside = { witnesses, timestamped: tsas.urls.length > 0, tsaRoots: tsas.roots };
  const kickLog = async () => {
    await writers.integrator().kick();
    await witnessing.kick();
  };
  // The preference centre's links and sessions, under keys derived from the data key.
  const secrets = preferenceSecrets(vault.dataKey);
  const registry = options.registry ?? serviceKinds;
  const writers = createWriters(config, db, vault, registry, signer, app.log, {
    logLevel: options.logger === false ? 'silent' : config.logLevel,
    ...(metrics ? { onBatch: metrics.batchCommitted } : {}),
  });
  const decisionHandle: DecisionWriterHandle = {
    ...writers.of<DecisionJob, DecisionOutcome>(decisions),
    failing: writers.failing,
    stats: writers.stats,
    execute: writers.execute,
  };
  const channelWriter = writers.of<ControlJob, ChannelChangeOutcome>(channelChanges.kind);
  const partnerWriter = writers.of<ControlJob, PartnerBlockOutcome>(partnerBlocks.kind);
  const decisionWriter = observedDecisions(decisionHandle, metrics, config.tracing);
  options.onDecisionWriter?.(decisionHandle);
  options.onWriters?.(writers);
  app.addHook('onReady', () => writers.start());
  app.addHook('onClose', () => writers.close());
  // `pending`'s reads: on an SQLite file's reader threads, batched on PostgreSQL
  // (decisions/pending-repository.ts).
  const readers = readerThreadsFor(config, storeObserver(config, metrics));
  if (readers) {
    options.onReaders?.(readers);
    app.addHook('onClose', () => readers.close());
  }
  // PostgreSQL's streaming replicas, for `pending` and a customer's history and as-of when they
  // are caught up (platform/replicas.ts).
  const replicas = createReplicas(db, {
    urls: config.databaseReadUrls,
    poolSize: config.databasePoolSize,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    maxWaitMs: config.databaseReadMaxWaitMs,
  });
  if (replicas) app.addHook('onClose', () => replicas.close());
  const pending = pendingReads(db, readers, readBatchesInFlight(config.databasePoolSize), replicas);
  // The first acts of co-consents (PDPA section 20), held until the other side's.
  const held = heldActs(db, vault);
  if (!config.tracing) {
    hotReads = createHotReads({
      config,
      keys,
      throttle,
      rateLimit,
      catalog,
      pending,
      held,
      vault,
      log: app.log,
      closing: () => closing,
      ...(routeObservers
        ? {
            observe: { latest: routeObservers(latestRoute), pending: routeObservers(pendingRoute) },
          }
        : {}),
    });
  }
  // Webhooks: every instance sends, one instance per endpoint at a time (src/webhooks).
  let dispatcher: Dispatcher = idleDispatcher;
  app.addHook('onReady', async () => {
    dispatcher = startDispatcher(
      db,
      vault,
      registry,
      config.webhooks,
      app.log,
      metrics?.webhookAttempt,
    );
  });
  app.addHook('onClose', () => dispatcher.stop());
  // Lapsed consents are told (`consent.lapsed`) by a pass every instance runs, each lapse once.
  let lapses: Periodic | undefined;
  app.addHook('onReady', async () => {
    lapses = startPeriodic(
      config.webhooks.dispatchIntervalMs,
      async () => void (await tellLapses(db, vault)),
      (error) => app.log.error({ err: error }, 'telling lapsed consents failed; retrying'),
    );
  });
  app.addHook('onClose', async () => lapses?.stop());
  // On a PostgreSQL store partitioned by time, the partitions a record will need are made ahead
  // of it, by a pass every instance runs at start and hourly (one at a time; nothing to do for a
  // table kept whole). SQLite keeps each table whole: no pass.
  let partitionsAhead: Periodic | undefined;
  app.addHook('onReady', async () => {
    if (!isPostgres(db)) return;
    const tables = timeTables(registry);
    partitionsAhead = startPeriodic(
      partitionCheckIntervalMs,
      async () => void (await keepPartitionsAhead(db, tables)),
      (error) => app.log.error({ err: error }, 'making the partitions ahead failed; retrying'),
    );
    void partitionsAhead.run();
  });
  app.addHook('onClose', async () => partitionsAhead?.stop());
  await registerOpenApi(app, {
    version: serviceVersion,
    publicBaseUrl: config.publicBaseUrl,
    webhooks: webhookPayloads(registry),
  });
  await app.register(healthRoutes, {
    db,
    writes: decisionHandle,
    ...(witnesses.quorum > 0 ? { witnesses: () => witnessing.status() } : {}),
    ...(replicas ? { replicas: () => replicas.states() } : {}),
  });
  await app.register(contentRoutes, { db });
  // What a customer's evidence pack is made with, wherever one is made.
  const packs = { db, vault, registry, signer, kick: () => writers.integrator().kick(), outside };
  await app.register(deliveryRoutes, packs);
  await app.register(uploadedFileRoutes, { db });
  // Reads that may lag go to a caught-up replica when there is one, and on an SQLite file to
  // its reader threads, off the event loop (platform/reader-db.ts).
  const readOn = readOnOf(readers ? readerDb(readers) : db, replicas);
  await app.register(async (v1) => {
    await v1.register(templateRoutes, { catalog });
    await v1.register(decisionRoutes, {
      reads: pending,
      catalog,
      writer: decisionWriter,
      vault,
      held,
    });
    await v1.register(consentRoutes, { readOn, catalog, vault, registry });
    await v1.register(channelRoutes, { db, writer: channelWriter, vault });
    await v1.register(partnerBlockRoutes, { db, writer: partnerWriter, vault });
    await v1.register(consentStatusRoutes, {
      readOn,
      catalog,
      vault,
      signer,
      kick: () => writers.integrator().kick(),
    });
    await v1.register(logRoutes, {
      db,
      signer,
      kick: kickLog,
      vault,
      registry,
      outside,
    });
    await v1.register(evidenceRoutes, packs);
    await v1.register(preferenceLinkRoutes, {
      db,
      secrets,
      publicBaseUrl: config.publicBaseUrl,
    });
    await v1.register(cookieDecisionApiRoutes, {
      db,
      vault,
      publicBaseUrl: config.publicBaseUrl,
    });
    await v1.register(cookieCustomerTokenRoutes, { db, vault });
    await v1.register(preferenceCentreSettingsRoutes, { db });
    await v1.register(requestRoutes, {
      db,
      vault,
      fulfil: { registry, decisions: { writer: decisionWriter, catalog } },
      publicBaseUrl: config.publicBaseUrl,
    });
    await v1.register(exportRoutes, {
      readOn,
      kick: () => writers.integrator().kick(),
      publicBaseUrl: config.publicBaseUrl,
      vault,
      registry,
    });
  });
  // A tenant's identity provider provisions its team over SCIM 2.0, with a token of the tenant.
  await app.register(scimRoutes, {
    prefix: '/scim/v2',
    db,
    publicBaseUrl: config.publicBaseUrl,
    throttle,
  });
  // Choices refused for their origin, counted in memory and added to the store every few seconds.
  const refusedOrigins = countRefusedOrigins(db, (error) =>
    app.log.warn({ err: error }, 'refused origins not stored; kept for the next pass'),
  );
  app.addHook('onClose', () => refusedOrigins.close());
  await app.register(cookieRoutes, {
    db,
    refused: refusedOrigins.note,
    writer: writers.of<CookieChoiceJob, CookieChoiceOutcome>(cookieChoices),
    vault,
    publicBaseUrl: config.publicBaseUrl,
    perMinute: config.cookieRateLimitPerMinute,
    region: await openVisitorRegion(config.visitorRegion),
  });
  // The customer's own page (src/preference-page), opened by a link from the tenant's backend,
  // or by a code e-mailed to the customer.
  const pageMailer = createMailer(config);
  if (pageMailer) app.addHook('onClose', async () => pageMailer.close());
  // Data-subject requests due soon are reminded of by e-mail, each reminder once (every
  // instance runs the pass; the first to take a reminder sends it).
  let reminders: Periodic | undefined;
  if (pageMailer) {
    const mailer = pageMailer;
    app.addHook('onReady', async () => {
      reminders = startPeriodic(
        config.requestReminderIntervalMs,
        async () =>
          void (await remindDueRequests(
            db,
            mailer,
            (id) => `${config.publicBaseUrl}/backoffice/requests/${id}`,
          )),
        (error) => app.log.error({ err: error }, 'reminding of requests due failed; retrying'),
      );
    });
    app.addHook('onClose', async () => reminders?.stop());
  }
  // Cookie scans (docs/cookie-scans.md): those started from the back-office run in the
  // background here; those on a schedule by a pass every instance runs (the first to take a due
  // schedule scans). A flagged scan tells the webhooks and, with SMTP_URL, the system's editors.
  const scanTeller = {
    mailer: pageMailer,
    page: (scope: string, id: string) => scanPageUrl(config.publicBaseUrl, scope, id),
  };
  const scans = scanRunner(db, config.cookieScans, config.publicBaseUrl, scanTeller, (error) =>
    app.log.error({ err: error }, 'a cookie scan failed'),
  );
  let scheduledScans: Periodic | undefined;
  app.addHook('onReady', async () => {
    scheduledScans = startPeriodic(
      config.cookieScans.scheduleIntervalMs,
      async () =>
        void (await runDueScans(db, scans, (error) =>
          app.log.error({ err: error }, 'a scheduled cookie scan failed'),
        )),
      (error) =>
        app.log.error({ err: error }, 'looking for scheduled cookie scans failed; retrying'),
    );
  });
  // A scan takes minutes: a stop waits for none, and marks those running here interrupted.
  app.addHook('onClose', async () => {
    void scheduledScans?.stop();
    await scans.close();
  });
  await app.register(preferencePage, {
    writers: {
      db,
      catalog,
      vault,
      decisions: decisionWriter,
      channels: channelWriter,
      partnerBlocks: partnerWriter,
    },
    secrets,
    evidence: packs,
    secureCookies: config.secureCookies,
    mailer: pageMailer,
  });
  await app.register(backoffice, {
    db,
    readOn,
    config,
    signer,
    vault,
    registry,
    partnerBlocks: partnerWriter,
    channelWriter,
    kick: () => writers.integrator().kick(),
    outside,
    flushRefusedOrigins: () => refusedOrigins.flush(),
    scans,
    decisions: { writer: decisionWriter, catalog },
  });
  if (metrics) {
    metrics.watchIntegrator(db);
    metrics.watchWebhooks(db);
    if (witnesses.quorum > 0) metrics.watchWitnesses(() => witnessing.status());
    if (replicas) metrics.watchReplicas(() => replicas.states());
    const gather = metricsGatherer(metrics.registry, config.workers);
    await app.register(metricsRoutes, { config, metrics, gather });
  }
  return app;
}

/**
 * The HTTP server Fastify would make itself (its `getServerInstance`, HTTP/1.1), with `handle`
 * in front of Fastify's own handler.
 */
function serverWith(
  settings: {
    http?: ServerOptions;
    keepAliveTimeout?: number;
    requestTimeout?: number;
    connectionTimeout?: number;
    maxRequestsPerSocket?: number;
  },
  handle: (request: IncomingMessage, response: ServerResponse) => void,
): Server {
  const server = createServer(settings.http ?? {}, handle);
  if (settings.keepAliveTimeout !== undefined) server.keepAliveTimeout = settings.keepAliveTimeout;
  if (settings.requestTimeout !== undefined) server.requestTimeout = settings.requestTimeout;
  if (settings.connectionTimeout !== undefined) server.setTimeout(settings.connectionTimeout);
  if (settings.maxRequestsPerSocket) server.maxRequestsPerSocket = settings.maxRequestsPerSocket;
  return server;
}
