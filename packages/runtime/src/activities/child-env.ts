import { codecEnvNames } from '@wharf/codec';
import { WharfOrchestratorError } from '@wharf/swarm';

/** Options of {@link childEnvironment}. */
export interface ChildEnvironmentOptions {
  /** The worker's own environment. Default `process.env`. */
  base?: Readonly<Record<string, string | undefined>>;
  /**
   * What the child is given explicitly (a script's `env:`, an MCP server's `env`): added last,
   * as it is, over whatever the worker's environment had.
   */
  extra?: Readonly<Record<string, string>> | undefined;
}

/** The worker variable naming what children may see although Wharf keeps it to itself. */
export const PASS_ENV_VARIABLE = 'WHARF_PASS_ENV';

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Credentials by name: Wharf's own, the S3 and PostgreSQL clients', Temporal's, model providers',
 * and the OTLP exporter's headers (Wharf's tracing reads them; they often carry `Authorization`).
 */
const CREDENTIAL_NAMES = [
  /^OTEL_EXPORTER_OTLP(_\w+)?_HEADERS$/,
  /^WHARF_S3_/,
  /^WHARF_\w*(SECRET|PASSWORD|TOKEN|_KEY)/,
  /^AWS_\w*(SECRET|TOKEN|_KEY)/,
  /^PG(PASSWORD|PASSFILE|SSLKEY|SSLPASSWORD)$/,
  /^TEMPORAL_\w*(API_KEY|TLS|CERT|_KEY|AUTH|SECRET|PASSWORD|TOKEN)/,
  /_API_KEY$/,
  /_AUTH_TOKEN$/,
];
/** URL parts that are credentials: a `password=`, `sslkey=`… query parameter. */
const SECRET_PARAMETER = /pass|secret|key|token/i;
/** Secret values shorter than this are not searched for in other variables' values. */
const MIN_SECRET_LENGTH = 8;

/**
 * The forms a secret can be copied in, so that a copy is recognised inside another value: as it
 * is, percent-encoded (either hex case, as URLs carry it), and base64 or base64url at each of
 * the three alignments it can have inside a longer encoded text (`user:secret` in a Basic
 * authorisation, a secret in a JSON blob), without the characters that depend on its neighbours.
 *
 * @example
 * ```ts
 * secretForms('p@ss word!'); // ['p@ss word!', 'p%40ss%20word!', 'p%40ss%20word!'.toLowerCase(), 'cEBzcyB3b3Jk', …]
 * ```
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  const percent = encodeURIComponent(secret);
  forms.add(percent);
  forms.add(percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  const bytes = Buffer.from(secret, 'utf8');
  for (const offset of [0, 1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]);
    // Characters carrying bits of the bytes before the secret, or of those after it, are dropped.
    const first = [0, 2, 3][offset] as number;
    const tail = shifted.length % 3 === 0 ? 0 : 1;
    for (const encoding of ['base64', 'base64url'] as const) {
      const text = shifted.toString(encoding).replace(/=+$/, '');
      const core = text.slice(first, text.length - tail);
      if (core.length >= MIN_SECRET_LENGTH) forms.add(core);
    }
  }
  return [...forms];
}

/** Whether a data-plane URL (`WHARF_STORE`, `WHARF_BLOBS`) carries a password or a key. */
function urlHoldsSecret(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.password !== '' || [...url.searchParams.keys()].some((name) => SECRET_PARAMETER.test(name));
}

/** The password of a URL, decoded, if it has one. */
function passwordOf(value: string): string | undefined {
  if (!URL.canParse(value)) return undefined;
  const { password } = new URL(value);
  if (password === '') return undefined;
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}

/** The keys of a `WHARF_CODEC_KEYS` value (`k2:<base64>,k1:<base64>`), each a secret of its own. */
function keyRingParts(value: string): string[] {
  return value
    .split(/[\s,]+/)
    .map((entry) => entry.slice(entry.indexOf(':') + 1))
    .filter((key) => key.length > 0);
}

/**
 * The names `WHARF_PASS_ENV` lists (comma-separated variable names), checked.
 *
 * @example
 * ```ts
 * passEnvNames({ WHARF_PASS_ENV: 'GH_TOKEN, DEPLOY_KEY' }); // ['GH_TOKEN', 'DEPLOY_KEY']
 * ```
 */
