export { ChannelError, type ChannelErrorCode } from './channel-error.js';
