import { randomInt } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Ports for the servers the tests start as processes (`consent-service serve`, PostgreSQL, an
 * SMTP or witness server), chosen so that nothing else takes one between the choice and the
 * server's `listen`, which can be seconds later (a fresh store is migrated first):
 * - below the kernel's ephemeral range, which port 0 (every in-process test app) and every
 *   outgoing connection draw from: a port chosen there can be taken by a connection to
 *   PostgreSQL or by another test's app in that window, and the server's `listen` then fails
 *   while the other one answers its health check;
 * - claimed for the whole run, in a folder every test process shares (`claimsEnv`, made by the
 *   global setup), so that no two test processes are ever handed the same one.
 */
export const claimsEnv = 'CONSENT_TEST_PORT_CLAIMS';

/** The lowest port handed out; below it sit the well-known and registered servers' ports. */
const lowest = 20_000;

/** The first port of the kernel's ephemeral range (Linux's setting, else its default). */
function ephemeralStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const value = Number(low);
    if (Number.isInteger(value) && value > 0) return value;
  } catch {
    // not Linux
  }
  return process.platform === 'darwin' ? 49_152 : 32_768;
}

/** Makes the folder of the run's claims (the global setup); the returned function removes it. */
export function startClaims(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'consent-test-ports-'));
  process.env[claimsEnv] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}

/** Claims in this process when no run's folder is set (a benchmark). */
let ownClaims: string | undefined;

/** True when this run had not handed `port` out yet; it is then this caller's. */
function claim(port: number): boolean {
  let dir = process.env[claimsEnv];
  if (dir === undefined) {
    ownClaims ??= mkdtempSync(join(tmpdir(), 'consent-test-ports-'));
    dir = ownClaims;
  }
  mkdirSync(dir, { recursive: true });
  try {
    closeSync(openSync(join(dir, String(port)), 'wx'));
    return true;
  } catch {
    return false;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free TCP port on loopback that no other caller in this test run gets. */
export async function freePort(): Promise<number> {
  const highest = ephemeralStart() - 1;
  if (highest - lowest < 1_000) throw new Error(`no room for test ports below ${highest + 1}`);
  for (let attempt = 0; attempt < 1_000; attempt += 1) {
    const port = randomInt(lowest, highest + 1);
    if (claim(port) && (await canListen(port))) return port;
  }
  throw new Error(`no free port found between ${lowest} and ${highest}`);
}
