import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import {
  integratorBacklog,
  type TimestampFailure,
  type WitnessFailure,
  type WitnessStatus,
} from '../decision-log/index.js';
import type { CacheCounts } from '../platform/cache-counts.js';
import { type Executor, isPostgres } from '../platform/db.js';
import type { ReplicaState } from '../platform/replicas.js';
import { Tally } from '../platform/tally.js';
import { type WebhookBacklog, webhookBacklog } from '../webhooks/index.js';

/** Seconds; a store statement from tens of µs (SQLite) to a statement timeout (5 s). */
const storeBuckets = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5,
];

/** Jobs per commit: one at a time when idle, up to 256 under load (group-commit.ts). */
const batchBuckets = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** The caches whose look-ups are counted. */
export type CacheName = 'catalog' | 'api_keys';

/**
 * One app's metrics: its own registry (tests boot several apps in one process, so nothing goes
 * to prom-client's global one) and the instruments the service's parts report to. The names
 * and what they measure are listed in docs/metrics.md.
 */
export interface Metrics {
  readonly registry: Registry;
  /** `consent_decisions_total{decision, outcome}`. */
  readonly decisions: Counter<'decision' | 'outcome'>;
  /** `consent_decision_write_seconds`: from handing a decision to its writer to its commit. */
  readonly decisionWrite: Histogram;
  /** `consent_store_query_duration_seconds`, fed by Kysely's `log` (see `storeObserver` in `queries.ts`). */
  readonly storeQuery: Histogram;
  /** `consent_decision_batch_size`: decisions per commit, for whichever writer batches them. */
  batchCommitted(decisions: number): void;
  /** `consent_cache_hits_total` / `consent_cache_misses_total` of one cache. */
  cache(name: CacheName): CacheCounts;
  /** Starts reading the decision log's backlog on each scrape, from this store. */
  watchIntegrator(db: Executor): void;
  /** `consent_webhook_attempts_total{outcome}`: one delivery attempt ended. */
  webhookAttempt(attempt: { ok: boolean }): void;
  /** Starts reading the webhooks' backlog on each scrape, from this store. */
  watchWebhooks(db: Executor): void;
  /** `consent_log_witness_failures_total{witness, reason}`: a witness did not cosign. */
  witnessFailed(witness: string, reason: WitnessFailure): void;
  /** `consent_log_timestamp_failures_total{tsa, reason}`: an authority's token was not kept. */
  timestampFailed(tsa: string, reason: TimestampFailure): void;
  /** Starts reporting each witness's lag on each scrape, as the witnessing loop last saw it. */
  watchWitnesses(status: () => readonly WitnessStatus[]): void;
  /** Starts reporting each read replica's state on each scrape, as this instance saw it. */
  watchReplicas(states: () => readonly ReplicaState[]): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const decisions = new Counter({
    name: 'consent_decisions_total',
    help: 'Decisions asked for, by value (given, reject, withdraw) and outcome (recorded, unchanged, refused, replayed, failed).',
    labelNames: ['decision', 'outcome'] as const,
    registers,
  });
  const decisionWrite = new Histogram({
    name: 'consent_decision_write_seconds',
    help: 'Time from handing a decision to its writer (the SQLite writer thread, or group commit) to its commit.',
    buckets: storeBuckets,
    registers,
  });
  const storeQuery = new Histogram({
    name: 'consent_store_query_duration_seconds',
    help: "Time of each statement on the service's store connection(s) (not the SQLite writer thread's).",
    buckets: storeBuckets,
    registers,
  });
  const batchSize = new Histogram({
    name: 'consent_decision_batch_size',
    help: 'Decisions committed together in one transaction (PostgreSQL group commit, or the SQLite writer thread).',
    buckets: batchBuckets,
    registers,
  });
  // A look-up adds to a tally; the counters are given what is new at each scrape.
  const caches: Array<{ name: CacheName; hits: Tally; misses: Tally }> = [];
  const report = (counter: Counter<'cache'>, kind: 'hits' | 'misses') => {
    for (const cache of caches) cache[kind].flushTo(counter.labels({ cache: cache.name }));
  };
  const hits: Counter<'cache'> = new Counter({
    name: 'consent_cache_hits_total',
    help: 'In-process cache look-ups answered from memory, by cache.',
    labelNames: ['cache'] as const,
    registers,
    collect: () => report(hits, 'hits'),
  });
  const misses: Counter<'cache'> = new Counter({
    name: 'consent_cache_misses_total',
    help: 'In-process cache look-ups that read the store, by cache.',
    labelNames: ['cache'] as const,
    registers,
    collect: () => report(misses, 'misses'),
  });
  const attempts = new Counter({
    name: 'consent_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome (delivered: a 2xx answer; failed: anything else, a time-out or a refused address).',
    labelNames: ['outcome'] as const,
    registers,
  });
  // Each series from the start, at 0: a rate or an alert on `failed` has a series to read
  // before the first failure, and `increase()` sees that failure.
  for (const outcome of ['delivered', 'failed']) attempts.inc({ outcome }, 0);
  const witnessFailures = new Counter({
    name: 'consent_log_witness_failures_total',
    help: 'Checkpoints a witness did not cosign, by witness and reason (unreachable, refused, invalid: an answer that does not verify, log-behind: the witness has cosigned more of the log than it has).',
    labelNames: ['witness', 'reason'] as const,
    registers,
  });
  const timestampFailures = new Counter({
    name: 'consent_log_timestamp_failures_total',
    help: 'Time-stamps of checkpoints not kept, by authority and reason (unreachable, refused: an answer other than 200, invalid: a token that does not verify).',
    labelNames: ['tsa', 'reason'] as const,
    registers,
  });
  return {
    registry,
    decisions,
    decisionWrite,
    storeQuery,
    batchCommitted: (n) => batchSize.observe(n),
    cache(name) {
      const counts = { name, hits: new Tally(), misses: new Tally() };
      caches.push(counts);
      return { hit: () => counts.hits.add(), miss: () => counts.misses.add() };
    },
    watchIntegrator: (db) => watchIntegrator(registry, db),
    webhookAttempt: ({ ok }) => attempts.inc({ outcome: ok ? 'delivered' : 'failed' }),
    watchWebhooks: (db) => watchWebhooks(registry, db),
    witnessFailed: (witness, reason) => witnessFailures.inc({ witness, reason }),
    timestampFailed: (tsa, reason) => timestampFailures.inc({ tsa, reason }),
    watchWitnesses: (status) => watchWitnesses(registry, status),
    watchReplicas: (states) => watchReplicas(registry, states),
  };
}

