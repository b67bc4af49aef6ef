import { z } from 'zod';

/**
 * The variables a key ring is read from (see `loadKeyRing`): `WHARF_CODEC_KEYS` holds the keys
 * (`k2:<base64>,k1:<base64>`, the first active), `WHARF_CODEC_KEYS_FILE` names a file holding
 * them (that format or JSON; mode 0600 or stricter).
 *
 * @example
 * ```ts
 * const env = codecEnvSchema.parse(process.env);
 * ```
 */
export const codecEnvSchema = z.object({
  WHARF_CODEC_KEYS: z.string().optional(),
  WHARF_CODEC_KEYS_FILE: z.string().optional(),
});

/**
 * A key file in JSON: `{ "keys": [{ "id": "k2", "key": "<base64 of 32 bytes>" }, …] }`, the
 * first key active.
 *
 * @example
 * ```ts
 * keyFileSchema.parse({ keys: [{ id: 'k1', key: randomBytes(32).toString('base64') }] });
 * ```
 */
export const keyFileSchema = z.object({
  keys: z.array(z.object({ id: z.string(), key: z.string() }).strict()).min(1),
});

/** A key file in JSON. */
export type KeyFile = z.infer<typeof keyFileSchema>;
