// Signatures of the local fan-out target (parts 5.9 and 6): with `--secret`, the listening agent
// sends the HMAC-SHA256 of the raw request body, keyed with the secret, as a hex digest in
// `X-Service-Signature` (or the header named by `--signature-header`). Verify over the raw bytes,
// before parsing the JSON.

import { createHmac, timingSafeEqual } from 'node:crypto';

/** A SHA-256 digest in hex: 64 hex digits, nothing else. */
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

/**
 * `true` only when `signatureHeader` is the HMAC-SHA256 hex digest of `rawBody` keyed with
 * `secret`. The comparison is constant-time. A missing, empty, repeated or malformed header, an
 * empty secret or a body that is not a string or bytes gives `false`; this never throws.
 *
 *   verifySignature(rawBody, process.env.FANOUT_SECRET, req.headers['x-service-signature'])
 */
export function verifySignature(
  rawBody: string | Uint8Array,
  secret: string,
  signatureHeader: string | readonly string[] | null | undefined,
): boolean {
  try {
    const header = Array.isArray(signatureHeader) ? (signatureHeader.length === 1 ? signatureHeader[0] : undefined) : signatureHeader;
    if (typeof header !== 'string') return false;
    const signature = header.trim();
    if (!HEX_SHA256.test(signature)) return false;
    if (typeof secret !== 'string' || secret === '') return false;
    if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) return false;
    const expected = createHmac('sha256', secret).update(rawBody).digest();
    return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
  } catch {
    return false;
  }
}
