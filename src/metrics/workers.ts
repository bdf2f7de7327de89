import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

/** The messages a worker and the primary exchange for a scrape. */
const asked = 'consent:metrics-asked';
const answered = 'consent:metrics-answered';

interface Answer {
  type: typeof answered;
  id: number;
  text?: string;
  error?: string;
}

/**
 * In the primary of several workers (`WORKERS`): answers a worker's scrape with every worker's
 * metrics summed (prom-client's `AggregatorRegistry`, which asks each worker over the cluster's
 * channel and merges what they send).
 */
export function aggregateWorkersMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: unknown; id?: unknown }) => {
    if (message?.type !== asked || typeof message.id !== 'number') return;
    const id = message.id;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: answered, id, text } satisfies Answer),
      (error: Error) => worker.send({ type: answered, id, error: error.message } satisfies Answer),
    );
  });
}

/**
 * What a scrape answers: this process's registry alone, or in a worker of several, every
 * worker's together, asked of the primary (a scrape lands on whichever worker took the
 * connection, and Prometheus needs one series per instance, not per worker).
 */
export function metricsGatherer(registry: Registry, workers: number): () => Promise<string> {
  if (workers <= 1 || !cluster.isWorker) return () => registry.metrics();
  // Constructing one is what installs prom-client's answer to the primary's requests.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  const waiting = new Map<number, (answer: Answer) => void>();
  let nextId = 1;
  process.on('message', (message: Partial<Answer>) => {
    if (message?.type !== answered || typeof message.id !== 'number') return;
    waiting.get(message.id)?.(message as Answer);
    waiting.delete(message.id);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, (answer) =>
        answer.text === undefined
          ? reject(new Error(`the workers' metrics could not be gathered: ${answer.error}`))
          : resolve(answer.text),
      );
      process.send?.({ type: asked, id });
    });
}