export function passEnvNames(env: Readonly<Record<string, string | undefined>>): string[] {
  const names = (env[PASS_ENV_VARIABLE] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const bad = names.filter((name) => !VARIABLE_NAME.test(name));
  if (bad.length > 0) {
    throw new WharfOrchestratorError(
      'INVALID_ENV',
      `${PASS_ENV_VARIABLE}: ${bad.map((name) => `"${name}"`).join(', ')} is not a variable name (a comma-separated list of names, e.g. GH_TOKEN,DEPLOY_KEY)`,
    );
  }
  return names;
}

/**
 * Whether Wharf keeps a variable of its environment from the processes it starts: the data
 * plane's credentials (`WHARF_STORE` when its URL holds a password or key, `WHARF_BLOBS` likewise,
 * `WHARF_S3_*`, any `WHARF_*` secret, token, password or key such as `WHARF_INTAKE_SECRET`),
 * the S3 client's keys and tokens (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
 * `AWS_SESSION_TOKEN`, `AWS_WEB_IDENTITY_TOKEN_FILE`, …), PostgreSQL's (`PGPASSWORD`,
 * `PGPASSFILE`, `PGSSLKEY`), Temporal's (`TEMPORAL_API_KEY`, `TEMPORAL_TLS_*`, client keys and
 * certificates), the model providers' (`*_API_KEY`, `*_AUTH_TOKEN`) and the payload encryption
 * keys (`WHARF_CODEC_KEYS`, `WHARF_CODEC_KEYS_FILE`).
 *
 * @example
 * ```ts
 * isWharfCredential('AWS_SECRET_ACCESS_KEY', 'x'); // true
 * isWharfCredential('WHARF_STORE', 'sqlite:///srv/wharf.db'); // false
 * ```
 */
export function isWharfCredential(name: string, value: string): boolean {
  if (codecEnvNames.includes(name)) return true;
  if (name === 'WHARF_STORE' || name === 'WHARF_BLOBS') return urlHoldsSecret(value);
  return CREDENTIAL_NAMES.some((pattern) => pattern.test(name));
}

/**
 * The environment of every process Wharf starts for a swarm — scripts, the agents' `shell`
 * tool, MCP servers — built in this one place: the worker's environment without the
 * credentials Wharf itself uses ({@link isWharfCredential}), and without any other variable
 * whose value holds one of them (a copied database URL, say), percent-encoded or in base64 (see
 * {@link secretForms}; values under 8 characters are not searched for), then `extra` as given. A variable named in the worker's `WHARF_PASS_ENV`
 * (comma-separated names) is kept whatever it holds: that is how a worker's operator gives
 * scripts a credential they need. The payload encryption keys are the exception: no script is
 * ever given them (nor any key of the ring copied into another variable). A malformed `WHARF_PASS_ENV` is an `INVALID_ENV` error.
 *
 * @example
 * ```ts
 * childEnvironment({
 *   base: { PATH: '/usr/bin', AWS_SECRET_ACCESS_KEY: 'k', GH_TOKEN: 't', WHARF_PASS_ENV: 'GH_TOKEN' },
 *   extra: { STAGE: 'test' },
 * }); // { PATH: '/usr/bin', GH_TOKEN: 't', WHARF_PASS_ENV: 'GH_TOKEN', STAGE: 'test' }
 * ```
 */
export function childEnvironment(options: ChildEnvironmentOptions = {}): Record<string, string> {
  const base = options.base ?? process.env;
  const passed = new Set(passEnvNames(base));
  const secrets = new Set<string>();
  // The encryption keys: never passed, not even as a copy in a variable WHARF_PASS_ENV names.
  const keys = new Set<string>();
  const kept: [string, string][] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (codecEnvNames.includes(name)) {
      for (const key of [value, ...keyRingParts(value)])
        if (key.length >= MIN_SECRET_LENGTH) for (const form of secretForms(key)) keys.add(form);
      continue;
    }
    if (passed.has(name) || !isWharfCredential(name, value)) {
      kept.push([name, value]);
      continue;
    }
    for (const secret of [value, passwordOf(value)]) {
      if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH)
        for (const form of secretForms(secret)) secrets.add(form);
    }
  }
  const holds = (value: string, forms: Set<string>) => [...forms].some((form) => value.includes(form));
  const environment: Record<string, string> = {};
  for (const [name, value] of kept) {
    if (holds(value, keys)) continue;
    if (passed.has(name) || !holds(value, secrets)) environment[name] = value;
  }
  return { ...environment, ...options.extra };
}
