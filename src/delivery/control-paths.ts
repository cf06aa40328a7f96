// The mock's control surface lives under one path prefix, and its token goes in one header
// (spec/mock-control.yaml). What the mock
// or the listening agent POSTs on its own (a webhook delivery, a fan-out) never goes there: a
// subscription or a target whose path is under it is refused where it is made (issue 27, item 6),
// so no API user and no event can reset the mock or move its clock. Browser-safe.

/** The path prefix of every control operation. */
export const CONTROL_PREFIX = '/__mock/';

/** The header the control token goes in. */
export const CONTROL_TOKEN_HEADER = 'X-Mock-Control-Token';

/**
 * Whether a delivery to `url` would reach a control operation of a mock: its path, with its
 * percent-escapes decoded, dot segments resolved and letters in lower case, starts with the
 * prefix, or names it as a segment (`//__mock/reset` reaches the same handler on some servers).
 */
export function reachesControlSurface(url: URL): boolean {
  let path = url.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    // an escape that does not decode: compared as written
  }
  path = path.toLowerCase().replace(/\/{2,}/g, '/');
  return path.startsWith(CONTROL_PREFIX) || path === CONTROL_PREFIX.slice(0, -1) || path.includes(CONTROL_PREFIX);
}
