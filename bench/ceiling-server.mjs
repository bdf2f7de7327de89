// The ceiling: a bare node:http server that answers every request with the very bytes (status,
// headers, body) of a real `latest` response captured from the service. Nothing the service can
// do on the same core and load generator is faster, so each endpoint is reported against it.
// Plain JavaScript so that it runs bare Node, like `node bin/consent-service` does.
// Usage: node bench/ceiling-server.mjs RESPONSE_JSON_FILE PORT   (prints "listening" when ready)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [file, port] = process.argv.slice(2);
const captured = JSON.parse(readFileSync(file, 'utf8'));
const body = Buffer.from(captured.bodyBase64, 'base64');
const headers = { ...captured.headers, 'content-length': String(body.length) };

const server = createServer((request, response) => {
  // Read (and drop) any request body, as a real server must before answering.
  request.resume();
  response.writeHead(captured.status, headers);
  response.end(body);
});
// Fastify's default; Node's own is 5 s, which would make autocannon reconnect in long runs.
server.keepAliveTimeout = 72_000;
server.listen(Number(port), '127.0.0.1', () => process.stdout.write('listening\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
