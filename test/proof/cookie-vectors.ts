/**
 * A fixed cookie decision and what docs/proof.md makes of it: its leaf (`consent-log/cookie/v1`)
 * and commitments, written out in full. The expected values were computed in a shell from
 * docs/proof.md alone, not by the code under test:
 *
 *   salt1=000102030405060708090a0b0c0d0e0f  salt2=101112131415161718191a1b1c1d1e1f
 *   visitor:  { printf 'subject/v1\n'; echo $salt1 | xxd -r -p;
 *               printf '%s' '6f1c2b9e-4d3a-4e8f-9b7c-1a2b3c4d5e6f'; } | sha256sum  (hex -> base64)
 *   evidence: { printf 'cookie-evidence/v1\n'; echo $salt2 | xxd -r -p;
 *               printf '%s' '{"ip":"192.0.2.0","locale":"th","origin":"https://www.bank.example","ua":"Mozilla/5.0 (X11)"}'; }
 *             | sha256sum  (hex -> base64); the same with "ua":null for a request without one,
 *             and with "region":"TH" between "origin" and "ua" for a visitor whose region was known,
 *             and then "variant":"b" after "ua" for a choice on a configuration with A/B variants
 *   customer: { printf 'subject/v1\n'; echo $salt1 | xxd -r -p; printf '%s' 'customer-42'; } | sha256sum
 *             (hex -> base64), then the evidence above with "customer":"<it>" first, before "ip"
 *   content:  printf '%s' '{"categories":["necessary","analytics","marketing","functional"]}' | sha256sum
 *   leaf hash: { printf '\x00'; cat leaf.txt; } | sha256sum, leaf.txt holding `leaf` below
 */
import type { CookieLeafFields } from '../../src/proof/index.js';

// The fixed choice.
export const subjectSalt = 'AAECAwQFBgcICQoLDA0ODw=='; // bytes 0x00 … 0x0f
export const evidenceSalt = 'EBESExQVFhcYGRobHB0eHw=='; // bytes 0x10 … 0x1f
export const visitorId = '6f1c2b9e-4d3a-4e8f-9b7c-1a2b3c4d5e6f';
export const contentSha256 = '5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf';
export const evidenceValues = {
  ip: '192.0.2.0',
  userAgent: 'Mozilla/5.0 (X11)',
  origin: 'https://www.bank.example',
  locale: 'th',
};

// What the document makes of it.
export const visitor = '3C7waapoOebjtVJYWEtpgLN4XGFMJ3ANxxb1wkzhONQ=';
export const evidence = 'Z0FjWRUutrCMtxOLoqyGAKt7JVEajntshwwl597ZrsM=';
export const evidenceWithoutUserAgent = '/5H/OQYuzhm9syBFpGC6LgbFSXvi2Ppae3AmOed5Kb8=';
export const evidenceInThailand = 'UCOQ97xqTeF7XM5HRhaa+6hujYOFpLrHCnCEBnLvD2I=';
export const evidenceInThailandVariantB = 'RmkPMZKhq8wetYK+xy8o6//2Qnv1rkndXWfpwbmVguY=';
/** A choice made while signed in as `customer-42`, whose subject salt is `subjectSalt`. */
export const signedInCustomerId = 'customer-42';
export const signedInCustomer = 'nZigUkNBwvGew7G3xJ45H8mMSzKuMxF+HAW0I14W8ZI=';
export const evidenceSignedIn = '8VS6UoY2Ut8iN6dpIRAFa5dpBdp1Pnom4yyOMvkQhyU=';
export const leaf =
  'consent-log/cookie/v1\n' +
  'record 0190e8a0-0000-7000-8000-000000000c01\n' +
  'time 2026-03-01T09:15:00.000Z\n' +
  'configuration 0190e8a0-0000-7000-8000-0000000000dd 2 sha256:5312bd6794ebca9262fcfefe4847c5820605b6c7ee0beaebd0cbf7a8d02a46bf\n' +
  'method custom\n' +
  'categories analytics=0 functional=0 marketing=1 necessary=1\n' +
  'visitor 3C7waapoOebjtVJYWEtpgLN4XGFMJ3ANxxb1wkzhONQ=\n' +
  'evidence Z0FjWRUutrCMtxOLoqyGAKt7JVEajntshwwl597ZrsM=\n';
export const leafHashHex = '3daf50a4a08de451fdf50bc6172f769dc61c4b0f82b8093ed20039d04c49cf2a';

export const fields: CookieLeafFields = {
  recordId: '0190e8a0-0000-7000-8000-000000000c01',
  time: '2026-03-01T09:15:00.000Z',
  configurationId: '0190e8a0-0000-7000-8000-0000000000dd',
  version: 2,
  contentSha256,
  method: 'custom',
  categories: { analytics: false, functional: false, marketing: true, necessary: true },
  visitor,
  evidence,
};
