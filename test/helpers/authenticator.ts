import { Secret, TOTP } from 'otpauth';

/**
 * The authenticator app: the RFC 6238 code (SHA1, 6 digits, 30 s) of the base32 secret now, or
 * `offsetSteps` time steps away.
 */
export function appCode(secret: string, offsetSteps = 0): string {
  return new TOTP({
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({
    timestamp: Date.now() + offsetSteps * 30_000,
  });
}