/** A gauge whose value comes from a shared read (`gaugesFromOneRead`). */
interface ReadGauge<T> {
  name: string;
  help: string;
  value: (read: T) => number;
}

/**
 * Gauges read on each scrape with one store statement: the first to collect reads, the others
 * join that read. A store that does not answer leaves every one of them without a sample for that
 * scrape (a label, so not a 0), and the scrape itself still succeeds. With several workers, each
 * reads the same store: `max`, since the sum would count twice.
 */
function gaugesFromOneRead<T>(
  registry: Registry,
  db: Executor,
  read: (db: Executor) => Promise<T>,
  specs: readonly ReadGauge<T>[],
): void {
  const labels = { store: isPostgres(db) ? 'postgresql' : 'sqlite' };
  const gauges: [Gauge<'store'>, ReadGauge<T>][] = [];
  let reading: Promise<void> | undefined;
  const collect = (): Promise<void> => {
    reading ??= read(db)
      .then(
        (value) => {
          for (const [gauge, spec] of gauges) gauge.set(labels, spec.value(value));
        },
        () => {
          for (const [gauge] of gauges) gauge.reset();
        },
      )
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  for (const spec of specs) {
    const gauge = new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: ['store'] as const,
      aggregator: 'max',
      registers: [registry],
      collect,
    });
    gauges.push([gauge, spec]);
  }
}

