import type { AttributeValue } from '@opentelemetry/api';
import type { tracing } from '@opentelemetry/sdk-node';
import { redactSecrets } from './redact.js';

/**
 * Attributes that hold a request's path: alone (`url.path`), with its query (`http.target`), or
 * in the whole URL (`url.full`, `http.url`, the older conventions' name).
 */
const pathAttributes = ['url.path', 'http.target', 'url.full', 'http.url'];

/**
 * A span processor that gives every span what the request log gets (`redactSecrets`, one
 * function for both): in its name, each string attribute, each event's attributes and its
 * status message, an API key keeps its prefix and loses its secret, and the values of the secret
 * query parameters are `[Redacted]`. A span of a matched route (`http.route`) has its path
 * replaced by the route pattern, so that no customer id (nor a key sent in its place) is
 * exported. It works in `onEnding`, when every instrumentation has set its attributes and the
 * span can still be changed, before any exporter's processor sees it in `onEnd`.
 */
export const spanRedaction: tracing.SpanProcessor = {
  onStart: () => {},
  onEnding(span) {
    const route = span.attributes['http.route'];
    for (const [name, value] of Object.entries(span.attributes)) {
      const path = typeof route === 'string' && pathAttributes.includes(name);
      const redacted = path ? routeInPlace(name, route, value) : redactValue(name, value);
      if (redacted !== value && redacted !== undefined) span.setAttribute(name, redacted);
    }
    const name = redactSecrets(span.name);
    if (name !== span.name) span.updateName(name);
    for (const event of span.events) {
      const attributes = event.attributes;
      if (!attributes) continue;
      for (const [key, value] of Object.entries(attributes))
        attributes[key] = redactValue(key, value);
    }
    const message = span.status.message;
    if (message !== undefined) {
      const redacted = redactSecrets(message);
      if (redacted !== message) span.setStatus({ ...span.status, message: redacted });
    }
  },
  onEnd: () => {},
  forceFlush: async () => {},
  shutdown: async () => {},
};

function redactValue<T extends AttributeValue | undefined>(name: string, value: T): T {
  if (typeof value === 'string') return redactText(name, value) as T;
  if (Array.isArray(value))
    return value.map((item) => (typeof item === 'string' ? redactText(name, item) : item)) as T;
  return value;
}

/** `url.query` is a query without its `?`: redacted as the query it is. */
function redactText(name: string, text: string): string {
  return name === 'url.query' ? redactSecrets(`?${text}`).slice(1) : redactSecrets(text);
}

/**
 * The route pattern in place of the path. `http.target` and a whole URL keep their query,
 * redacted (and a URL its origin); `url.path` is a path only (Fastify's instrumentation puts the
 * whole request URL there, query included).
 */
function routeInPlace(name: string, route: string, value: AttributeValue | undefined): string {
  const text = typeof value === 'string' ? value : '';
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(text)?.[0] ?? '';
  const query = text.indexOf('?');
  if (name === 'url.path' || query === -1) return `${origin}${route}`;
  return redactSecrets(`${origin}${route}${text.slice(query)}`);
}
