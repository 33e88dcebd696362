/**
 * A JSON call to the server as the browser tests' client makes it: the bearer token when given, a 503 of
 * the load shedding (a busy 2-core machine) tried again after its Retry-After, any other failure thrown
 * with the path, the status and the answer.
 */
export async function apiCall(
  baseUrl: string,
  token: string,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status === 503 && attempt < 5) {
      const wait = Math.min(2, Number(res.headers.get('retry-after') ?? 1) || 1);
      await new Promise((r) => setTimeout(r, wait * 1000));
      continue;
    }
    if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
}
