/**
 * What the dashboard refuses before any route runs: methods other than GET and HEAD (it is
 * read-only; HEAD is GET without a body and what `curl -I` sends), paths that climb out of the app
 * (`/../`, and the same encoded once or twice: `%2e%2e%2f`, `%252e%252e`), backslashes and NULs,
 * and, when bound to loopback, Host headers other than a loopback name (DNS rebinding).
 */
import type { MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';

const ALLOWED_METHODS = new Set(['GET', 'HEAD']);
const MAX_DECODE_ROUNDS = 3;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The request target exactly as the client sent it: the URL parser would already have removed `..`. */
function rawTarget(url: string, env: unknown): string {
  const incoming = (env as Partial<HttpBindings> | undefined)?.incoming;
  if (incoming && typeof incoming.url === 'string') return incoming.url;
  return url;
}

/** True when the path, decoded up to three times, has a `..` segment, a backslash or a NUL, or does not decode. */
export function isUnsafePath(target: string): boolean {
  // Absolute-form targets (`GET http://host/../x`) are checked on their path only.
  let path = (target.split(/[?#]/, 1)[0] ?? '').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  for (let round = 0; round <= MAX_DECODE_ROUNDS; round += 1) {
    if (/(^|\/)\.\.(\/|$)/.test(path)) return true;
    if (path.includes('\\') || path.includes('\0')) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      return true;
    }
    if (decoded === path) return false;
    path = decoded;
  }
  // Still changing after three rounds: nobody encodes a legitimate path that deep.
  return true;
}

function hostName(header: string): string {
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  return header.split(':', 1)[0] ?? '';
}

export function requestGuard(options: { loopbackOnly: boolean }): MiddlewareHandler {
  return async (c, next) => {
    if (!ALLOWED_METHODS.has(c.req.method)) {
      return c.text('405 method not allowed: this dashboard is read-only\n', 405, { Allow: 'GET, HEAD' });
    }
    if (isUnsafePath(rawTarget(c.req.url, c.env))) return c.text('400 bad path\n', 400);
    if (options.loopbackOnly) {
      const host = c.req.header('host');
      if (host !== undefined && !LOOPBACK_HOSTS.has(hostName(host).toLowerCase()))
        return c.text('403 unexpected Host header\n', 403);
    }
    await next();
    // Pages are self-contained: nothing may load from anywhere, scripts least of all.
    c.res.headers.set(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
    );
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    c.res.headers.set('Referrer-Policy', 'no-referrer');
    c.res.headers.set('Cache-Control', 'no-store');
  };
}
