export {
  type Authentication,
  type CodecAuthOptions,
  createAuthenticator,
  type OidcOptions,
} from './authenticator.js';
export { createCodecHandler } from './codec-handler.js';
export { type CodecServer, type CodecServerOptions, startCodecServer } from './codec-server.js';
export {
  type CodecHandlerOptions,
  type CodecServerLogger,
  isLoopbackHost,
} from './codec-server-options.js';
export { corsAllowedHeaders } from './cors.js';
export type { OwnerRule, PayloadTrace, ReferenceResolver, ResolvedReference } from './decode-payload.js';
export { cutForDisplay, defaultDisplayLimitBytes } from './display-cut.js';
export { type ExternalReference, externalReferenceOf, referenceId } from './external-reference.js';
export {
  fromWirePayload,
  toWirePayload,
  type WirePayload,
  type WirePayloads,
  wirePayloadsSchema,
} from './wire-payloads.js';
