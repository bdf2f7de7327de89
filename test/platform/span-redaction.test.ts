import { SpanStatusCode } from '@opentelemetry/api';
import { tracing } from '@opentelemetry/sdk-node';
import { describe, expect, it } from 'vitest';
import { spanRedaction } from '../../src/platform/span-redaction.js';

const key = 'csk_328b176bf591_pGxHcpBo8mOObIqSSsgVOLY9Dllu5iOKTP0hQAM32Fg';

/** A real tracer provider: the redaction first, then an exporter that keeps what it is given. */
function tracer() {
  const exporter = new tracing.InMemorySpanExporter();
  const provider = new tracing.BasicTracerProvider({
    spanProcessors: [spanRedaction, new tracing.SimpleSpanProcessor(exporter)],
  });
  return { tracer: provider.getTracer('test'), exported: () => exporter.getFinishedSpans() };
}

describe('every exported span is redacted as the request log is', () => {
  it('redacts keys and secret parameters in each string attribute, the query read as a query', () => {
    const { tracer: t, exported } = tracer();
    const span = t.startSpan(`GET /x/${key}`, {
      attributes: {
        'url.query': `api_key=${key}&token=X&locale=en`,
        'url.full': `https://hooks.example.com/in?token=receiver-secret&a=1`,
        'user_agent.original': 'curl/8',
        'http.response.status_code': 200,
        'some.list': [`key=${key}`, 'plain'],
      },
    });
    span.addEvent('exception', { 'exception.message': `bad path /customers/${key}?password=pw` });
    span.setStatus({ code: SpanStatusCode.ERROR, message: `refused ${key}` });
    span.end();
    const [done] = exported();
    expect(done?.name).toBe('GET /x/csk_328b176bf591_[Redacted]');
    expect(done?.attributes).toEqual({
      'url.query': 'api_key=[Redacted]&token=[Redacted]&locale=en',
      'url.full': 'https://hooks.example.com/in?token=[Redacted]&a=1',
      'user_agent.original': 'curl/8',
      'http.response.status_code': 200,
      'some.list': ['key=csk_328b176bf591_[Redacted]', 'plain'],
    });
    expect(done?.events[0]?.attributes).toEqual({
      'exception.message': 'bad path /customers/csk_328b176bf591_[Redacted]?password=[Redacted]',
    });
    expect(done?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'refused csk_328b176bf591_[Redacted]',
    });
  });

  it('puts the route pattern in place of the path of a matched route, keeping a redacted query in http.target', () => {
    const { tracer: t, exported } = tracer();
    const route = '/api/v1/customers/:customer_id/consents/decisions';
    const span = t.startSpan('request', {
      attributes: {
        'url.path': '/api/v1/customers/c-2001/consents/decisions?token=X',
        'http.target': '/api/v1/customers/c-2001/consents/decisions?token=X&a=1',
        'url.full': 'http://localhost:3000/api/v1/customers/c-2001/consents/decisions',
        'http.url': 'http://localhost:3000/api/v1/customers/c-2001/consents/decisions?key=k',
      },
    });
    // The route is known only once routed, as the HTTP server span learns it.
    span.setAttribute('http.route', route);
    span.end();
    expect(exported()[0]?.attributes).toEqual({
      'url.path': route,
      'http.target': `${route}?token=[Redacted]&a=1`,
      'url.full': `http://localhost:3000${route}`,
      'http.url': `http://localhost:3000${route}?key=[Redacted]`,
      'http.route': route,
    });
  });

  it('leaves the path of an unmatched URL, redacted', () => {
    const { tracer: t, exported } = tracer();
    t.startSpan('GET', { attributes: { 'url.path': `/no/such/${key}` } }).end();
    expect(exported()[0]?.attributes['url.path']).toBe('/no/such/csk_328b176bf591_[Redacted]');
  });
});
