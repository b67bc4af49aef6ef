export { ContextResolverError, type ContextResolverErrorCode } from './context-resolver-error.js';
