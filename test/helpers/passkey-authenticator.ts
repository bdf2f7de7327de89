import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/**
 * A passkey authenticator in software, as WebAuthn (Level 2, §6) defines its answers: an ES256
 * key pair per credential, "none" attestation, and the client data a browser would add for
 * `origin`. Each answer is built from the spec's byte layout here, not by the library under test;
 * `@simplewebauthn/server`'s CBOR encoder only writes the maps. It can also answer as a browser
 * that is wrong: another origin, another relying party, no user verification, a counter that
 * goes back (a cloned authenticator).
 */

interface Credential {
  id: Buffer;
  privateKey: KeyObject;
  rpId: string;
  userHandle: string;
  counter: number;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();

/** Authenticator data flags (§6.1). */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export interface Twist {
  /** The origin the "browser" puts in the client data (the page's). */
  origin?: string;
  /** The relying party whose hash heads the authenticator data. */
  rpId?: string;
  /** Whether the person was verified (a PIN, a fingerprint). */
  verified?: boolean;
  /** The signature counter to claim, instead of the next one. */
  counter?: number;
  /** Another challenge than the options'. */
  challenge?: string;
}

export class SoftPasskeys {
  readonly credentials: Credential[] = [];

  constructor(readonly origin: string) {}

  /** Answers `navigator.credentials.create()` for these options (a registration's). */
  register(
    options: { challenge: string; rp: { id?: string }; user: { id: string } },
    twist: Twist = {},
  ) {
    const rpId = twist.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, Buffer.from(jwk.x ?? '', 'base64url')],
        [-3, Buffer.from(jwk.y ?? '', 'base64url')],
      ]),
    );
    const credential: Credential = {
      id: randomBytes(16),
      privateKey,
      rpId,
      userHandle: options.user.id,
      counter: 0,
    };
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(credential.id.length);
    const authData = Buffer.concat([
      sha256(rpId),
      Buffer.from([UP | AT | (twist.verified === false ? 0 : UV)]),
      Buffer.alloc(4), // counter 0
      Buffer.alloc(16), // AAGUID: none said
      idLength,
      credential.id,
      coseKey,
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', new Map<string, string>()],
        ['authData', new Uint8Array(authData)],
      ]),
    );
    const clientData = this.clientData('webauthn.create', options.challenge, twist);
    this.credentials.push(credential);
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers `navigator.credentials.get()` with one of its credentials (the last made unless said). */
  authenticate(
    options: { challenge: string; rpId?: string },
    twist: Twist & { credential?: number } = {},
  ) {
    const credential = this.credentials.at(twist.credential ?? -1);
    if (!credential) throw new Error('no passkey made yet');
    credential.counter = twist.counter ?? credential.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authData = Buffer.concat([
      sha256(twist.rpId ?? credential.rpId),
      Buffer.from([UP | (twist.verified === false ? 0 : UV)]),
      counter,
    ]);
    const clientData = this.clientData('webauthn.get', options.challenge, twist);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientData)]), {
      key: credential.privateKey,
      dsaEncoding: 'der',
    });
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  private clientData(type: string, challenge: string, twist: Twist): Buffer {
    return Buffer.from(
      JSON.stringify({
        type,
        challenge: twist.challenge ?? challenge,
        origin: twist.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
  }
}
