import { codeGuard } from '@wharf/common';
import { WharfOrchestratorError } from './orchestrator-error.js';

/**
 * A setting Wharf reads from the environment or a config file (Temporal's `TEMPORAL_*`
 * variables and `temporal.toml` profiles, the `OTEL_*` tracing variables) that cannot work:
 * a file that cannot be read or parsed, a profile that does not exist, a certificate that
 * cannot be read, a value of the wrong kind. Code `INVALID_CONFIG`; `setting` names the
 * variable (`TEMPORAL_TLS_CLIENT_CERT_PATH`) or the key in the file
 * (`profile.cloud.tls.client_cert_path`), and `file` the file when one is involved.
 *
 * @example
 * ```ts
 * try {
 *   loadTemporalConfig();
 * } catch (error) {
 *   if (InvalidConfigError.isInstance(error)) console.error(`${error.setting}: ${error.message}`);
 * }
 * ```
 */
export class InvalidConfigError extends WharfOrchestratorError {
  /** The variable or config-file key that is wrong. */
  readonly setting: string;
  /** The config file involved, if any. */
  readonly file: string | undefined;

  constructor(setting: string, message: string, options?: { file?: string; cause?: unknown }) {
    super('INVALID_CONFIG', message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InvalidConfigError';
    this.setting = setting;
    this.file = options?.file;
  }

  /** True for an InvalidConfigError from any realm. */
  static override readonly isInstance = codeGuard<InvalidConfigError>(
    WharfOrchestratorError,
    'INVALID_CONFIG',
  );
}
