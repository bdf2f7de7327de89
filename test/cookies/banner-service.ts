/**
 * A stand-in for the service's two cookie endpoints, on loopback, so that the banner's browser
 * tests need no store: `GET /cookies/v1/{scope}/banner.js` answers `bannerScript` with the
 * configuration a test published for that scope (with an `ETag` and five minutes of caching,
 * as the service does), and `POST /cookies/v1/{scope}/choices` keeps each choice in memory and
 * answers what the test says (201 with a decision id unless told otherwise).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BannerConfig, ChoiceBody } from '../../src/cookies/banner-config.js';
import { bannerScript } from '../../src/cookies/banner-script.js';

export interface ReceivedChoice {
  scope: string;
  headers: IncomingHttpHeaders;
  body: ChoiceBody;
  /** The status it was answered with. */
  status: number;
  /** The decision id answered, when the status was 201. */
  decisionId?: string;
}

export interface BannerService {
  origin: string;
  /** Publishes `config` for its scope, its `decisions_url` pointing here. */
  publish(config: BannerConfig): void;
  /** Every choice POSTed, in arrival order. */
  choices: ReceivedChoice[];
  /** How many CORS preflights (OPTIONS) arrived: a simple request makes none. */
  preflights(): number;
  /**
   * From now on the scope's script requests are accepted and never answered, as a hung service
   * does; answers how many such requests are waiting.
   */
  hang(scope: string): () => number;
  /**
   * Serves `declaration` as the scope's `declaration.json` (any origin may read it), and names it
   * in the published config's `declaration_url`; answers how many times it was fetched.
   */
  declare(scope: string, declaration: unknown): () => number;
  /** The status for the `index`th choice of a scope (from 0); 201 when not set. */
  answer(scope: string, status: (index: number) => number): void;
  close(): Promise<void>;
}

export async function startBannerService(): Promise<BannerService> {
  const configs = new Map<string, BannerConfig>();
  const answers = new Map<string, (index: number) => number>();
  const choices: ReceivedChoice[] = [];
  const hung = new Map<string, number>();
  const declarations = new Map<string, { body: string; fetched: number }>();
  let preflights = 0;
  let origin = '';

  const server = createServer((req, res) => {
    const match = /^\/cookies\/v1\/([^/]+)\/(banner\.js|choices|declaration\.json)$/.exec(
      req.url ?? '',
    );
    const scope = decodeURIComponent(match?.[1] ?? '');
    const config = configs.get(scope);
    const declared = declarations.get(scope);
    if (match?.[2] === 'declaration.json' && declared) {
      declared.fetched += 1;
      res
        .writeHead(200, {
          'content-type': 'application/json',
          'access-control-allow-origin': '*',
        })
        .end(declared.body);
      return;
    }
    if (!match || !config) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (req.method === 'OPTIONS') {
      preflights += 1;
      res.writeHead(204).end();
      return;
    }
    if (match[2] === 'banner.js' && hung.has(scope)) {
      hung.set(scope, (hung.get(scope) ?? 0) + 1);
      return;
    }
    if (match[2] === 'banner.js') {
      const script = bannerScript(config);
      const etag = `"${createHash('sha256').update(script).digest('base64url')}"`;
      const headers = {
        etag,
        'cache-control': 'public, max-age=300',
        'content-type': 'text/javascript; charset=utf-8',
        'x-content-type-options': 'nosniff',
      };
      if (req.headers['if-none-match'] === etag) res.writeHead(304, headers).end();
      else res.writeHead(200, headers).end(script);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = choices.filter((choice) => choice.scope === scope).length;
      const status = answers.get(scope)?.(index) ?? 201;
      const received: ReceivedChoice = {
        scope,
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChoiceBody,
        status,
      };
      choices.push(received);
      const cors = {
        'access-control-allow-origin': req.headers.origin ?? '*',
        vary: 'Origin',
        'content-type': 'application/json',
      };
      if (status !== 201) {
        res.writeHead(status, cors).end('{"code":"1009","message":"Service unavailable."}');
        return;
      }
      received.decisionId = randomUUID();
      const answer = {
        data: { decision_id: received.decisionId, decided_at: new Date().toISOString() },
      };
      res.writeHead(201, cors).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    publish(config) {
      const decisions_url = `${origin}/cookies/v1/${encodeURIComponent(config.scope)}/choices`;
      configs.set(config.scope, { ...config, decisions_url });
    },
    choices,
    preflights: () => preflights,
    hang(scope) {
      hung.set(scope, 0);
      return () => hung.get(scope) ?? 0;
    },
    answer(scope, status) {
      answers.set(scope, status);
    },
    declare(scope, declaration) {
      const entry = { body: JSON.stringify(declaration), fetched: 0 };
      declarations.set(scope, entry);
      const config = configs.get(scope);
      const declaration_url = `${origin}/cookies/v1/${encodeURIComponent(scope)}/declaration.json`;
      if (config) configs.set(scope, { ...config, declaration_url });
      return () => entry.fetched;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
