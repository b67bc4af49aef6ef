import { withClient } from '../connect-server.js';
import type { CliIo } from '../output.js';
import { authOptions } from '../server-auth-options.js';

/** Options of {@link eventsServerCommand}. */
export interface EventsServerCommandOptions {
  address?: string;
  namespace?: string;
  host: string;
  port: number;
  /** Browser origins allowed to read the streams. */
  origin: string[];
  /** A file holding the bearer token (else `WHARF_EVENTS_TOKEN`). */
  tokenFile?: string;
  oidcIssuer?: string;
  oidcAudience?: string;
}

/**
 * `wharf events-server`: serves every run's event stream as Server-Sent Events,
 * `GET /runs/<workflow id>/events` (`startEventsServer`), resuming after `Last-Event-ID`.
 * Loopback only unless given a bearer token (`--token-file`, `WHARF_EVENTS_TOKEN`) or an OIDC
 * issuer, as `wharf codec-server`. Runs until Ctrl-C (or `until`).
 */
export async function eventsServerCommand(
  options: EventsServerCommandOptions,
  io: CliIo,
  until?: Promise<void>,
): Promise<void> {
  const auth = await authOptions(options, 'WHARF_EVENTS_TOKEN');
  await withClient(options, async (wharf) => {
    const { startEventsServer } = await import('@wharf/orchestrator/client');
    const server = await startEventsServer({
      wharf,
      host: options.host,
      port: options.port,
      allowedOrigins: options.origin,
      ...(auth === undefined ? {} : { auth }),
    });
    io.out(
      [
        `Events server at ${server.url}`,
        `  curl -N ${server.url}/runs/<workflow id>/events  (Server-Sent Events; resume with Last-Event-ID: <seq>)`,
        'Press Ctrl-C to stop.',
      ].join('\n'),
    );
    await (until ??
      new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      }));
    await server.close();
  });
}
