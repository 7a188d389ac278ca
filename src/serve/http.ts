/**
 * HTTP plumbing of `hlab serve` (server.ts): JSON responses, a bounded body reader, JSON and
 * query parsing. Every client error is an HttpError naming its field (protocol.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './protocol';

/** Send `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, extraHeaders: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...extraHeaders });
  res.end(text);
}

/**
 * Read the body up to `limit` bytes within `timeoutMs`. A longer body is read to its end and
 * discarded (so the connection stays usable) unless it declares more than 16× the limit, which is
 * refused at once. A body that has not ended after `timeoutMs` is refused (its connection is then
 * closed: the rest is never read), so a stalled client holds a connection seconds, not minutes.
 * @throws HttpError 413 (field 'body') beyond the limit; 408 when the body is too slow.
 */
export function readBody(req: IncomingMessage, limit: number, timeoutMs = 10_000): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > 16 * limit)
    return Promise.reject(new HttpError(413, 'body', `body is ${declared} bytes, more than the ${limit}-byte limit`, 'too_large'));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new HttpError(408, 'body', `body not received within ${timeoutMs / 1000} s`, 'body_timeout')),
      timeoutMs,
    );
    timer.unref();
    req.once('close', () => clearTimeout(timer));
    req.once('end', () => clearTimeout(timer));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= limit) chunks.push(c);
      else if (size > 16 * limit) req.destroy();
    });
    req.on('end', () => {
      if (size > limit) reject(new HttpError(413, 'body', `body is ${size} bytes, more than the ${limit}-byte limit`, 'too_large'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', (e) => reject(new HttpError(400, 'body', `could not read the body: ${e.message}`)));
    req.on('close', () => {
      if (size > 16 * limit) reject(new HttpError(413, 'body', `body is more than 16 × the ${limit}-byte limit`, 'too_large'));
    });
  });
}

/** Parse a request body as JSON. @throws HttpError 400 (field 'body') when empty or not JSON. */
export function parseJson(text: string): unknown {
  if (text.trim() === '') throw new HttpError(400, 'body', 'body: expected a JSON object, got an empty body');
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, 'body', `body: invalid JSON (${(e as Error).message.slice(0, 120)})`);
  }
}

/** The query parameters as an object. @throws HttpError 400 naming a parameter given twice. */
export function queryObject(url: URL): Record<string, string> {
  const q: Record<string, string> = {};
  for (const [k, v] of url.searchParams) {
    if (k in q) throw new HttpError(400, k, `${k}: given twice`);
    q[k] = v;
  }
  return q;
}
