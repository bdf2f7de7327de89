import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { expectErrorShape, json } from './app.js';
import { budget } from './time.js';

/** The contract's pattern for an acceptable `X-Request-Id` (section 2). */
export const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** Things that must never reach a client: stack frames, SQL, driver names, file paths. */
const internals: RegExp[] = [
  /\n\s*at\s/,
  /\bat\s+\S+\s+\(/,
  /[\w/\\-]+\.(?:ts|js|mjs|cjs):\d+/,
  /node_modules/,
  /\bSELECT\b|\bINSERT\b|\bUPDATE\b|\bDELETE FROM\b|\bBEGIN\b|\bCOMMIT\b/,
  /sqlite/i,
  /kysely|better-sqlite3|fastify|ajv/i,
  /\b\w*Error:/,
  /\bFST_[A-Z_]+\b/,
  /statusCode/,
  /stack/i,
];

/** Fails when the body text shows a stack trace, SQL or the names of internals. */
export function expectNoInternals(body: string): void {
  for (const pattern of internals) {
    if (pattern.test(body)) throw new Error(`response body leaks internals (${pattern}): ${body}`);
  }
}

/**
 * Asserts a complete contract error: exact status and code, the `{code, message[, details]}`
 * shape and nothing else in it, the JSON content type, an `X-Request-Id`, and no internals.
 * Returns the parsed body.
 */
export function expectError(
  response: LightMyRequestResponse,
  status: number,
  code: string,
  message?: string,
): { code: string; message: string; details?: { field: string; issue: string }[] } {
  if (response.statusCode !== status) {
    throw new Error(`expected ${status} ${code}, got ${response.statusCode}: ${response.body}`);
  }
  const shaped = expectErrorShape(response);
  expect(shaped.code).toBe(code);
  if (message !== undefined) expect(shaped.message).toBe(message);
  const body = json(response);
  expect(Object.keys(body).every((key) => ['code', 'message', 'details'].includes(key))).toBe(true);
  if (body.details !== undefined) {
    expect(Array.isArray(body.details)).toBe(true);
    for (const detail of body.details) {
      expect(typeof detail.field).toBe('string');
      expect(typeof detail.issue).toBe('string');
    }
  }
  expect(String(response.headers['x-request-id'] ?? '')).toMatch(requestIdPattern);
  expectNoInternals(response.body);
  return body;
}

/** Starts listening on a free loopback port (once) and returns the port. */
export async function listeningPort(app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as AddressInfo).port;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses one HTTP/1.1 response as text (no chunked decoding: error answers carry a length). */
export function parseRawResponse(text: string): RawResponse {
  const split = text.indexOf('\r\n\r\n');
  const head = split >= 0 ? text.slice(0, split) : text;
  const body = split >= 0 ? text.slice(split + 4) : '';
  const [statusLine = '', ...lines] = head.split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0)
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status, headers, body };
}

/** Writes bytes as they are to the server and collects everything until it closes (or 5 s, a budget). */
export function rawExchange(port: number, text: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    const timer = setTimeout(() => socket.destroy(), budget(5_000));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseRawResponse(received));
    });
    socket.on('error', reject);
  });
}

/** A POST whose body is sent with `Transfer-Encoding: chunked` (no Content-Length), in pieces. */
export function chunkedPost(
  port: number,
  path: string,
  headers: Record<string, string>,
  body: string,
  chunkSize = 1024,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        headers: { ...headers, 'transfer-encoding': 'chunked' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const flat: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          resolve({ status: res.statusCode ?? 0, headers: flat, body: text });
        });
      },
    );
    // The server may answer (413) and close before the whole body is written.
    req.on('error', reject);
    for (let i = 0; i < body.length; i += chunkSize) req.write(body.slice(i, i + chunkSize));
    req.end();
  });
}
