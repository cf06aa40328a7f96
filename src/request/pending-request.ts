// The request object openapi-fetch builds and hands to the middleware and to fetch. openapi-fetch
// lets a client replace its `Request` class; this one holds the same fields without building an
// undici Request (a second one, with its own AbortSignal, is built anyway when fetch is called),
// which was the largest share of the client's overhead over a raw fetch. A caller-supplied fetch
// still receives a real `Request`.

/** A request body as fetch takes it (`BodyInit` is a DOM name, not global in Node's types). */
type Body = NonNullable<RequestInit['body']>;

/** What the middleware, the retry loop and the fetch adapter read from a request. */
export class PendingRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  /** The serialized body (openapi-fetch gives a JSON string or FormData), or null. */
  readonly body: Body | null;
  readonly signal: AbortSignal | null;
  readonly #init: RequestInit;

  constructor(url: string | URL, init: RequestInit = {}) {
    this.url = String(url);
    this.method = (init.method ?? 'GET').toUpperCase();
    this.headers = new Headers(init.headers);
    this.body = init.body ?? null;
    this.signal = init.signal ?? null;
    this.#init = init;
  }

  /** Same URL, method, headers and body (a string or FormData can be sent again as it is). */
  clone(): PendingRequest {
    return new PendingRequest(this.url, { ...this.#init, headers: new Headers(this.headers) });
  }

  /** The options for `fetch(url, init)`, headers as they are now (after the middleware). */
  toInit(): RequestInit {
    return { ...this.#init, method: this.method, headers: this.headers, body: this.body };
  }

  toRequest(): Request {
    return new Request(this.url, this.toInit());
  }
}
