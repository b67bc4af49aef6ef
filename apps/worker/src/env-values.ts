import { InvalidStoreUrlError } from '@wharf/output-store/config';
import { z } from 'zod';

/**
 * `schema`, with an empty variable read as unset: Compose passes an unset `${NAME:-}` as empty.
 *
 * @example
 * ```ts
 * const schema = z.object({ WHARF_CACHE_DIR: emptyAsUnset(z.string().optional()) });
 * schema.parse({ WHARF_CACHE_DIR: '' }); // {}
 * ```
 */
export function emptyAsUnset<TSchema extends z.ZodType>(schema: TSchema) {
  return z.preprocess((value) => (value === '' ? undefined : value), schema);
}

/**
 * An optional text variable; empty counts as unset.
 *
 * @example
 * ```ts
 * z.object({ WHARF_CODEC_TOKEN: optionalText }).parse({ WHARF_CODEC_TOKEN: '' }); // {}
 * ```
 */
export const optionalText = emptyAsUnset(z.string().optional());

/**
 * An optional http(s) URL (an OIDC issuer, a JWKS); empty counts as unset.
 *
 * @example
 * ```ts
 * z.object({ WHARF_CODEC_OIDC_ISSUER: optionalHttpUrl }).parse({ WHARF_CODEC_OIDC_ISSUER: 'ftp://x' }); // throws
 * ```
 */
export const optionalHttpUrl = emptyAsUnset(
  z
    .string()
    .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
      message: 'give an http:// or https:// URL',
    })
    .optional(),
);

/**
 * An optional data-plane URL (`WHARF_STORE`, `WHARF_BLOBS`) checked by `parse`: empty counts as
 * unset; a malformed one is refused naming the bad part.
 *
 * @example
 * ```ts
 * const store = dataPlaneUrl('WHARF_STORE', parseStoreUrl);
 * ```
 */
export function dataPlaneUrl(variable: string, parse: (value: string, variable: string) => unknown) {
  return emptyAsUnset(
    z
      .string()
      .superRefine((value, context) => {
        try {
          parse(value, variable);
        } catch (error) {
          if (!InvalidStoreUrlError.isInstance(error)) throw error;
          context.addIssue({ code: 'custom', message: `${error.part} ${error.reason}` });
        }
      })
      .optional(),
  );
}
