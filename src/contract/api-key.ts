// The one rule the mock adds to Prism (part 5.1): a key is a string beginning `sk_live_`, sent as
// `Authorization: Bearer <API_KEY>`. Prism alone accepts any bearer token.

/** The prefix every API key begins with (part 5.1). */
export const API_KEY_PREFIX = 'sk_live_';

// `Bearer` exactly, as Prism's own bearer check takes it (it answers 401 to `bearer …`), so the
// front and Prism never disagree.
const BEARER = /^Bearer (\S+)$/;

/** `true` when the header is `Bearer sk_live_<something>`; missing, repeated or other forms are `false`. */
export function isAcceptedAuthorization(header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const key = BEARER.exec(header)?.[1];
  return key !== undefined && key.startsWith(API_KEY_PREFIX) && key.length > API_KEY_PREFIX.length;
}
