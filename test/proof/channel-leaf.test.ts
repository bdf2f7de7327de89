/**
 * The channel change's leaf (`consent-log/channel/v1`) and its commitments, checked against fixed
 * vectors computed in a shell from docs/proof.md, not by this code:
 *
 *   salt1=000102030405060708090a0b0c0d0e0f  salt2=101112131415161718191a1b1c1d1e1f
 *   subject:  { printf 'subject/v1\n'; echo $salt1 | xxd -r -p; printf '%s' 'customer-42'; }
 *             | sha256sum  (hex -> base64)
 *   evidence: { printf 'evidence/v1\n'; echo $salt2 | xxd -r -p;
 *               printf '%s' '{"api_key_id":"0190e8a0-0000-7000-8000-0000000000aa","ip":"192.0.2.10","ua":"Mozilla/5.0 (X11)"}'; }
 *             | sha256sum  (hex -> base64)
 *   leaf hash: { printf '\x00'; cat leaf.txt; } | sha256sum, leaf.txt holding `leaf` below
 */
import { describe, expect, it } from 'vitest';
import { channelChanges } from '../../src/channels/index.js';
import {
  type ChannelLeafFields,
  channelLeafFormat,
  evidenceCommitment,
  leafHash,
  parseCookieLeaf,
  parseLeaf,
  subjectCommitment,
} from '../../src/proof/index.js';
import { controlLeafOf } from '../helpers/control-leaf.js';

/** The leaf the kind's writer queues for a change's row and its personal fields. */
const leafOf = controlLeafOf(channelChanges);

const subjectSalt = 'AAECAwQFBgcICQoLDA0ODw=='; // bytes 0x00 … 0x0f
const evidenceSalt = 'EBESExQVFhcYGRobHB0eHw=='; // bytes 0x10 … 0x1f
const customerId = 'customer-42';
const evidenceValues = {
  apiKeyId: '0190e8a0-0000-7000-8000-0000000000aa',
  ip: '192.0.2.10',
  userAgent: 'Mozilla/5.0 (X11)',
};
const subject = 'nZigUkNBwvGew7G3xJ45H8mMSzKuMxF+HAW0I14W8ZI=';
const evidence = 'WOBSyflHrEJxDGMXLoIzL8YoAAiVoAPCR0Je/aqZ/84=';
const leaf =
  'consent-log/channel/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000e01\n' +
  'time 2026-03-01T09:15:00.000Z\n' +
  'product savings\n' +
  'channel email\n' +
  'blocked 1\n' +
  'subject nZigUkNBwvGew7G3xJ45H8mMSzKuMxF+HAW0I14W8ZI=\n' +
  'evidence WOBSyflHrEJxDGMXLoIzL8YoAAiVoAPCR0Je/aqZ/84=\n';
const leafHashHex = '9b00204834ca1d21077134c822b3fb536a0424a122f81c48612aa107b6ecf6f3';
const fields: ChannelLeafFields = {
  recordId: '0190e8a0-0000-7000-8000-000000000e01',
  time: '2026-03-01T09:15:00.000Z',
  productCode: 'savings',
  channel: 'email',
  blocked: true,
  subject,
  evidence,
};

describe('the documented channel leaf and its commitments, for a fixed change', () => {
  it('the commitments are the documented ones: the subject and evidence of a decision', () => {
    expect(subjectCommitment(subjectSalt, customerId)).toBe(subject);
    expect(evidenceCommitment(evidenceSalt, evidenceValues)).toBe(evidence);
  });

  it('the leaf text of the fields is the documented text, and its leaf hash the documented one', () => {
    expect(channelLeafFormat.text(fields)).toBe(leaf);
    expect(Buffer.from(leafHash(Buffer.from(leaf, 'utf8'))).toString('hex')).toBe(leafHashHex);
  });

  it('the leaf the writer queues for the record is the documented text', () => {
    const queued = leafOf(
      {
        id: fields.recordId,
        changed_at: fields.time,
        product_code: 'savings',
        channel: 'email',
        blocked: 1,
        api_key_id: evidenceValues.apiKeyId,
        evidence_salt: evidenceSalt,
        customer_id: customerId,
        ip: evidenceValues.ip,
        user_agent: evidenceValues.userAgent,
      },
      subjectSalt,
    );
    expect(queued).toBe(leaf);
  });

  it('parses back to its fields, and is no other format', () => {
    expect(channelLeafFormat.parse(leaf)).toEqual(fields);
    expect(channelLeafFormat.parse(leaf.replace('blocked 1', 'blocked 0'))).toEqual({
      ...fields,
      blocked: false,
    });
    expect(parseLeaf(leaf)).toBeUndefined();
    expect(parseCookieLeaf(leaf)).toBeUndefined();
  });

  it('refuses text that is not exactly the format', () => {
    for (const bad of [
      leaf.slice(0, -1),
      leaf.replace('blocked 1', 'blocked 2'),
      leaf.replace('blocked 1', 'blocked true'),
      leaf.replace('consent-log/channel/v1', 'consent-log/channel/v2'),
      `${leaf}extra\n`,
      leaf.replace('product savings\n', ''),
    ]) {
      expect(channelLeafFormat.parse(bad), bad).toBeUndefined();
    }
  });
});