/** Each witness's lag (docs/metrics.md, "Witnesses"), as this instance's loop last saw it. */
function watchWitnesses(registry: Registry, status: () => readonly WitnessStatus[]): void {
  const gauges: [string, string, (s: WitnessStatus) => number][] = [
    [
      'consent_log_witness_lag_leaves',
      'The most leaves of any log a witness has not cosigned yet.',
      (s) => s.lagLeaves,
    ],
    [
      'consent_log_witness_lag_seconds',
      'How long the oldest checkpoint a witness has not cosigned has waited.',
      (s) => s.lagSeconds,
    ],
  ];
  for (const [name, help, value] of gauges) {
    const gauge: Gauge<'witness'> = new Gauge({
      name,
      help,
      labelNames: ['witness'] as const,
      aggregator: 'max',
      registers: [registry],
      collect: () => {
        for (const witness of status()) gauge.set({ witness: witness.name }, value(witness));
      },
    });
  }
}

/** Each read replica (docs/metrics.md, "Read replicas"), as this instance last saw it. */
function watchReplicas(registry: Registry, states: () => readonly ReplicaState[]): void {
  const up: Gauge<'replica'> = new Gauge({
    name: 'consent_read_replica_up',
    help: 'Whether a read replica serves reads (1) or is left out, behind or down (0).',
    labelNames: ['replica'] as const,
    registers: [registry],
    collect: () => {
      for (const r of states()) up.set({ replica: r.name }, r.state === 'up' ? 1 : 0);
    },
  });
  const lag: Gauge<'replica'> = new Gauge({
    name: 'consent_read_replica_lag_bytes',
    help: "Bytes of WAL a read replica was behind the primary's position at its last check.",
    labelNames: ['replica'] as const,
    registers: [registry],
    collect: () => {
      for (const r of states()) lag.set({ replica: r.name }, r.lagBytes ?? 0);
    },
  });
  // Counters of what the replicas' own tallies say, given what is new at each scrape.
  const seen = new Map<string, number>();
  const reads: Counter<'replica' | 'outcome'> = new Counter({
    name: 'consent_read_replica_batches_total',
    help: 'Batches of reads a replica served, and those it left to the primary (skipped: behind or down).',
    labelNames: ['replica', 'outcome'] as const,
    registers: [registry],
    collect: () => {
      for (const r of states()) {
        for (const [outcome, total] of [
          ['served', r.served],
          ['skipped', r.skipped],
        ] as const) {
          const key = `${r.name} ${outcome}`;
          reads.inc({ replica: r.name, outcome }, total - (seen.get(key) ?? 0));
          seen.set(key, total);
        }
      }
    },
  });
}

/** The webhooks' backlog (docs/metrics.md, "Webhook deliveries"). */
function watchWebhooks(registry: Registry, db: Executor): void {
  gaugesFromOneRead<WebhookBacklog>(registry, db, webhookBacklog, [
    {
      name: 'consent_webhook_unsequenced_events',
      help: 'Webhook events written but not yet given their position (decisions wait for the decision log).',
      value: (b) => b.unsequenced,
    },
    {
      name: 'consent_webhook_backlog_positions',
      help: 'Positions enabled endpoints have still to pass, summed: an upper bound on the events waiting to be sent.',
      value: (b) => b.behind,
    },
    {
      name: 'consent_webhook_failing_endpoints',
      help: 'Enabled endpoints whose next event has failed and waits for its retry.',
      value: (b) => b.failing,
    },
    {
      name: 'consent_webhook_disabled_endpoints',
      help: 'Endpoints disabled, by hand or after failing for too long.',
      value: (b) => b.disabled,
    },
  ]);
}

/** The integrator's lag, one aggregate query (PostgreSQL's statement timeout bounds it). */
function watchIntegrator(registry: Registry, db: Executor): void {
  gaugesFromOneRead(registry, db, integratorBacklog, [
    {
      name: 'consent_log_queued_leaves',
      help: 'Decision-log leaves waiting for the integrator, every tenant together.',
      value: (b) => b.queued,
    },
    {
      name: 'consent_log_oldest_queued_leaf_age_seconds',
      help: 'Age of the oldest decision-log leaf waiting for the integrator (0 when none waits).',
      value: (b) => b.oldestAgeSeconds,
    },
  ]);
}
