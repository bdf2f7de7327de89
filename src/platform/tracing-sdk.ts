import { FastifyOtelInstrumentation } from '@fastify/otel';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { NodeSDK } from '@opentelemetry/sdk-node';
// The exporters the standard `OTEL_*` variables choose, as the SDK makes them when it is given
// no span processor: given one (the redaction), it would make none.
import { getSpanProcessorsFromEnv } from '@opentelemetry/sdk-node/build/src/utils.js';
import { spanRedaction } from './span-redaction.js';
import { tracingStarted } from './tracing.js';

/**
 * Starts OpenTelemetry's Node SDK for traces, before the service's modules load (the entry
 * point imports this first, and only when `OTEL_*` asks for traces): the HTTP server's spans,
 * Fastify's route spans, and the store's spans (`traceQuery`). The SDK reads the standard
 * `OTEL_*` variables itself (exporter, endpoint, protocol, service name, sampler, batching).
 * Metrics stay Prometheus's (`/metrics`) and logs stay pino's: neither is exported here. Every
 * span is redacted as the request log is before any exporter sees it (`spanRedaction`).
 */
export function startTracing(serviceName: string): void {
  const exporting = getSpanProcessorsFromEnv(undefined);
  const sdk = new NodeSDK({
    serviceName,
    spanProcessors: exporting.length === 0 ? [] : [spanRedaction, ...exporting],
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation(),
      new FastifyOtelInstrumentation({ registerOnInitialization: true }),
    ],
  });
  sdk.start();
  tracingStarted();
  // The spans still batched go out before the process ends (after SIGTERM's graceful stop).
  process.once('beforeExit', () => void sdk.shutdown());
}
