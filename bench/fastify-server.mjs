// The framework's own share: a bare Fastify app that logs each request with the service's own
// log line (src/platform/request-log.ts, from dist/, which `npm run bench` builds first; `info`,
// to a file), answering every request with the very bytes of a real `latest` response, like the
// ceiling. What separates the service from it is the service's own work: the key check, security
// headers, request ids, routing to the catalog.
// Plain JavaScript so that it runs bare Node, like `node bin/consent-service` does.
// Usage: node bench/fastify-server.mjs RESPONSE_JSON_FILE PORT LOG_FILE   (prints "listening")
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';
import { logEachRequest, oneLinePerRequest } from '../dist/platform/request-log.js';

const [file, port, logFile] = process.argv.slice(2);
const captured = JSON.parse(readFileSync(file, 'utf8'));
const body = Buffer.from(captured.bodyBase64, 'base64');

const app = Fastify({
  logger: { level: 'info', file: logFile },
  logController: oneLinePerRequest,
});
logEachRequest(app);
app.all('/*', (_request, reply) => {
  reply.code(captured.status).headers(captured.headers).send(body);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('listening\n');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
