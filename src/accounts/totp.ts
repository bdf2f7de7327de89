import { HOTP, Secret, TOTP } from 'otpauth';

/**
 * Time-based one-time codes (RFC 6238) for the second factor: HMAC-SHA1, 6 digits, 30-second
 * steps, the only settings every authenticator app reads from an `otpauth://` URI.
 */
const algorithm = 'SHA1';
const digits = 6;
const period = 30;

/** A fresh shared secret: 160 random bits (the HMAC-SHA1 key size RFC 4226 recommends), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/...` URI an authenticator app enrols from (usually through a QR code). */
export function totpUri(secret: string, account: string, issuer: string): string {
  return new TOTP({
    issuer,
    label: account,
    secret: Secret.fromBase32(secret),
    algorithm,
    digits,
    period,
  }).toString();
}

/**
 * Checks a code typed by the user (spaces allowed, as apps show `123 456`) against the steps
 * around `now` (milliseconds since the epoch): the current one first, then one either side for
 * clocks that drift and codes typed as the step turns.
 *
 * @returns the time step the code matches, to be stored as the next `lastUsedStep`, or undefined.
 *   A step at or before `lastUsedStep` is refused, so a code seen over a shoulder or replayed
 *   cannot be used again, nor an older one after a newer.
 */
export function verifyTotp(
  secret: string,
  code: string,
  lastUsedStep: number | null,
  now: number = Date.now(),
): number | undefined {
  return matchingSteps(secret, code, now).find(
    (step) => lastUsedStep === null || step > lastUsedStep,
  );
}

/**
 * Whether a code refused by `verifyTotp` is one of the app's right codes whose step was already
 * used: the person is told to wait for the next code rather than that theirs is wrong.
 */
export function totpAlreadyUsed(
  secret: string,
  code: string,
  lastUsedStep: number | null,
  now: number = Date.now(),
): boolean {
  if (lastUsedStep === null) return false;
  return matchingSteps(secret, code, now).some((step) => step <= lastUsedStep);
}

/** The steps around `now` (the current one first) whose code this is. */
function matchingSteps(secret: string, code: string, now: number): number[] {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return [];
  const key = Secret.fromBase32(secret);
  const current = TOTP.counter({ period, timestamp: now });
  // window 0: this one step only; otpauth compares the codes in constant time.
  return [current, current - 1, current + 1].filter(
    (step) =>
      step >= 0 &&
      HOTP.validate({ token, secret: key, algorithm, digits, counter: step, window: 0 }) === 0,
  );
}

/**
 * The QR code of `text` as an SVG element to put inline in a page. qrcode draws with
 * presentation attributes (`fill`, `stroke`) only, never a `style` attribute or element, so the
 * page's CSP needs no 'unsafe-inline' for it. The accessible name is generic on purpose: the
 * text it encodes holds the secret, which must not reach a screen reader's or a crawler's output.
 */
export async function qrCodeSvg(text: string): Promise<string> {
  // Loaded here, for the page that shows it: not with every start of the service.
  const { default: QRCode } = await import('qrcode');
  const svg = await QRCode.toString(text, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin: 4,
  });
  if (!svg.startsWith('<svg ')) throw new Error('qrcode returned something other than an <svg>');
  return svg.trimEnd().replace('<svg ', '<svg role="img" aria-label="QR code" ');
}
