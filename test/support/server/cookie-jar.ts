/**
 * A browser's cookies for HTTP tests: keeps what the server sets (and drops what it
 * clears), sends them back on every request. Two jars are two browsers.
 */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    private readonly headers: Record<string, string> = {},
  ) {}

  /** The Cookie header a browser would send. */
  get header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  async fetch(path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: {
        ...this.headers,
        ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        cookie: this.header,
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      redirect: "manual",
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || attributes.some((a) => /^\s*max-age=0$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  /** A POST with a JSON body; the answer's status and parsed body. */
  async post<T = unknown>(path: string, body: unknown = {}, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
    const res = await this.fetch(path, { method: "POST", body, headers });
    return { status: res.status, body: (await res.json()) as T };
  }

  async get<T = unknown>(path: string): Promise<{ status: number; body: T }> {
    const res = await this.fetch(path);
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
  }
}
