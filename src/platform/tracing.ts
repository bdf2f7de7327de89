import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { LogEvent } from 'kysely';

/**
 * Spans of the service's own work, for OpenTelemetry. Only `@opentelemetry/api` is loaded here
 * (the SDK is loaded by `tracing-sdk.ts`, and only when traces are on); until the SDK says so,
 * `withSpan` runs its function and nothing else.
 */
const tracer = trace.getTracer('consent-service');
let on = false;

/** Called by the SDK's start: spans are made from now on. */
export function tracingStarted(): void {
  on = true;
}

/**
 * Runs `fn` inside a span named `name`, a child of the span in force (the request's), ended
 * when `fn` settles; an error is recorded on it and passed on. A work that reports its failure
 * in its result rather than by throwing (a webhook attempt answered 500) says so through
 * `failureOf`: the span's status is then ERROR, with that message. Decision writes and webhook
 * deliveries use it.
 *
 * @example await withSpan('decision.write', () => writer.write(job), { 'consent.decision': 'given' })
 */
export function withSpan<T>(
  name: string,
  fn: () => Promise<T>,
  attributes: Record<string, string | number | boolean> = {},
  failureOf: (result: T) => string | null = () => null,
): Promise<T> {
  if (!on) return fn();
  return tracer.startActiveSpan(name, { attributes }, async (span: Span) => {
    try {
      const result = await fn();
      const failure = failureOf(result);
      if (failure !== null) span.setStatus({ code: SpanStatusCode.ERROR, message: failure });
      return result;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A span for one store statement, from Kysely's `log` event (which comes once it is over, with
 * its duration): a child of the request or job that ran it. A statement outside any span (the
 * integrator's timer, the idempotency purge) makes none, or each pass would be a trace of its own.
 */
export function traceQuery(system: 'sqlite' | 'postgresql'): (event: LogEvent) => void {
  return (event) => {
    if (!on) return;
    const parent = context.active();
    if (!trace.getSpan(parent)) return;
    const text = event.query.sql;
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    const end = performance.timeOrigin + performance.now();
    const span = tracer.startSpan(
      operation,
      {
        kind: SpanKind.CLIENT,
        startTime: end - event.queryDurationMillis,
        attributes: {
          'db.system.name': system,
          'db.operation.name': operation,
          'db.query.text': text,
        },
      },
      parent,
    );
    if (event.level === 'error') {
      span.recordException(event.error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end(end);
  };
}
