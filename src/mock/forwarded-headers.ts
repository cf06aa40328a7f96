// The headers a forwarder passes on (the example server's responder to Prism, the validating proxy
// to a deployment and back): all but those that belong to one connection (RFC 9110 §7.6.1) and
// those the next hop sets itself (`Host`, the length and its framing).
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding', 'content-length', 'host']);

/** `headers` (lower-case names) as they go on to the next hop, a repeated header joined; `drop` names more to leave out. */
export function forwardedHeaders(headers: Record<string, string | string[] | undefined>, drop: (name: string) => boolean = () => false): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || drop(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
