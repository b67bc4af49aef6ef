// The JSON value type is @wharf/common's, re-exported so a resolver user names it directly.
export type { JsonObject, JsonValue } from '@wharf/common';
export { type AppliedOutput, type ApplyOutputOptions, applyOutput } from './apply-output.js';
export { appendMessages, type Context, contextMessages, resolveReference } from './context.js';
export { ContextLog } from './context-log.js';
export {
  ContextResolverError,
  type ContextResolverErrorCode,
  InvalidExpressionError,
  TypeMismatchError,
} from './context-resolver-error.js';
export { type Evaluation, evaluateExpression } from './evaluate.js';
export {
  type Expression,
  ExpressionParser,
  expressionReferences,
  parseExpression,
  type ReferenceExpression,
} from './expression.js';
export type { Resolution } from './fold.js';
export { type OutputPlan, parseOutputPath } from './output-plan.js';
export { formatReference, parsePath, parseReference, REFERENCE_MARKER, type Reference } from './path.js';
export { type ModelMessage, renderForModel } from './render-for-model.js';
export { type CallResolution, type MissingArgument, resolveCall } from './resolve-call.js';
export { isVisible, type ResolveOptions, scanResolve } from './scan-resolve.js';
export {
  type Call,
  type ContextMessage,
  callSchema,
  contextMessageSchema,
  jsonValueSchema,
  type OutputMethod,
  type OutputPathSchema,
  outputMethodSchema,
  outputPathSchemaFragment,
} from './schemas.js';
export { validateOutputPath } from './validate-output-path.js';
export { messageWrites, type Write } from './writes.js';
