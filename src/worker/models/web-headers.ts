// A small WHATWG `Headers` for the worker bundle. Node's own Headers comes with its fetch
// implementation (undici), and the first touch of it loads all of undici into the thread: about
// 25 ms of CPU and 3 MB per thread, for a class the SDK only uses to build and read header lists.
// The bundler substitutes this class for the global `Headers` inside the worker bundle
// (src/worker/models/web-shims.ts); the global itself is left alone.

type HeadersLike =
  | Iterable<readonly [string, string]>
  | Record<string, string>
  | { forEach(fn: (value: string, name: string) => void): void };

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function checkName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`invalid header name: "${text}"`);
  return text.toLowerCase();
}

function checkValue(value: string): string {
  // Leading and trailing whitespace is dropped, as the standard says; CR, LF and NUL are refused.
  const text = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
  if (/[\r\n\0]/.test(text)) throw new TypeError('invalid header value');
  return text;
}

/** Header names and values, case-insensitive by name; iteration is sorted by name. */
export class Headers {
  readonly #values = new Map<string, string>();
  readonly #cookies: string[] = [];

  constructor(init?: HeadersLike | null) {
    if (init === undefined || init === null) return;
    if (init instanceof Headers) {
      for (const [name, value] of init.#values) this.#values.set(name, value);
      this.#cookies.push(...init.#cookies);
    } else if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (pair.length !== 2) throw new TypeError('a header pair must have a name and a value');
        this.append(pair[0], pair[1]);
      }
    } else if (typeof (init as { forEach?: unknown }).forEach === 'function') {
      (init as { forEach(fn: (value: string, name: string) => void): void }).forEach((value, name) =>
        this.append(name, value),
      );
    } else {
      for (const [name, value] of Object.entries(init as Record<string, string>)) this.append(name, value);
    }
  }

  append(name: string, value: string): void {
    const key = checkName(name);
    const text = checkValue(value);
    if (key === 'set-cookie') this.#cookies.push(text);
    const existing = this.#values.get(key);
    this.#values.set(key, existing === undefined ? text : `${existing}, ${text}`);
  }

  set(name: string, value: string): void {
    const key = checkName(name);
    const text = checkValue(value);
    if (key === 'set-cookie') this.#cookies.splice(0, this.#cookies.length, text);
    this.#values.set(key, text);
  }

  get(name: string): string | null {
    return this.#values.get(checkName(name)) ?? null;
  }

  has(name: string): boolean {
    return this.#values.has(checkName(name));
  }

  delete(name: string): void {
    const key = checkName(name);
    if (key === 'set-cookie') this.#cookies.length = 0;
    this.#values.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  forEach(fn: (value: string, name: string, headers: Headers) => void, thisArg?: unknown): void {
    for (const [name, value] of this) fn.call(thisArg, value, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#values.keys()].sort();
    for (const name of names) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) yield [name, cookie];
      else yield [name, this.#values.get(name) as string];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
