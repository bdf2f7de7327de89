/**
 * The evidence of a record made through the preference centre (`via`), checked against a fixed
 * vector computed in a shell from docs/proof.md, not by this code, and recomputed here with
 * node:crypto from the canonical JSON written out:
 *
 *   salt2=101112131415161718191a1b1c1d1e1f
 *   evidence: { printf 'evidence/v1\n'; echo $salt2 | xxd -r -p;
 *               printf '%s' '{"api_key_id":"0190e8a0-0000-7000-8000-0000000000aa","ip":"192.0.2.10","ua":"Mozilla/5.0 (X11)","via":"preference-centre"}'; }
 *             | openssl dgst -sha256 -binary | base64
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { evidenceCommitment } from '../../src/proof/index.js';

const evidenceSalt = 'EBESExQVFhcYGRobHB0eHw=='; // bytes 0x10 … 0x1f
const values = {
  apiKeyId: '0190e8a0-0000-7000-8000-0000000000aa',
  ip: '192.0.2.10',
  userAgent: 'Mozilla/5.0 (X11)',
};
const canonicalWithVia =
  '{"api_key_id":"0190e8a0-0000-7000-8000-0000000000aa","ip":"192.0.2.10",' +
  '"ua":"Mozilla/5.0 (X11)","via":"preference-centre"}';
const viaEvidence = 'P3H0xe68M+qTx7cN99sxC4YimBJ94At/wSWE8jnLNvg=';
/** The same values without `via`: test/proof/channel-leaf.test.ts's documented evidence. */
const plainEvidence = 'WOBSyflHrEJxDGMXLoIzL8YoAAiVoAPCR0Je/aqZ/84=';

describe('the evidence commitment of a record made through the preference centre', () => {
  it('is the documented vector, the SHA-256 of the canonical JSON with `via` last', () => {
    const byHand = createHash('sha256')
      .update('evidence/v1\n')
      .update(Buffer.from(evidenceSalt, 'base64'))
      .update(canonicalWithVia, 'utf8')
      .digest('base64');
    expect(byHand).toBe(viaEvidence);
    expect(evidenceCommitment(evidenceSalt, { ...values, via: 'preference-centre' })).toBe(
      viaEvidence,
    );
  });

  it('differs from the same evidence without `via`, which commits exactly as before', () => {
    expect(evidenceCommitment(evidenceSalt, values)).toBe(plainEvidence);
    expect(evidenceCommitment(evidenceSalt, { ...values, via: null })).toBe(plainEvidence);
    expect(viaEvidence).not.toBe(plainEvidence);
  });
});
