// Signatures of the local fan-out target (parts 5.9 and 6): with `--secret`, the listening agent
// sends the HMAC-SHA256 of the raw request body, keyed with the secret, as a hex digest in
// `X-Service-Signature` (or the header named by `--signature-header`). Verify over the raw bytes,
// before parsing the JSON.
//
// WebCrypto (`globalThis.crypto.subtle`, in Node 20 and every browser), not node:crypto, so this
// entry bundles for the browser (issue 13). WebCrypto's HMAC is asynchronous: the check resolves.
import { hexToBytes } from '@noble/hashes/utils.js';

/** A SHA-256 digest in hex: 64 hex digits, nothing else. */
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

const encoder = new TextEncoder();

/**
 * Resolves `true` only when `signatureHeader` is the HMAC-SHA256 hex digest of `rawBody` keyed
 * with `secret`. The comparison is constant-time. A missing, empty, repeated or malformed header,
 * an empty secret or a body that is not a string or bytes gives `false`; this never rejects.
 *
 * ```ts
 * import { createServer } from 'node:http';
 * import { verifySignature } from 'numbers-api-contract/events';
 *
 * const secret = process.env.FANOUT_SECRET ?? ''; // the listening agent's --secret; empty: nothing verifies
 * createServer(async (req, res) => {
 *   const chunks: Buffer[] = [];
 *   for await (const chunk of req) chunks.push(chunk as Buffer);
 *   const rawBody = Buffer.concat(chunks); // the bytes as sent: verify before parsing
 *   if (!(await verifySignature(rawBody, secret, req.headers['x-service-signature']))) {
 *     res.writeHead(401).end();
 *     return;
 *   }
 *   const event: unknown = JSON.parse(rawBody.toString('utf8'));
 *   console.log(event);
 *   res.writeHead(204).end();
 * }).listen(3000, '127.0.0.1');
 * ```
 */
export async function verifySignature(
  rawBody: string | Uint8Array,
  secret: string,
  signatureHeader: string | readonly string[] | null | undefined,
): Promise<boolean> {
  try {
    const header = Array.isArray(signatureHeader) ? (signatureHeader.length === 1 ? signatureHeader[0] : undefined) : signatureHeader;
    if (typeof header !== 'string') return false;
    const signature = header.trim();
    if (!HEX_SHA256.test(signature)) return false;
    if (typeof secret !== 'string' || secret === '') return false;
    if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) return false;
    const subtle = globalThis.crypto.subtle;
    const key = await subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    const data = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
    // WebCrypto's HMAC verify compares the digests in constant time (what node:crypto's `timingSafeEqual` does).
    return await subtle.verify('HMAC', key, hexToBytes(signature) as Uint8Array<ArrayBuffer>, data as Uint8Array<ArrayBuffer>);
  } catch {
    return false;
  }
}
