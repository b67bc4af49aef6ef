import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { cliKeyRing, encryptedPayloadHint } from './codec-keys.js';

describe('the CLI and the payload encryption keys', () => {
  it('reads no ring without the variables, and refuses a malformed one as a usage error without quoting it', async () => {
    expect(await cliKeyRing({})).toBeUndefined();
    const error = await cliKeyRing({ WHARF_CODEC_KEYS: 'k1:not-base64!' }).catch((caught: unknown) => caught);
    expect(CliError.isInstance(error) && error.code).toBe('USAGE');
    expect((error as Error).message).not.toContain('not-base64!');
  });

  it('says to set the keys when a payload could not be read for its encryption', () => {
    const cause = new Error('Unknown encoding: binary/encrypted');
    expect(
      encryptedPayloadHint(new CliError('NOT_FOUND', `cannot query w: ${cause.message}`, { cause })),
    ).toMatch(/WHARF_CODEC_KEYS/);
    expect(encryptedPayloadHint(new Error('no such workflow'))).toBeUndefined();
  });
});
