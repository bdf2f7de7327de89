// The framework's own share: a bare Fastify app that logs one line per request as the service
// does (`info`, to a file, the same fields), answering every request with the very bytes of a real
// `latest` response, like the ceiling. What separates the service from it is the service's own
// work: the key check, security headers, request ids, routing to the catalog.
// Plain JavaScript so that it runs bare Node, like `node bin/consent-service` does.
// Usage: node bench/fastify-server.mjs RESPONSE_JSON_FILE PORT LOG_FILE   (prints "listening")
import { readFileSync } from 'node:fs';
import Fastify, { LogController } from 'fastify';

const [file, port, logFile] = process.argv.slice(2);
const captured = JSON.parse(readFileSync(file, 'utf8'));
const body = Buffer.from(captured.bodyBase64, 'base64');

const app = Fastify({
  logger: { level: 'info', file: logFile },
  logController: new LogController({ disableRequestLogging: true }),
});
app.addHook('onResponse', (request, reply, done) => {
  request.log.info(
    {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      remoteAddress: request.ip,
    },
    'request completed',
  );
  done();
});
app.all('/*', (_request, reply) => {
  reply.code(captured.status).headers(captured.headers).send(body);
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.stdout.write('listening\n');
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
