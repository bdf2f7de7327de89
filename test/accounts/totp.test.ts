import { describe, expect, it } from 'vitest';
import { newTotpSecret, qrCodeSvg, totpUri, verifyTotp } from '../../src/accounts/totp.js';

// RFC 6238 appendix B: the SHA1 key is the ASCII text "12345678901234567890", here in base32.
const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';

// RFC 6238 appendix B, SHA1 column: time in seconds, step (T / 30), 8-digit code. A 6-digit code
// is the last 6 digits of the 8-digit one (RFC 4226 5.3: the same number modulo 10^6).
const vectors = [
  { seconds: 59, step: 1, rfcCode: '94287082' },
  { seconds: 1111111109, step: 37037036, rfcCode: '07081804' },
  { seconds: 1111111111, step: 37037037, rfcCode: '14050471' },
  { seconds: 1234567890, step: 41152263, rfcCode: '89005924' },
  { seconds: 2000000000, step: 66666666, rfcCode: '69279037' },
  { seconds: 20000000000, step: 666666666, rfcCode: '65353130' },
];

const stepMs = 30_000;

describe('TOTP codes (RFC 6238 appendix B)', () => {
  describe.each(vectors)('at T = $seconds s', ({ seconds, step, rfcCode }) => {
    const code = rfcCode.slice(-6);
    const now = seconds * 1000;

    it('accepts the code and answers its step', () => {
      expect(verifyTotp(rfcSecret, code, null, now)).toBe(step);
    });

    it('accepts the code typed with a space in the middle', () => {
      expect(verifyTotp(rfcSecret, `${code.slice(0, 3)} ${code.slice(3)}`, null, now)).toBe(step);
    });

    it('accepts the code one step earlier and one step later, answering its own step', () => {
      expect(verifyTotp(rfcSecret, code, null, now - stepMs)).toBe(step);
      expect(verifyTotp(rfcSecret, code, null, now + stepMs)).toBe(step);
    });

    it('refuses the code two steps later', () => {
      expect(verifyTotp(rfcSecret, code, null, now + 2 * stepMs)).toBeUndefined();
    });

    it('refuses the code once its step is used, and after a later step was used', () => {
      expect(verifyTotp(rfcSecret, code, step, now)).toBeUndefined();
      expect(verifyTotp(rfcSecret, code, step + 1, now)).toBeUndefined();
    });

    it('accepts the code when only an earlier step was used', () => {
      expect(verifyTotp(rfcSecret, code, step - 1, now)).toBe(step);
    });

    it('refuses the 8-digit form', () => {
      expect(verifyTotp(rfcSecret, rfcCode, null, now)).toBeUndefined();
    });
  });

  it('refuses a code two steps earlier (T = 1111111109 s checked at T + 60 s backwards)', () => {
    // Step 37037036's code checked from step 37037038: outside the one-step window.
    expect(verifyTotp(rfcSecret, '081804', null, (1111111109 + 60) * 1000)).toBeUndefined();
    // ...and from step 37037034, two steps before it.
    expect(verifyTotp(rfcSecret, '081804', null, (1111111109 - 60) * 1000)).toBeUndefined();
  });

  it('refuses anything that is not six digits', () => {
    const now = 59_000;
    for (const input of ['', '28708', '2870822', '28708a', 'abcdef', '287-082', '２８７０８２']) {
      expect(verifyTotp(rfcSecret, input, null, now)).toBeUndefined();
    }
  });
});

describe('TOTP secrets and enrolment URIs', () => {
  it('makes 160-bit base32 secrets (32 characters), fresh each time', () => {
    const a = newTotpSecret();
    const b = newTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(b).toMatch(/^[A-Z2-7]{32}$/);
    expect(a).not.toBe(b);
  });

  it('writes the Key URI Format with issuer, escaped label and the SHA1/6/30 settings', () => {
    expect(totpUri(rfcSecret, 'op@example.com', 'Consent service')).toBe(
      'otpauth://totp/Consent%20service:op%40example.com?issuer=Consent%20service' +
        '&secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=SHA1&digits=6&period=30',
    );
  });
});

describe('QR code SVG', () => {
  // 148 bytes long.
  const uri =
    'otpauth://totp/Consent%20service:op%40example.com?issuer=Consent%20service' +
    '&secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&algorithm=SHA1&digits=6&period=30';

  it('is an <svg> element with an accessible name and nothing a strict CSP would block', async () => {
    const svg = await qrCodeSvg(uri);
    expect(svg.startsWith('<svg ')).toBe(true);
    expect(svg.endsWith('</svg>')).toBe(true);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('aria-label="QR code"');
    expect(svg).not.toMatch(/style/i);
    expect(svg).not.toMatch(/script/i);
    expect(svg).not.toMatch(/\son[a-z]+=/i);
    expect(svg).not.toContain('GEZDGNBVGY3TQOJQ');
  });

  it('draws the symbol version the URI length calls for, with the 4-module quiet zone', async () => {
    // ISO/IEC 18004 table 7, error correction M: version 7 holds at most 122 bytes and version 8
    // 152, so 148 bytes need version 8 (even with the base32 run in alphanumeric mode, about
    // 6 bytes less): 17 + 4 * 8 = 49 modules, plus 4 on each side.
    expect(uri.length).toBe(148);
    const svg = await qrCodeSvg(uri);
    expect(svg).toContain('viewBox="0 0 57 57"');
  });
});
