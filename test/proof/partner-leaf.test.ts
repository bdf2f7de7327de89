/**
 * The partner block's leaf (`consent-log/partner/v1`) and the evidence of a change made in the
 * back-office, checked against fixed vectors computed in a shell from docs/proof.md, not by this
 * code:
 *
 *   salt1=000102030405060708090a0b0c0d0e0f  salt2=101112131415161718191a1b1c1d1e1f
 *   subject:  as test/proof/channel-leaf.test.ts (customer-42)
 *   evidence (API key): as test/proof/channel-leaf.test.ts
 *   evidence (user):    { printf 'evidence/v1\n'; echo $salt2 | xxd -r -p;
 *               printf '%s' '{"api_key_id":null,"ip":"192.0.2.10","ua":"Mozilla/5.0 (X11)","user_id":"0190e8a0-0000-7000-8000-0000000000bb"}'; }
 *             | openssl dgst -sha256 -binary | base64
 *   leaf hash: { printf '\x00'; cat leaf.txt; } | sha256sum, leaf.txt holding `leaf` below
 */
import { describe, expect, it } from 'vitest';
import { partnerBlocks } from '../../src/partner-blocks/index.js';
import {
  channelLeafFormat,
  evidenceCommitment,
  leafHash,
  type PartnerLeafFields,
  parseLeaf,
  partnerLeafFormat,
} from '../../src/proof/index.js';
import { controlLeafOf } from '../helpers/control-leaf.js';

/** The leaf the kind's writer queues for a change's row and its personal fields. */
const leafOf = controlLeafOf(partnerBlocks);

const subjectSalt = 'AAECAwQFBgcICQoLDA0ODw=='; // bytes 0x00 … 0x0f
const evidenceSalt = 'EBESExQVFhcYGRobHB0eHw=='; // bytes 0x10 … 0x1f
const subject = 'nZigUkNBwvGew7G3xJ45H8mMSzKuMxF+HAW0I14W8ZI=';
const evidence = 'WOBSyflHrEJxDGMXLoIzL8YoAAiVoAPCR0Je/aqZ/84=';
const userEvidence = '6HZlkYYHr+JehfE8LUnZ/8o+Voe3j/0EVD8CqmL9pGo=';
const leaf =
  'consent-log/partner/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000b01\n' +
  'time 2026-03-01T09:20:00.000Z\n' +
  'decision 0190e8a0-0000-7000-8000-000000000d01\n' +
  'partner acme-insure\n' +
  'blocked 1\n' +
  'subject nZigUkNBwvGew7G3xJ45H8mMSzKuMxF+HAW0I14W8ZI=\n' +
  'evidence WOBSyflHrEJxDGMXLoIzL8YoAAiVoAPCR0Je/aqZ/84=\n';
const leafHashHex = '6ebed7ccb44d507a78ad2068de16463ff68603a98638c316c752cd0db6d63be2';
const fields: PartnerLeafFields = {
  recordId: '0190e8a0-0000-7000-8000-000000000b01',
  time: '2026-03-01T09:20:00.000Z',
  decisionId: '0190e8a0-0000-7000-8000-000000000d01',
  partnerCode: 'acme-insure',
  blocked: true,
  subject,
  evidence,
};
const record = {
  id: fields.recordId,
  changed_at: fields.time,
  decision_id: fields.decisionId,
  partner_code: 'acme-insure',
  blocked: 1,
  api_key_id: '0190e8a0-0000-7000-8000-0000000000aa',
  evidence_salt: evidenceSalt,
  customer_id: 'customer-42',
  ip: '192.0.2.10',
  user_agent: 'Mozilla/5.0 (X11)',
};

describe('the documented partner leaf, for a fixed block', () => {
  it('the leaf text of the fields is the documented text, and its leaf hash the documented one', () => {
    expect(partnerLeafFormat.text(fields)).toBe(leaf);
    expect(Buffer.from(leafHash(Buffer.from(leaf, 'utf8'))).toString('hex')).toBe(leafHashHex);
  });

  it('the leaf the writer queues for the record is the documented text', () => {
    expect(leafOf(record, subjectSalt)).toBe(leaf);
  });

  it('a change made in the back-office commits to the user, and no API key', () => {
    expect(
      evidenceCommitment(evidenceSalt, {
        apiKeyId: null,
        userId: '0190e8a0-0000-7000-8000-0000000000bb',
        ip: '192.0.2.10',
        userAgent: 'Mozilla/5.0 (X11)',
      }),
    ).toBe(userEvidence);
    const byUser = leafOf(
      { ...record, api_key_id: null, user_id: '0190e8a0-0000-7000-8000-0000000000bb' },
      subjectSalt,
    );
    expect(byUser).toBe(leaf.replace(evidence, userEvidence));
  });

  it('parses back to its fields, and is no other format', () => {
    expect(partnerLeafFormat.parse(leaf)).toEqual(fields);
    expect(partnerLeafFormat.parse(leaf.replace('blocked 1', 'blocked 0'))).toEqual({
      ...fields,
      blocked: false,
    });
    expect(parseLeaf(leaf)).toBeUndefined();
    expect(channelLeafFormat.parse(leaf)).toBeUndefined();
  });

  it('refuses text that is not exactly the format', () => {
    for (const bad of [
      leaf.slice(0, -1),
      leaf.replace('blocked 1', 'blocked 2'),
      leaf.replace('partner acme-insure', 'partner Acme'),
      leaf.replace('consent-log/partner/v1', 'consent-log/partner/v2'),
      `${leaf}extra\n`,
      leaf.replace('partner acme-insure\n', ''),
    ]) {
      expect(partnerLeafFormat.parse(bad), bad).toBeUndefined();
    }
  });
});
