// Test support: what other packages' tests use to exercise the codec server.
export { type AccessTokenOptions, type OidcIssuer, startOidcIssuer } from './oidc-issuer.js';
