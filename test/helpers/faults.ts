/**
 * Fault helpers for the end-to-end tests: a TCP proxy that can cut the network between the
 * service and its database (a partition: nothing is refused, nothing arrives), and a database of
 * its own on a PostgreSQL server.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import pg from 'pg';

export interface TcpProxy {
  /** The loopback port the proxy listens on. */
  port: number;
  /**
   * Cuts the network: connections (established or new) stay open but nothing crosses; what is
   * sent is held back, as TCP retransmits it, and delivered when the network heals.
   */
  partition(): void;
  /** Heals the network: held-back bytes are delivered, and new connections reach the target. */
  heal(): void;
  /** Closes the proxy and every connection through it. */
  close(): Promise<void>;
}

interface Link {
  client: Socket;
  upstream: Socket | undefined;
  /** Bytes held back while partitioned, per direction. */
  toUpstream: Buffer[];
  toClient: Buffer[];
}

/** A TCP proxy on 127.0.0.1 to `127.0.0.1:targetPort`, forwarding until `partition()`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const links = new Set<Link>();
  let partitioned = false;

  const open = (link: Link) => {
    const upstream = tcpConnect(targetPort, '127.0.0.1');
    link.upstream = upstream;
    upstream.on('data', (chunk: Buffer) => {
      if (partitioned) link.toClient.push(chunk);
      else link.client.write(chunk);
    });
    upstream.on('error', () => link.client.destroy());
    upstream.on('close', () => link.client.destroy());
    for (const chunk of link.toUpstream.splice(0)) upstream.write(chunk);
  };

  const server: Server = createServer((client) => {
    const link: Link = { client, upstream: undefined, toUpstream: [], toClient: [] };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (partitioned || !link.upstream) link.toUpstream.push(chunk);
      else link.upstream.write(chunk);
    });
    client.on('error', () => link.upstream?.destroy());
    client.on('close', () => {
      link.upstream?.destroy();
      links.delete(link);
    });
    // A connection made during a partition reaches the target only once the network heals.
    if (!partitioned) open(link);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy port');

  return {
    port: address.port,
    partition() {
      partitioned = true;
    },
    heal() {
      partitioned = false;
      for (const link of links) {
        if (!link.upstream) {
          open(link);
          continue;
        }
        for (const chunk of link.toUpstream.splice(0)) link.upstream.write(chunk);
        for (const chunk of link.toClient.splice(0)) link.client.write(chunk);
      }
    },
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.upstream?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Makes a new, empty database on the server of `adminUrl`; returns its URL. */
export async function createDatabase(adminUrl: string, prefix = 'consent_faults'): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The same URL with another port (to reach the database through a proxy). */
export function withPort(databaseUrl: string, port: number): string {
  const url = new URL(databaseUrl);
  url.port = String(port);
  return url.toString();
}
