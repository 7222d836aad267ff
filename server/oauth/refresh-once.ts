/**
 * One refresh per refresh token. Calls of one person that find their access token expired
 * at once each ask the SDK to refresh it, with the same refresh token; an authorization
 * server that rotates refresh tokens takes the second use for a stolen token and revokes
 * the grant, signing the person out. So a refresh already under way (or just finished) for
 * a token hands its answer to every later request for that token instead of sending it
 * again. Keyed by the token itself, which only its holder knows.
 */
const KEEP_MS = 30_000;

interface Answer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: ArrayBuffer;
}

const answers = new Map<string, Promise<Answer>>();

export function refreshOnce(send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const token = refreshTokenOf(init);
    if (!token) return send(input, init);
    let answer = answers.get(token);
    if (!answer) {
      answer = send(input, init).then(async (response) => ({
        status: response.status,
        statusText: response.statusText,
        headers: [...response.headers],
        body: await response.arrayBuffer(),
      }));
      answers.set(token, answer);
      const forget = () => setTimeout(() => answers.delete(token), KEEP_MS).unref();
      answer.then(forget, () => answers.delete(token));
    }
    const { status, statusText, headers, body } = await answer;
    return new Response(body.slice(0), { status, statusText, headers });
  };
}

function refreshTokenOf(init: RequestInit | undefined): string | undefined {
  if ((init?.method ?? "GET").toUpperCase() !== "POST") return undefined;
  const body = init?.body;
  const params = body instanceof URLSearchParams ? body : typeof body === "string" ? new URLSearchParams(body) : undefined;
  return params?.get("grant_type") === "refresh_token" ? (params.get("refresh_token") ?? undefined) : undefined;
}
