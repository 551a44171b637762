// The approvals module's public face: the broker, the shipped resolvers and the contract types.
export { ApprovalBroker, type ApprovalBrokerOptions } from './broker.js';
export { callbackResolver, nonInteractiveResolver } from './resolvers.js';
export type {
  ApprovalDecider,
  ApprovalInput,
  ApprovalNotice,
  ApprovalRequest,
  ApprovalResolver,
  ApprovalResult,
  Resolver,
  ResolverAnswer,
} from './types.js';
