/**
 * Decodes the path of a `file:` or `sqlite:` URL and checks it is a plain absolute path:
 * valid percent-escapes, no NUL, no `.` or `..` segment (also spelled `%2e%2e`), no empty
 * segment. Returns the decoded path without a trailing slash, or the reason it is refused.
 *
 * @example
 * ```ts
 * decodeAbsolutePath('/var/wharf/blobs/'); // { path: '/var/wharf/blobs' }
 * decodeAbsolutePath('/var/../etc');       // { reason: 'must not contain . or .. segments' }
 * ```
 */
export function decodeAbsolutePath(raw: string): { path: string } | { reason: string } {
  if (!raw.startsWith('/')) return { reason: 'must be absolute (file:///dir)' };
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { reason: 'has a malformed %-escape' };
  }
  if (decoded.includes('\0')) return { reason: 'must not contain NUL' };
  const trimmed = decoded.length > 1 ? decoded.replace(/\/+$/, '') : decoded;
  const segments = trimmed.split('/').slice(1);
  if (segments.some((segment) => segment === '.' || segment === '..'))
    return { reason: 'must not contain . or .. segments' };
  if (trimmed !== '/' && segments.some((segment) => segment === ''))
    return { reason: 'must not contain empty segments (//)' };
  return { path: trimmed };
}
