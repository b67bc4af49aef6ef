import { readFile } from 'node:fs/promises';
import type { CodecAuthOptions } from '@wharf/codec/server';
import { CliError } from './cli-error.js';

/** The options a served endpoint's auth is read from (`wharf codec-server`, `wharf events-server`). */
export interface ServerAuthFlags {
  tokenFile?: string;
  oidcIssuer?: string;
  oidcAudience?: string;
  oidcJwksUri?: string;
}

/**
 * The auth a server command's options ask for: a bearer token (`--token-file`, else the
 * `tokenVariable` environment variable) and/or an OIDC issuer; undefined for none.
 *
 * @example
 * ```ts
 * const auth = await authOptions({ tokenFile: 'token.txt' }, 'WHARF_EVENTS_TOKEN');
 * ```
 */
export async function authOptions(
  options: ServerAuthFlags,
  tokenVariable = 'WHARF_CODEC_TOKEN',
): Promise<CodecAuthOptions | undefined> {
  let bearerToken = process.env[tokenVariable];
  if (options.tokenFile !== undefined) {
    bearerToken = (
      await readFile(options.tokenFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new CliError('USAGE', `--token-file ${options.tokenFile} cannot be read (${error.code})`);
      })
    ).trim();
  }
  if (options.oidcIssuer === undefined && (options.oidcAudience ?? options.oidcJwksUri) !== undefined)
    throw new CliError('USAGE', '--oidc-audience and --oidc-jwks-uri need --oidc-issuer');
  const oidc =
    options.oidcIssuer === undefined
      ? undefined
      : {
          issuer: options.oidcIssuer,
          ...(options.oidcAudience === undefined ? {} : { audience: options.oidcAudience }),
          ...(options.oidcJwksUri === undefined ? {} : { jwksUri: options.oidcJwksUri }),
        };
  if (bearerToken === undefined && oidc === undefined) return undefined;
  return {
    ...(bearerToken === undefined || bearerToken === '' ? {} : { bearerToken }),
    ...(oidc === undefined ? {} : { oidc }),
  };
}
