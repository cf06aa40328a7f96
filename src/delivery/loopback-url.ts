// Rule 1 of the local fan-out target (part 6): the URL must use `http://` or `https://` and
// resolve to a loopback host: `127.0.0.1`, `0.0.0.0`, `localhost`, `::1` or `[::1]`. Other URLs
// are rejected. The schemes and hosts are read from the AsyncAPI description (the servers of the
// `localFanOutTarget` channel), not restated here.
import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { loadAsyncApi, resolveRef, type JsonObject } from '../contract/generated-files.js';
import { CONTROL_PREFIX, reachesControlSurface } from './control-paths.js';

export class TargetUrlError extends Error {}

export interface LoopbackRule {
  /** e.g. `http:`, `https:` */
  protocols: string[];
  /** Host names as part 6 writes them, brackets removed: `127.0.0.1`, `0.0.0.0`, `localhost`, `::1`. */
  hosts: string[];
}

const unbracket = (host: string): string => host.replace(/^\[(.*)\]$/, '$1');

/** The schemes and hosts of the local fan-out target's servers in the AsyncAPI description. */
export function loopbackRule(asyncapi: JsonObject = loadAsyncApi()): LoopbackRule {
  const servers: JsonObject[] = (asyncapi.channels?.localFanOutTarget?.servers ?? []).map((server: unknown) => resolveRef(asyncapi, server));
  const protocols = new Set<string>();
  const hosts = new Set<string>();
  for (const server of servers) {
    if (typeof server?.protocol === 'string') protocols.add(`${server.protocol.toLowerCase()}:`);
    for (const host of server?.variables?.loopbackHost?.enum ?? []) hosts.add(unbracket(String(host).toLowerCase()));
  }
  if (protocols.size === 0 || hosts.size === 0) {
    throw new Error('The AsyncAPI description has no localFanOutTarget servers with loopbackHost values; run `npm run bundle`.');
  }
  return { protocols: [...protocols], hosts: [...hosts] };
}

function allowedList(rule: LoopbackRule): string {
  return rule.hosts.map((host) => (host.includes(':') ? `${host}, [${host}]` : host)).join(', ');
}

/**
 * The target URL, parsed and checked; throws `TargetUrlError` saying what is wrong. The host is
 * compared after WHATWG URL parsing (which lower-cases it and reads `127.1` as `127.0.0.1`), as a
 * whole, so `127.0.0.1.example.com`, `localhost.evil` and `127.0.0.1@evil.com` (whose host is
 * `evil.com`) are refused. Credentials in the URL are refused too: use `--bearer`.
 */
export function parseTargetUrl(input: string, rule: LoopbackRule = loopbackRule()): URL {
  if (!URL.canParse(input)) throw new TargetUrlError(`"${input}" is not a URL. Give a full URL such as http://127.0.0.1:3000/webhooks.`);
  const url = new URL(input);
  if (!input.includes('//')) {
    // `localhost:3000/hook` parses, with `localhost:` as its scheme.
    throw new TargetUrlError(`"${input}" has no http:// or https:// in front. Give a full URL such as http://127.0.0.1:3000/webhooks.`);
  }
  if (!rule.protocols.includes(url.protocol)) {
    throw new TargetUrlError(
      `"${input}" uses the ${url.protocol.slice(0, -1)} scheme; a local fan-out target must use ${rule.protocols.map((p) => `${p}//`).join(' or ')} (part 6).`,
    );
  }
  if (!rule.hosts.includes(unbracket(url.hostname))) {
    throw new TargetUrlError(
      `"${input}" is not a loopback URL: its host is "${url.hostname}". A local fan-out target must be on ${allowedList(rule)} (part 6).`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new TargetUrlError(
      `"${input}" carries credentials before "@"; credentials in the URL are not supported. Use --bearer or --secret instead.`,
    );
  }
  if (reachesControlSurface(url)) {
    throw new TargetUrlError(`"${input}" is under ${CONTROL_PREFIX}, the mock's control surface: events are never posted there.`);
  }
  url.hash = '';
  return url;
}

function isLoopbackAddress(address: string): boolean {
  if (isIP(address) === 4) return address.startsWith('127.') || address === '0.0.0.0';
  return address === '::1' || address === '::' || /^::ffff:127\./i.test(address);
}

/**
 * A DNS lookup for the HTTP request that refuses a name (`localhost`) resolving outside loopback,
 * so "resolves to a loopback host" holds even with an unusual hosts file.
 */
export function loopbackOnlyLookup(
  hostname: string,
  options: LookupOneOptions & { all?: boolean },
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const loopback = addresses.filter((entry) => isLoopbackAddress(entry.address));
    if (loopback.length === 0) {
      const found = addresses.map((entry) => entry.address).join(', ');
      return callback(Object.assign(new Error(`${hostname} resolves to ${found}, not a loopback address`), { code: 'ENOTLOOPBACK' }), '', 0);
    }
    if (options.all) return callback(null, loopback);
    return callback(null, loopback[0]!.address, loopback[0]!.family);
  });
}
