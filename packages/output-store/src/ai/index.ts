export {
  type EmitHandlerOptions,
  type EmitToolInput,
  type EmitToolResult,
  emitToolInputSchema,
} from '../emit-tool.js';
export { createEmitTool } from './emit-tool.js';
